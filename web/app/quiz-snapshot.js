// The quiz's answers in a few characters a stage, so that a learning platform can keep them
// (SCORM 1.2's suspend data holds 4,096) and hand them back to a later session:
//   "<step in base 36>[!]:<one digit a question>", joined by ","
// The digits follow the order of the step's questions (model/quiz.js): 0 not answered yet,
// 1 right at the first try, 2 right after a wrong try, 3 wrong so far; "!" marks a step whose
// answers were shown ("Show me"). Records belong to one trace, as in quiz-actions.js: a snapshot
// restores onto the configuration it was taken in, and what does not fit that configuration
// (a step or a question it does not have, a digit that is not a code) is left out.

import { NO_RECORD, quizQuestions } from '../model/quiz.js';
import { quizOf } from './quiz-actions.js';

const CODE_OF = (a) => (!a?.tries ? '0' : a.right ? (a.tries === 1 ? '1' : '2') : '3');
const ANSWER_OF = { 1: { tries: 1, right: true }, 2: { tries: 2, right: true }, 3: { tries: 1, right: false } };
const ENTRY = /^([0-9a-z]{1,4})(!?):([0-3]*)$/;

const questionsOf = (s, index) => quizQuestions(s.steps, index, { trace: s.trace, tokens: s.tokens });

/** The answers given on this configuration's trace, as text ("" when none). */
export function quizSnapshot(s) {
  const q = quizOf(s);
  if (q.trace !== s.trace) return '';
  const entries = [];
  for (const [index, record] of Object.entries(q.records)) {
    const codes = questionsOf(s, Number(index))
      .map((question) => CODE_OF(record.answers[question.id]))
      .join('');
    if (!record.shown && !/[1-3]/.test(codes)) continue;
    entries.push(`${Number(index).toString(36)}${record.shown ? '!' : ''}:${codes.replace(/0+$/, '')}`);
  }
  return entries.join(',');
}

/**
 * A state patch that puts a snapshot's answers back on the current trace, with the quiz on and the
 * session's score counted from them; {} for text that holds nothing readable.
 */
export function restoreQuiz(s, text) {
  if (!s.trace || typeof text !== 'string' || !text) return {};
  const records = {};
  for (const entry of text.split(',')) {
    const m = ENTRY.exec(entry);
    const index = m ? parseInt(m[1], 36) : -1;
    if (!m || index >= s.steps.length) continue;
    const answers = {};
    questionsOf(s, index).forEach((question, i) => {
      const answer = ANSWER_OF[m[3][i]];
      if (answer) answers[question.id] = answer;
    });
    if (Object.keys(answers).length || m[2]) records[index] = { ...NO_RECORD, answers, shown: Boolean(m[2]) };
  }
  if (!Object.keys(records).length) return {};
  const given = Object.values(records).flatMap((r) => Object.values(r.answers));
  const score = { answered: given.length, rightFirst: given.filter((a) => a.right && a.tries === 1).length };
  return { quiz: { ...quizOf(s), on: true, trace: s.trace, records, score } };
}
