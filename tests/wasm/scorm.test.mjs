// The SCORM 1.2 adapter's arithmetic without an LMS (web/lms/scorm-cmi.js) and the quiz's snapshot
// (web/app/quiz-snapshot.js) on the engine's own runs: answers kept and given back, a record that
// is not ours or was tampered with read as nothing, and the longest suspend data of every chapter
// within SCORM 1.2's 4,096 characters. The package under a real SCORM runtime:
// tests/browser/scorm.test.mjs.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { createEngine } from '../../dist/engine.js';
import { runForm } from '../../web/app/actions.js';
import { answerQuiz, pathProgress, revealQuiz } from '../../web/app/quiz-actions.js';
import { quizSnapshot, restoreQuiz } from '../../web/app/quiz-snapshot.js';
import { CHAPTERS } from '../../web/model/chapters.js';
import { quizQuestions } from '../../web/model/quiz.js';
import { catalogFrom, presetsOf } from '../../web/model/presets.js';
import {
  LOCATION_LIMIT,
  SUSPEND_LIMIT,
  locationOf,
  masteryOf,
  readSuspend,
  resultOf,
  sessionTime,
  suspendOf,
} from '../../web/lms/scorm-cmi.js';
import { presetForm } from '../../web/state/form.js';
import { elementAttributes } from '../../web/state/snippet.js';

let engine;
let catalog;

before(async () => {
  engine = await createEngine();
  catalog = catalogFrom(engine);
});

// A preset run as the page runs it, quiz on, at step `step`.
function stateOf(presetId, step = 0) {
  const form = presetForm(catalog, presetId);
  return {
    form,
    ...runForm(engine, catalog, form),
    step,
    head: 0,
    quiz: { on: true, trace: null, records: {}, score: { answered: 0, rightFirst: 0 } },
  };
}

const apply = (s, patch) => ({ ...s, ...patch });

test('cmi: session time is HHHH:MM:SS.SS, mastery comes from the LMS when it gives 0–100', () => {
  assert.equal(sessionTime(0), '0000:00:00.00');
  assert.equal(sessionTime(61_234), '0000:01:01.23');
  assert.equal(sessionTime(3_600_000 * 12 + 59_999), '0012:01:00.00');
  assert.equal(sessionTime(3_600_000 * 20_000), '9999:00:00.00');
  assert.equal(masteryOf('80', 70), 80);
  assert.equal(masteryOf('', 70), 70);
  for (const bad of ['abc', '120', '-1', null, undefined]) assert.equal(masteryOf(bad, 65), 65, String(bad));
});

test('cmi: incomplete until every question is answered, then passed or failed against mastery', () => {
  assert.deepEqual(resultOf({ total: 5, answered: 3, correct: 3 }, 70, false), {
    raw: 60,
    status: 'incomplete',
    exit: 'suspend',
  });
  assert.deepEqual(resultOf({ total: 5, answered: 5, correct: 4 }, 70, false), { raw: 80, status: 'passed', exit: '' });
  assert.deepEqual(resultOf({ total: 5, answered: 5, correct: 3 }, 70, true), { raw: 60, status: 'failed', exit: '' });
  assert.deepEqual(resultOf({ total: 3, answered: 3, correct: 2 }, 67, false), { raw: 67, status: 'failed', exit: '' });
  assert.deepEqual(resultOf({ total: 0, answered: 0, correct: 0 }, 70, false).status, 'incomplete');
  assert.deepEqual(resultOf({ total: 0, answered: 0, correct: 0 }, 70, true), {
    raw: null,
    status: 'completed',
    exit: '',
  });
  assert.equal(locationOf({ stage: 'weights', head: 2, step: null }), 'stage=weights&head=2');
  assert.ok(locationOf({ stage: 'x'.repeat(400), head: 0 }).length <= LOCATION_LIMIT);
});

test('snapshot: answers (right first, right later, wrong, shown) come back on a new run of the same example', () => {
  let s = stateOf('lesson-causal');
  const weights = s.steps.findIndex((st) => st.id === 'weights' && st.head === 0);
  const masked = s.steps.findIndex((st) => st.id === 'masked' && st.head === 0);
  s = apply(s, { step: masked });
  s = apply(s, answerQuiz(engine, s, '(4, 4)')); // right first time
  s = apply(s, { step: weights });
  s = apply(s, answerQuiz(engine, s, '(5, 5)')); // wrong …
  s = apply(s, answerQuiz(engine, s, '(4, 4)')); // … then right
  s = apply(s, answerQuiz(engine, s, '2')); // a weight the mask hides: wrong so far
  const scores = s.steps.findIndex((st) => st.id === 'scores');
  s = apply(s, { step: scores });
  s = apply(s, revealQuiz(s));
  const text = quizSnapshot(s);
  const entries = [
    [masked, ':1'],
    [weights, ':23'],
    [scores, '!:'],
  ].sort((a, b) => a[0] - b[0]); // in the order of the steps
  assert.equal(text, entries.map(([i, codes]) => i.toString(36) + codes).join(','));

  const fresh = stateOf('lesson-causal');
  const restored = apply(fresh, restoreQuiz(fresh, text));
  assert.equal(quizSnapshot(restored), text, 'the same snapshot again');
  assert.deepEqual(restored.quiz.records[weights].answers, {
    shape: { tries: 2, right: true },
    'masked-weight': { tries: 1, right: false },
  });
  assert.equal(restored.quiz.records[scores].shown, true);
  assert.deepEqual(restored.quiz.score, { answered: 3, rightFirst: 1 });
  assert.equal(restored.quiz.on, true);
  assert.deepEqual(pathProgress(apply(restored, { step: weights })), pathProgress(apply(s, { step: weights })));
});

test('snapshot: text that is not ours, or tampered with, restores nothing it cannot place', () => {
  const s = stateOf('lesson-causal');
  for (const bad of ['', 'hello', '1:9', 'zzzzz:1', '-1:1', '0:1x', '<script>', 'a'.repeat(5000)])
    assert.deepEqual(restoreQuiz(s, bad), {}, JSON.stringify(bad.slice(0, 20)));
  const patch = restoreQuiz(s, '0:1,zz:1,1:3,bogus');
  assert.deepEqual(Object.keys(patch.quiz.records), ['0', '1'], 'the steps this run has, the rest left out');
  assert.deepEqual(restoreQuiz({ ...s, trace: null }, '0:1'), {}, 'no run yet: nothing');
  assert.equal(readSuspend('2|chapter=attention|0:1'), null, 'another version');
  assert.equal(readSuspend('chapter=attention'), null);
  assert.equal(readSuspend(`1|${'a'.repeat(SUSPEND_LIMIT)}|`), null);
  assert.deepEqual(readSuspend('1|chapter=attention&quiz=|0:1'), {
    attributes: [
      ['chapter', 'attention'],
      ['quiz', ''],
    ],
    quiz: '0:1',
  });
});

test('suspend data: every example of every chapter, every question answered at its longest, fits 4,096', () => {
  const longest = {};
  for (const chapter of CHAPTERS) {
    for (const preset of presetsOf(catalog, chapter.id)) {
      const s = stateOf(preset.id);
      const records = {};
      s.steps.forEach((_, i) => {
        const questions = quizQuestions(s.steps, i, { trace: s.trace, tokens: s.tokens });
        const answers = Object.fromEntries(questions.map((q) => [q.id, { tries: 2, right: true }]));
        records[i] = { answers, last: null, shown: true };
      });
      const all = { ...s, quiz: { on: true, trace: s.trace, records, score: { answered: 0, rightFirst: 0 } } };
      const last = s.steps.length - 1;
      const view = { stage: s.steps[last].id, head: 99, time: 99, quiz: true };
      const text = suspendOf(elementAttributes(catalog, s.form, view), quizSnapshot(all));
      assert.ok(text.length <= SUSPEND_LIMIT, `${preset.id}: ${text.length}`);
      assert.equal(readSuspend(text).quiz, quizSnapshot(all), `${preset.id}: every answer kept`);
      longest[chapter.id] = Math.max(longest[chapter.id] ?? 0, text.length);
    }
  }
  assert.deepEqual(
    Object.keys(longest),
    CHAPTERS.map((c) => c.id),
  );
});

test('suspend data: a configuration too long to keep falls back to its chapter and example, no answers', () => {
  const attrs = [
    ['chapter', 'attention'],
    ['preset', 'lesson-causal'],
    ['tokens', 'word '.repeat(900)],
  ];
  const text = suspendOf(attrs, '0:1');
  assert.equal(text, '1|chapter=attention&preset=lesson-causal|');
  assert.ok(suspendOf(attrs.slice(0, 2), '0:1').endsWith('|0:1'));
});
