// "Predict, then reveal": the questions a stage asks before its result is shown (its shape, then
// the value questions its stage entry lists: model/quiz-questions.js), and the verdict on a
// typed answer. Every expected answer is read from the engine's trace, never written by hand;
// the only work here is comparing numbers within a tolerance. Pure.
//
// A question: { id, kind: 'shape' | 'number' | 'count' | 'divisor' | 'key' | 'choice', prompt,
//   help (how to type it), expected (kind's own), answer (text of the right answer), hint,
//   why (said when right) }.

import { shapeHint } from './quiz-hints.js';
import { formatShape, near, parseChoice, parseNumber, parseRoot, parseShape } from './quiz-parse.js';
import { operandCaption, stageById } from './stage-table.js';

// Values are shown with three decimals: an answer read off (or rounded like) them is right.
const TOLERANCE = 0.0005;

function shapeQuestion(step, entry, ctx) {
  const symbolic = step.stage.symbolic.split('\u2192').pop().trim();
  return {
    id: 'shape',
    kind: 'shape',
    prompt: `What shape will ${entry.result} have?`,
    help: 'Rows, then columns: for example 5, 4 or (5, 4) or 5x4.',
    expected: step.stage.shape,
    answer: formatShape(step.stage.shape),
    hint: shapeHint(step.stage, entry, ctx.trace.config),
    why: `that is ${symbolic}.`,
  };
}

/** The questions of steps[index], shape first. ctx: { trace, tokens: { [axis]: labels } }. */
export function quizQuestions(steps, index, ctx) {
  const step = steps[index];
  const entry = step && stageById(step.id);
  if (!entry || entry.composed) return []; // all heads side by side: no result of its own to predict
  const asked = { ...ctx, caption: (op) => operandCaption(entry, op) };
  const values = entry.quiz.map((make) => make(step, asked)).filter(Boolean);
  return [shapeQuestion(step, entry, ctx), ...values];
}

// Each kind's reader and judge: → { read: false } | { read: true, right, hint? }.
const CHECKS = {
  shape(q, text) {
    const got = parseShape(text);
    if (!got) return { read: false };
    const [rows, cols] = q.expected;
    const swapped = got[0] === cols && got[1] === rows;
    return {
      read: true,
      right: got[0] === rows && got[1] === cols,
      hint: swapped ? `Rows come first. ${q.hint}` : q.hint,
    };
  },
  number(q, text) {
    const got = parseNumber(text);
    return got === null ? { read: false } : { read: true, right: near(got, q.expected.value, TOLERANCE) };
  },
  count(q, text) {
    const got = parseNumber(text);
    return got === null ? { read: false } : { read: true, right: got === q.expected.value };
  },
  divisor(q, text, facts) {
    const root = parseRoot(text);
    if (root !== null) return { read: true, right: root === q.expected.root };
    const got = parseNumber(text);
    if (got === null) return { read: false };
    const right = facts.divisor !== undefined && near(got, facts.divisor, TOLERANCE);
    const itself = `That is ${q.expected.width} itself. ${q.hint}`; // MLA's width is d_k + d_r
    return { read: true, right, hint: got === q.expected.root ? itself : q.hint };
  },
  key(q, text) {
    const t = String(text ?? '')
      .trim()
      .replace(/^["“'‘]|["”'’]$/g, '')
      .toLowerCase();
    if (!t) return { read: false };
    // A number is a column, and also a token where the tokens are numbers (the trained model's ids).
    const byLabel = q.expected.keys.flatMap((k, j) => (k.toLowerCase() === t ? [j] : []));
    const byColumn = /^\d+$/.test(t) && Number(t) < q.expected.keys.length ? [Number(t)] : [];
    const columns = [...byLabel, ...byColumn];
    if (!columns.length) return { read: false };
    return { read: true, right: columns.some((j) => q.expected.columns.includes(j)) };
  },
  choice(q, text) {
    const got = parseChoice(text, q.expected.choices);
    return got === null ? { read: false } : { read: true, right: got === q.expected.choice };
  },
};

/**
 * A typed answer → { status: 'right' | 'wrong' | 'unreadable', text }. facts: what the engine
 * adds beyond the trace ({ divisor } from engine.explain for the scaled stage).
 */
export function checkAnswer(question, text, facts = {}) {
  const result = CHECKS[question.kind](question, text, facts);
  if (!result.read) return { status: 'unreadable', text: `I could not read that. ${question.help}` };
  if (result.right) return { status: 'right', text: `Right: ${question.answer}; ${question.why}` };
  return { status: 'wrong', text: `Not quite. ${result.hint ?? question.hint}` };
}

export const NO_RECORD = { answers: {}, last: null, shown: false };

/**
 * The quiz card for one step: the questions settled so far, the one to answer (null once the
 * result is revealed) and the latest feedback. record: { answers: { [id]: { tries, right } },
 * last: { status, text } | null, shown }; key names the step (a new key clears the field).
 */
export function quizCard(questions, record, key) {
  const current = record.shown ? null : (questions.find((q) => !record.answers[q.id]?.right) ?? null);
  const settled = current ? questions.slice(0, questions.indexOf(current)) : questions;
  const statusOf = (a) => (!a?.right ? 'shown' : a.tries === 1 ? 'right first time' : 'right');
  return {
    revealed: !current,
    done: settled.map((q) => ({
      id: q.id,
      prompt: q.prompt,
      answer: q.answer,
      status: statusOf(record.answers[q.id]),
    })),
    current: current && {
      key: `${key}:${current.id}`,
      id: current.id,
      prompt: current.prompt,
      help: current.help,
      position: `Question ${questions.indexOf(current) + 1} of ${questions.length}`,
    },
    feedback: record.last,
  };
}

/**
 * The feedback after an answer → { status, text, next }: next repeats the new question for
 * screen readers (the field's label changes silently; sighted readers see it in the form).
 */
export function feedbackAfter(verdict, card) {
  if (verdict.status !== 'right') return { ...verdict, next: null };
  if (!card.current) return { ...verdict, text: `${verdict.text} The result is shown.`, next: null };
  return { ...verdict, next: `Next: ${card.current.prompt}` };
}

export function scoreText({ answered, rightFirst }) {
  return `Score: ${answered} answered, ${rightFirst} right first time`;
}
