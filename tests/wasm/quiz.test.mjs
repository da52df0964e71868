// Quiz mode without a browser: every preset's questions and verdicts against the engine's own
// traces, the answer readers, the quiz's store patches, the hash and the attribute. The page's
// side (quiz=1 hiding the result, hints, value questions, keyboard, the element, axe):
// tests/browser/quiz.test.mjs.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { createEngine } from '../../dist/engine.js';
import { quizQuestions, checkAnswer, quizCard } from '../../web/model/quiz.js';
import { parseChoice, parseNumber, parseRoot, parseShape } from '../../web/model/quiz-parse.js';
import { catalogFrom } from '../../web/model/presets.js';
import { stageById } from '../../web/model/stage-table.js';
import { goToStep, runForm, stepBy } from '../../web/app/actions.js';
import {
  HELD_NOTICE,
  answerQuiz,
  heldBack,
  quizFromWanted,
  quizSetting,
  quizViewOf,
  revealQuiz,
  toggleQuiz,
} from '../../web/app/quiz-actions.js';
import { presetForm } from '../../web/state/form.js';
import { ATTRIBUTES, readAttributes } from '../../web/state/attributes.js';
import { hashFromState, stateFromHash } from '../../web/state/url-hash.js';
import { checkValueQuestion } from './quiz-checks.mjs';

let env;
let catalog;

before(async () => {
  env = { engine: await createEngine() };
  catalog = catalogFrom(env.engine);
});

// A preset run the way the page runs it: the trace, its steps, the token labels, the spec.
function runPreset(id) {
  return runForm(env.engine, catalog, presetForm(catalog, id));
}

const MODEL_EVERY_STAGE_TITLE =
  'model: every preset, every stage asks its shape first and ' +
  'the engine\u2019s values after; answers read from the trace';
test(MODEL_EVERY_STAGE_TITLE, () => {
  const asked = {};
  for (const preset of catalog.presets) {
    const run = runPreset(preset.id);
    for (const [i, step] of run.steps.entries()) {
      const where = `${preset.id} ${step.id}/${step.head}@${step.step}`;
      if (stageById(step.id).composed) {
        assert.deepEqual(quizQuestions(run.steps, i, run), [], `${where}: no result of its own, nothing asked`);
        continue;
      }
      const [shape, ...values] = quizQuestions(run.steps, i, run);
      const [r, c] = step.stage.shape;
      assert.deepEqual(shape.expected, [r, c], `${where}: the trace's shape`);
      for (const text of [
        `${r}, ${c}`,
        `(${r}, ${c})`,
        `${r}x${c}`,
        `${r} \u00d7 ${c}`,
        `  ${r}  ${c} `,
        `[${r},${c}]`,
      ])
        assert.equal(checkAnswer(shape, text).status, 'right', `${where}: ${text}`);
      const wrong = checkAnswer(shape, `${r + 1}, ${c}`);
      assert.equal(wrong.status, 'wrong');
      assert.ok(wrong.text.length > 30 && !/undefined|NaN/.test(wrong.text), `${where}: ${wrong.text}`);
      if (r !== c) assert.match(checkAnswer(shape, `${c}, ${r}`).text, /^Not quite\. Rows come first\./, where);
      assert.equal(checkAnswer(shape, 'five by four').status, 'unreadable');
      for (const q of values) checkValueQuestion(env.engine, q, step, run, where);
      const key = `${preset.id}:${step.id}`;
      asked[key] = [...new Set([...(asked[key] ?? []), ...values.map((q) => q.id)])];
    }
  }
  assert.deepEqual(asked['lesson-causal:weights'], ['masked-weight', 'row-sum', 'argmax']);
  assert.deepEqual(asked['lesson-self-attention:weights'], ['row-sum', 'argmax'], 'no mask, no masked weight');
  assert.deepEqual(asked['cross-padding:weights'], ['masked-weight', 'row-sum', 'argmax']);
  assert.deepEqual(asked['lesson-multi-head:scaled'], ['divisor']);
  assert.deepEqual(asked['modern-mla:scaled'], ['divisor'], 'MLA: by √(d_k + d_r)');
  assert.deepEqual(asked['kv-cache-gqa:k_new'], ['cache-rows']);
  assert.deepEqual(asked['flash-causal:tile_scores'], ['next-tile']);
  assert.deepEqual(asked['lesson-multi-head:q'], [], 'projections ask the shape only');
  assert.deepEqual(asked['trained-induction:probabilities'], ['row-sum', 'next-token']);
  assert.deepEqual(asked['trained-induction:token_loss'], ['token-loss']);
});

test('model: the operands\u2019 shapes make the hint; FlashAttention\u2019s tiles as the engine recorded them', () => {
  const run = runPreset('lesson-multi-head');
  const scores = run.steps.findIndex((s) => s.id === 'scores');
  const [shape] = quizQuestions(run.steps, scores, run);
  assert.equal(
    checkAnswer(shape, '5, 4').text,
    'Not quite. Q is (5, 4) and K\u1d40 is (4, 5): a product takes ' +
      'the outer sizes, the rows of Q and the columns of K\u1d40.',
  );
  const concat = run.steps.findIndex((s) => s.id === 'concat');
  assert.match(
    checkAnswer(quizQuestions(run.steps, concat, run)[0], '5, 4').text,
    /4 heads, each \(5, 4\), side by side/,
  );
  const flash = runPreset('flash-causal');
  const answers = flash.steps.flatMap((s, i) =>
    quizQuestions(flash.steps, i, flash)
      .filter((q) => q.id === 'next-tile')
      .map((q) => q.answer),
  );
  assert.deepEqual(
    answers,
    ['skipped', 'computed', 'skipped', 'computed', 'computed'],
    'tiles 0–4; tile 5 ends its row',
  );
});

test('model: answers typed the usual ways', () => {
  for (const t of ['5, 4', '(5, 4)', '5x4', '5 X 4', '5 \u00d7 4', '5 4', '[5,4]', '5 by 4', '5;4', '(5,4).'])
    assert.deepEqual(parseShape(t), [5, 4], t);
  for (const t of ['', '5', '5, 4, 3', '5.5, 4', 'a, b']) assert.equal(parseShape(t), null, t);
  assert.deepEqual(['0', '\u22120.25', '-0.25', '0,5', '1e-3', '.5', '\u2212\u221e', '-inf'].map(parseNumber), [
    0,
    -0.25,
    -0.25,
    0.5,
    0.001,
    0.5,
    -Infinity,
    -Infinity,
  ]);
  assert.deepEqual(['1.2.3', 'half', '--1'].map(parseNumber), [null, null, null]);
  assert.deepEqual(['\u221a4', 'sqrt(4)', 'sqrt 4', '\u221a 9', '2'].map(parseRoot), [4, 4, 4, 9, null]);
  const choices = [{ value: 'a', words: ['apple', 'a'] }];
  assert.deepEqual(
    ['Apple pie', 'a', 'b'].map((t) => parseChoice(t, choices)),
    ['a', 'a', null],
  );
});

const MODEL_STORE_TITLE =
  'model: the store patches score first tries, keep records per trace, and follow the hash and the attribute';
test(MODEL_STORE_TITLE, () => {
  const run = runPreset('lesson-causal');
  let s = { ...run, step: run.steps.findIndex((x) => x.id === 'weights'), head: 0 };
  s = { ...s, ...toggleQuiz(s, true) };
  const apply = (patch) => {
    s = { ...s, ...patch };
    return quizViewOf(s);
  };
  assert.equal(quizViewOf(s).asking, true);
  assert.match(apply(answerQuiz(env.engine, s, 'four')).card.feedback.text, /^I could not read that\./);
  assert.deepEqual(s.quiz.score, { answered: 0, rightFirst: 0 }, 'an unreadable answer is not a try');
  assert.match(apply(answerQuiz(env.engine, s, '4, 8')).card.feedback.text, /softmax works on L \(4, 4\) row by row/);
  let view = apply(answerQuiz(env.engine, s, '4, 4'));
  assert.deepEqual([s.quiz.score, view.card.current.id], [{ answered: 1, rightFirst: 0 }, 'masked-weight']);
  assert.equal(view.card.feedback.text, 'Right: (4, 4); that is (T, T).');
  assert.match(
    view.card.feedback.next,
    /^Next: The mask hid key “cat” from query “the”/,
    'read out: the field\u2019s label changes silently',
  );
  view = apply(answerQuiz(env.engine, s, '0'));
  assert.deepEqual([s.quiz.score, view.card.current.id], [{ answered: 2, rightFirst: 1 }, 'row-sum']);
  view = apply(revealQuiz(s));
  assert.deepEqual(
    [view.asking, view.card.current, view.card.done.map((d) => d.status)],
    [false, null, ['right', 'right first time', 'shown', 'shown']],
  );
  assert.deepEqual(s.quiz.score, { answered: 2, rightFirst: 1 }, '"Show me" scores nothing');
  const rerun = runPreset('lesson-causal');
  assert.equal(apply({ ...rerun }).asking, true, 'a new trace asks again');
  assert.deepEqual(s.quiz.score, { answered: 2, rightFirst: 1 }, 'the score stays for the session');
  assert.deepEqual(quizFromWanted(s, {}), {}, 'a view that does not say keeps the mode');
  assert.equal(quizCard([], { answers: {}, last: null, shown: false }, 0).revealed, true);
  const wanted = stateFromHash(catalog, '#chapter=attention&preset=lesson-causal&stage=weights&quiz=1');
  assert.equal(wanted.quiz, true);
  assert.equal(stateFromHash(catalog, '#preset=lesson-causal').quiz, false);
  assert.match(hashFromState(catalog, { ...wanted, head: 0, time: null }), /&quiz=1$/);
  assert.doesNotMatch(hashFromState(catalog, { ...wanted, quiz: false, head: 0, time: null }), /quiz/);
  const read = (attrs) => readAttributes(catalog, (name) => attrs[name] ?? null);
  assert.deepEqual(
    [read({ quiz: '' }), read({ quiz: 'false' }), read({})].map((r) => [r.errors, r.wanted.quiz]),
    [
      [[], true],
      [[], false],
      [[], false],
    ],
  );
  assert.ok(ATTRIBUTES.includes('quiz'));
});

const REQUIRED_TITLE =
  'model: quiz=required (a link, an attribute) holds Next until the stage is answered; the reader cannot lift it';
test(REQUIRED_TITLE, () => {
  const wanted = stateFromHash(catalog, '#chapter=attention&preset=lesson-causal&stage=masked&quiz=required');
  assert.equal(wanted.quiz, 'required');
  assert.match(hashFromState(catalog, { ...wanted, head: 0, time: null }), /&quiz=required$/);
  const read = readAttributes(catalog, (name) => ({ quiz: ' required ', preset: 'lesson-causal' })[name] ?? null);
  assert.deepEqual([read.errors, read.wanted.quiz], [[], 'required']);

  const run = runPreset('lesson-causal');
  const masked = run.steps.findIndex((x) => x.id === 'masked');
  let s = { ...run, step: masked, head: 0 };
  s = { ...s, ...quizFromWanted(s, wanted) };
  assert.equal(quizSetting(s), 'required');
  const apply = (patch) => (s = { ...s, ...heldBack(s, patch) });
  assert.deepEqual(toggleQuiz(s, false), {}, 'the reader\u2019s switch does nothing');
  apply(stepBy(s, 1));
  assert.deepEqual([s.step, s.quizNotice], [masked, HELD_NOTICE], 'Next waits');
  apply(goToStep(s, run.steps.length - 1));
  assert.equal(s.step, masked, 'and so does a jump ahead');
  assert.equal(quizViewOf(s).canReveal, false, '"Show me" only after a try');
  assert.deepEqual(revealQuiz(s), {});
  apply(answerQuiz(env.engine, s, '(1, 1)')); // a wrong but readable try
  assert.equal(quizViewOf(s).canReveal, true);
  assert.equal(s.quizNotice, null, 'the notice goes with the next change');
  apply(stepBy(s, -1));
  assert.equal(s.step, masked - 1, 'back is always open');
  apply(stepBy(s, 1));
  assert.equal(s.step, masked - 1, 'every stage asks before Next: the one before too');
  apply(answerQuiz(env.engine, s, '(1, 1)'));
  apply(revealQuiz(s)); // a try, then "Show me": that stage is done
  apply(stepBy(s, 1));
  assert.equal(s.step, masked);
  apply(answerQuiz(env.engine, s, '(4, 4)'));
  apply(stepBy(s, 1));
  assert.equal(s.step > masked, true, 'answered: Next goes on');
  const off = { ...s, ...quizFromWanted(s, { quiz: true }) };
  assert.deepEqual(
    [quizSetting(off), toggleQuiz(off, false).quiz.on],
    [true, false],
    'plain quiz mode: the switch works',
  );
});
