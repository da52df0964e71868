// Quiz mode's state changes, as patches for the store like actions.js: on/off (or required, a
// lecturer's setting the reader cannot switch off, under which Next waits for this stage's
// answers), an answer to the current step's question, "Show me", and the card the view draws. State:
//   s.quiz = { on, required, trace, records: { [step index]: { answers, last, shown } }, score, answered }
//   answered: the last readable answer { step, question, answer, expected, correct } (a new
//   object each time: the element's quizanswer event)
// Records belong to the trace they were made on (a new run asks every stage again); the score
// stays for the session. No math: the model reads answers from the trace, the engine adds facts.

import { pathOf } from '../model/navigation.js';
import { QUIZ_REQUIRED } from '../state/view-keys.js';
import { checkAnswer, feedbackAfter, NO_RECORD, quizCard, quizQuestions, scoreText } from '../model/quiz.js';

const INITIAL = { on: false, trace: null, records: {}, score: { answered: 0, rightFirst: 0 } };

export function quizOf(s) {
  return s.quiz ?? INITIAL;
}

function recordsOf(s) {
  const q = quizOf(s);
  return q.trace === s.trace ? q.records : {};
}

function recordAt(s) {
  return recordsOf(s)[s.step] ?? NO_RECORD;
}

function questionsAt(s) {
  return quizQuestions(s.steps, s.step, { trace: s.trace, tokens: s.tokens });
}

function withRecord(s, record, score = quizOf(s).score) {
  return { quiz: { ...quizOf(s), trace: s.trace, records: { ...recordsOf(s), [s.step]: record }, score } };
}

/** The reader's switch: on or off, unless the quiz is required. */
export function toggleQuiz(s, on) {
  if (quizOf(s).required) return {};
  return { quiz: { ...quizOf(s), on: Boolean(on) } };
}

/** A wanted view (URL hash, attributes) that says quiz, required or not; one that does not keeps it. */
export function quizFromWanted(s, wanted) {
  if (wanted.quiz === undefined) return {};
  const required = wanted.quiz === QUIZ_REQUIRED;
  return { quiz: { ...quizOf(s), on: Boolean(wanted.quiz), required } };
}

/** The quiz setting as a link or an attribute writes it: false, true or 'required'. */
export function quizSetting(s) {
  const q = quizOf(s);
  return q.required ? QUIZ_REQUIRED : q.on;
}

/** Whether the current step still waits for its answers (its result not yet revealed). */
function waiting(s) {
  if (!s.trace || !s.steps.length) return false;
  return !quizCard(questionsAt(s), recordAt(s), s.step).revealed;
}

export const HELD_NOTICE = 'Answer this stage\u2019s question first: this course asks for a prediction at every stage.';

/**
 * A store patch as it may apply: under a required quiz, a move to a later step of the same run
 * while this one still waits for its answers is held back (the patch becomes a notice). Moving
 * back, or anything that is not a move, passes.
 */
export function heldBack(s, patch) {
  const q = quizOf(s);
  const moves = patch.step !== undefined && patch.step > s.step && (patch.trace ?? s.trace) === s.trace;
  if (q.required && moves && waiting(s)) return { quizNotice: HELD_NOTICE };
  return s.quizNotice && patch.quizNotice === undefined ? { ...patch, quizNotice: null } : patch;
}

// What the engine knows beyond the trace: the divisor of the scaled stage (its explain).
function factsFor(engine, s, question) {
  if (question.kind !== 'divisor') return {};
  const step = s.steps[s.step];
  try {
    return {
      divisor: engine.explain(s.trace, { stage: step.id, head: step.head, step: step.step, row: 0, col: 0 }).divisor,
    };
  } catch {
    return {}; // then only the root form (√4) is recognised
  }
}

/** Checks text against the current question; scores the first readable try of each question. */
export function answerQuiz(engine, s, text) {
  const questions = questionsAt(s);
  const record = recordAt(s);
  const card = quizCard(questions, record, s.step);
  const question = questions.find((q) => q.id === card.current?.id);
  if (!question) return {};
  const verdict = checkAnswer(question, text, factsFor(engine, s, question));
  if (verdict.status === 'unreadable') return withRecord(s, { ...record, last: verdict });
  const before = record.answers[question.id] ?? { tries: 0, right: false };
  const answers = { ...record.answers, [question.id]: { tries: before.tries + 1, right: verdict.status === 'right' } };
  const { score } = quizOf(s);
  const first = before.tries === 0;
  const scored = first
    ? { answered: score.answered + 1, rightFirst: score.rightFirst + (verdict.status === 'right' ? 1 : 0) }
    : score;
  const next = quizCard(questions, { ...record, answers }, s.step);
  const patch = withRecord(s, { ...record, answers, last: feedbackAfter(verdict, next) }, scored);
  const correct = verdict.status === 'right';
  const answered = { step: s.step, question: question.prompt, answer: text, expected: question.answer, correct };
  return { quiz: { ...patch.quiz, answered } };
}

/** "Show me": the step's answers and its result, without scoring; under a required quiz only
 * after a readable try at the question asked. */
export function revealQuiz(s) {
  const record = recordAt(s);
  if (record.shown || !mayReveal(s)) return {};
  return withRecord(s, {
    ...record,
    shown: true,
    last: { status: 'shown', text: 'The answers are listed above, and the result is shown.' },
  });
}

/** The questions of the reader's path in this configuration (the stages Next walks at this decode
 * step, tile or layer): { total, answered (a readable first try), correct (right first time) }. */
export function pathProgress(s) {
  const records = recordsOf(s);
  let [total, answered, correct] = [0, 0, 0];
  for (const index of pathOf(s.steps, s.step, s.head)) {
    const questions = quizQuestions(s.steps, index, { trace: s.trace, tokens: s.tokens });
    const answers = records[index]?.answers ?? {};
    total += questions.length;
    for (const q of questions) {
      if (!answers[q.id]?.tries) continue;
      answered += 1;
      if (answers[q.id].right && answers[q.id].tries === 1) correct += 1;
    }
  }
  return { total, answered, correct };
}

// "Show me" is there at once, or under a required quiz once the question asked has been tried.
// card: the step's quiz card, when the caller has it already.
function mayReveal(s, card = quizCard(questionsAt(s), recordAt(s), s.step)) {
  if (!quizOf(s).required) return true;
  return !card.current || Boolean(recordAt(s).answers[card.current.id]?.tries);
}

/**
 * → { on, required, score, card, asking, canReveal } for the quiz view; asking: the result is
 * still to be hidden; required: the switch is the course's, not the reader's.
 */
export function quizViewOf(s) {
  const q = quizOf(s);
  const base = { on: q.on, required: Boolean(q.required), score: scoreText(q.score), card: null, asking: false };
  if (!q.on || !s.trace || !s.steps.length) return base;
  const card = quizCard(questionsAt(s), recordAt(s), s.step);
  return { ...base, card, asking: !card.revealed, canReveal: mayReveal(s, card) };
}
