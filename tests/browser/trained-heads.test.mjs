// The Trained heads chapter in headless Chromium: opened cold, stepped to layer 1's induction
// head and to the loss, the weights switched to untrained, the tokens edited to a new sequence of
// the same length and to a refused id, a position's loss explained, and the chapter left and
// come back to; every number checked against the engine run in node.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCell } from '../../web/model/format.js';
import {
  goToHash,
  pagePerTest,
  resultTexts,
  useEnv,
  shownEquation,
  urlMatching,
  waitForStage,
  weightTexts,
} from './harness.mjs';

const env = useEnv();
let page;

pagePerTest(
  () => env,
  '#chapter=trained-heads',
  (opened) => ({ page } = opened),
);

const stageOf = (trace, id, head = null, step = null) =>
  trace.stages.find((s) => s.id === id && s.head === head && s.step === step);
const cells = (stage) => Array.from(stage.values, formatCell);

// The preset's block is tokens 10 … 15, its copy 16 … 21: in the copy, the token after the
// earlier occurrence of token t is t − 5. The head of layer 1 whose weights sit most there (the
// engine's trace, not the page, says which).
const inductionWeight = (w, t) => w.values[t * 24 + t - 5];
function inductionHead(trace) {
  const score = (h) =>
    [16, 17, 18, 19, 20, 21].reduce((a, t) => a + inductionWeight(stageOf(trace, 'weights', h, 1), t), 0);
  return score(0) > score(1) ? 0 : 1;
}

test('opened cold: the trained preset, its layers on the time axis, layer 1\u2019s induction head', async () => {
  const trace = env.engine.run({ preset: 'trained-induction' });
  await waitForStage(page, 'embedded');
  // The path of one layer: the embeddings; x, head 0's 8 stages, all heads, concat, output and
  // residual; the prediction's 4 (the trace holds both layers' every head: 45 stages).
  assert.equal(trace.stages.length, 45);
  assert.equal(await page.textContent('.step-text'), `Stage 1 of ${1 + 13 + 4}`);
  assert.deepEqual(await resultTexts(page), cells(stageOf(trace, 'embedded')));
  const h = inductionHead(trace);
  await goToHash(page, `#chapter=trained-heads&preset=trained-induction&stage=weights&head=${h}&step=1`);
  await waitForStage(page, 'weights', h);
  assert.match(await page.textContent('.time-label'), /^Layer 1 \(layers 0\u20131\): reads R\u2081/);
  assert.deepEqual(await resultTexts(page), weightTexts(stageOf(trace, 'weights', h, 1)));
  assert.match(await page.textContent('.stage-list'), /Layer 1, head \d \(of 0\u20131\)/);
  // The induction head, trained: in the copy most of its weight is on the token after the earlier occurrence.
  const w = stageOf(trace, 'weights', h, 1);
  for (const t of [16, 17, 18, 20, 21]) assert.ok(inductionWeight(w, t) > 0.5, `row ${t}: ${inductionWeight(w, t)}`);
  await page.click('h2#stage-title');
  await page.keyboard.press('ArrowUp'); // the time axis back to layer 0, the same stage and head
  await waitForStage(page, 'weights', h);
  assert.match(await page.textContent('.time-label'), /^Layer 0 /);
  assert.deepEqual(await resultTexts(page), weightTexts(stageOf(trace, 'weights', h, 0)));
});

test('the loss counts the scored positions; untrained, the same tokens cost about ln 32', async () => {
  const trained = env.engine.run({ preset: 'trained-induction' });
  await goToHash(page, '#chapter=trained-heads&preset=trained-induction&stage=loss');
  await waitForStage(page, 'loss');
  assert.equal(await shownEquation(page), stageOf(trained, 'loss').equation);
  assert.deepEqual(await resultTexts(page), cells(stageOf(trained, 'loss')));
  // What the page says it averages is what the engine counted: the preset's scored positions.
  const counted = stageOf(trained, 'loss').operands.find((o) => o.name === 'counted').values;
  assert.deepEqual(Array.from(counted, (c, t) => (c ? [t] : [])).flat(), [16, 17, 18, 19, 20]);
  assert.match(await page.textContent('.explanation'), /positions scored \(w_t = 1\), here positions 16\u201320\./);
  assert.ok(stageOf(trained, 'loss').values[0] < 0.15 * Math.log(32), 'trained: the copy is predicted');
  await page.selectOption('#field-checkpoint', 'untrained');
  const spec = { ...env.engine.presets().find((p) => p.id === 'trained-induction').spec, checkpoint: 'untrained' };
  const untrained = env.engine.run(spec);
  await page.waitForFunction(
    (want) => document.querySelector('#figure .is-result td.hm-cell')?.textContent.trim() === want,
    formatCell(stageOf(untrained, 'loss').values[0]),
  );
  assert.ok(Math.abs(stageOf(untrained, 'loss').values[0] - Math.log(32)) < 0.5);
  await urlMatching(page, /checkpoint=untrained/);
  await page.fill('#field-scored', '');
  const everyPosition = env.engine.run({ ...spec, scored: undefined });
  await page.waitForFunction(
    (want) => document.querySelector('#figure .is-result td.hm-cell')?.textContent.trim() === want,
    formatCell(stageOf(everyPosition, 'loss').values[0]),
  );
  assert.match(await page.textContent('.explanation'), /here every position\./);
});

test('new tokens of the same length, then a refused id: the engine\u2019s numbers, then its message', async () => {
  await waitForStage(page, 'embedded');
  await goToHash(page, '#chapter=trained-heads&preset=trained-induction&stage=token_loss');
  await waitForStage(page, 'token_loss');
  const typed = '5 9 1 30 7 5 9 1 30 7 5 9 1 30 7 5 9 1 30 7 5 9 1 30';
  await page.fill('#field-tokens', typed);
  await page.fill('#field-scored', '');
  const spec = { kind: 'model', checkpoint: 'trained', tokens: typed.split(' ').map(Number) };
  const trace = env.engine.run(spec);
  await page.waitForFunction(
    (want) =>
      [...document.querySelectorAll('#figure .is-result td.hm-cell')].map((td) => td.textContent.trim()).join(' ') ===
      want,
    cells(stageOf(trace, 'token_loss')).join(' '),
  );
  assert.deepEqual(
    await page.$$eval('#figure .is-result th.hm-row', (t) => t.map((x) => x.textContent)),
    typed.split(' ').slice(0, -1),
    'each position\u2019s loss is labelled with its token',
  );
  // After one period the repeats are predicted: the last positions' losses are small.
  assert.ok(
    stageOf(trace, 'token_loss')
      .values.slice(12)
      .every((v) => v < 1),
  );
  await page.fill('#field-tokens', `${typed.slice(0, -2)}32`);
  await page.waitForSelector('#error-tokens:not(:empty)'); // the engine's refusal, under the field it names
  assert.match(await page.textContent('#error-tokens'), /tokens\[23\]: 32 is outside the vocabulary \[0, 31\]/);
  assert.deepEqual(await resultTexts(page), cells(stageOf(trace, 'token_loss')), 'the last good trace stays');
  await page.fill('#field-tokens', 'one 2 3');
  await page.waitForSelector('#field-tokens-error:not(:empty), .field-error:not(:empty)');
  assert.match(await page.textContent('.controls'), /Token ids must be whole numbers/);
});

test('explain a position\u2019s loss: \u2212ln of the next token\u2019s probability, that cell lit', async () => {
  const spec = { preset: 'trained-induction' };
  const tokens = env.engine.presets().find((p) => p.id === 'trained-induction').spec.tokens;
  await goToHash(page, '#chapter=trained-heads&preset=trained-induction&stage=token_loss');
  await waitForStage(page, 'token_loss');
  await page.click('#figure .is-result td.hm-cell[data-r="18"][data-c="0"]');
  await page.waitForSelector('.explain-panel:not([hidden])');
  const e = env.engine.explain(spec, { stage: 'token_loss', row: 18, col: 0 });
  assert.equal(e.next, tokens[19]);
  assert.equal(Number(await page.$eval('.explain-panel .explain-value', (v) => v.dataset.full)), e.value);
  assert.ok(await page.$('.explain-panel .explain-filled .katex'), 'filled formula typeset');
  const lit = await page.$$eval('#figure .hm[data-matrix="probabilities"] td.hl-cell', (tds) =>
    tds.map((td) => [Number(td.dataset.r), Number(td.dataset.c)]),
  );
  assert.deepEqual(lit, [[18, tokens[19]]]);
});

test('another chapter and back: the trained preset again, the same numbers', async () => {
  const trace = env.engine.run({ preset: 'trained-induction' });
  await waitForStage(page, 'embedded');
  await page.click('button.chapter-button[data-chapter="designed-heads"]');
  await page.waitForSelector('body[data-chapter="designed-heads"]');
  assert.match(await page.textContent('.chapter-panel'), /Trained heads, steps through its trained weights/);
  await page.click('button.chapter-button[data-chapter="trained-heads"]');
  await page.waitForSelector('body[data-chapter="trained-heads"]');
  await waitForStage(page, 'embedded'); // where this reader left the chapter
  assert.deepEqual(await resultTexts(page), cells(stageOf(trace, 'embedded')));
  assert.deepEqual(cells(stageOf(trace, 'x', null, 0)), cells(stageOf(trace, 'embedded')), "layer 0's input is R₀");
  assert.match(await page.textContent('.chapter-panel'), /n_vocab = 32 token ids, N = 2 layers of 2 heads/);
});
