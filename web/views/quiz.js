// Quiz mode: a bar with the "Quiz me" switch and the score, and a card that asks the current
// step's questions in a labelled form before its result is shown.
// createQuiz(host, { onAnswer(text), onReveal(), onToggle(on) }) → { update(view), destroy() };
// view: { on, required (the switch is the course's: shown, not changeable), canReveal ("Show me"
// offered), score, card: { revealed, done: [{ prompt, answer, status }], current: { key,
// prompt, help, position } | null, feedback: { status, text, next } | null } | null }; next is
// read out but not shown.
// The field, its label and the feedback region stay in place between updates, so typing,
// focus and what a screen reader follows survive every redraw of the stepper.

import { el, setText } from './dom.js';

function named(tag, className, id, text) {
  const node = el(tag, className, text);
  node.id = id;
  return node;
}

function buildForm(parts) {
  const form = el('form', 'quiz-form');
  form.setAttribute('aria-labelledby', 'quiz-title');
  form.noValidate = true;
  parts.position = el('p', 'quiz-position');
  parts.label = el('label', 'quiz-prompt');
  parts.label.htmlFor = 'quiz-answer';
  parts.help = named('p', 'quiz-help', 'quiz-help');
  parts.input = named('input', 'quiz-input', 'quiz-answer');
  Object.assign(parts.input, { type: 'text', autocomplete: 'off', spellcheck: false });
  parts.input.setAttribute('autocapitalize', 'off');
  parts.input.setAttribute('aria-describedby', 'quiz-help quiz-feedback');
  const check = el('button', 'quiz-check', 'Check');
  check.type = 'submit';
  parts.show = el('button', 'quiz-show', 'Show me');
  parts.show.type = 'button';
  const row = el('div', 'quiz-row');
  row.append(parts.input, check, parts.show);
  form.append(parts.position, parts.label, parts.help, row);
  return form;
}

function buildCard(parts) {
  const card = el('div', 'quiz-card');
  parts.title = named('h3', 'quiz-title', 'quiz-title', 'Predict, then reveal');
  parts.title.tabIndex = -1; // focus lands here when the form goes away, inside the stepper
  parts.done = el('ol', 'quiz-done');
  parts.form = buildForm(parts);
  parts.feedback = named('p', 'quiz-feedback', 'quiz-feedback');
  parts.feedback.setAttribute('role', 'status');
  parts.feedback.setAttribute('aria-live', 'polite');
  card.append(parts.title, parts.done, parts.form, parts.feedback);
  return card;
}

const TOGGLE_TEXT = 'Quiz me: predict each result before it is shown';
const REQUIRED_TEXT = 'Quiz: this course asks you to predict each result before the next stage';

function buildBar(parts) {
  const bar = el('div', 'quiz-bar');
  const toggle = el('label', 'toggle quiz-toggle');
  parts.box = el('input');
  parts.box.type = 'checkbox';
  parts.toggleText = el('span', null, TOGGLE_TEXT);
  toggle.append(parts.box, parts.toggleText);
  parts.score = el('p', 'quiz-score');
  bar.append(toggle, parts.score);
  return bar;
}

function drawDone(list, done) {
  list.textContent = '';
  list.hidden = done.length === 0;
  for (const d of done) {
    const li = el('li', `quiz-item is-${d.status === 'shown' ? 'shown' : 'right'}`);
    li.append(
      el('span', 'quiz-item-prompt', d.prompt),
      ' ',
      el('strong', 'quiz-item-answer', d.answer),
      ' ',
      el('span', 'quiz-item-status', `(${d.status})`),
    );
    list.append(li);
  }
}

export function createQuiz(host, { onAnswer, onReveal, onToggle }) {
  const parts = {};
  const root = el('section', 'quiz');
  root.setAttribute('aria-label', 'Quiz');
  const card = buildCard(parts);
  root.append(buildBar(parts), card);
  host.append(root);
  let questionKey = null;

  parts.box.addEventListener('change', () => onToggle(parts.box.checked));
  parts.show.addEventListener('click', () => onReveal());
  parts.form.addEventListener('submit', (event) => {
    event.preventDefault();
    onAnswer(parts.input.value);
  });

  function drawCard(c, canReveal) {
    const focused = root.getRootNode().activeElement;
    const hadFocus = Boolean(focused) && parts.form.contains(focused);
    drawDone(parts.done, c.done);
    if (c.current && c.current.key !== questionKey) {
      parts.input.value = '';
      parts.label.textContent = c.current.prompt;
      parts.help.textContent = c.current.help;
      parts.position.textContent = c.current.position;
    }
    questionKey = c.current?.key ?? null;
    parts.form.hidden = !c.current;
    parts.show.hidden = !canReveal;
    parts.input.setAttribute('aria-invalid', String(c.feedback?.status === 'wrong'));
    parts.feedback.textContent = c.feedback?.text ?? '';
    if (c.feedback?.next) parts.feedback.append(' ', el('span', 'quiz-next', c.feedback.next));
    parts.feedback.dataset.status = c.feedback?.status ?? '';
    if (hadFocus && !c.current) parts.title.focus();
  }

  return {
    update({ on, required, score, card: c, canReveal = true }) {
      parts.box.checked = Boolean(on);
      parts.box.disabled = Boolean(required);
      setText(parts.toggleText, required ? REQUIRED_TEXT : TOGGLE_TEXT);
      parts.score.textContent = score;
      parts.score.hidden = !on;
      card.hidden = !on || !c;
      if (on && c) drawCard(c, canReveal);
    },
    destroy() {
      root.remove();
    },
  };
}
