// The training page's pure parts: the progress line, the charts' coordinates, the table with
// each number's full precision, the first checkpoint with an induction head, and the shipped
// checkpoint's base64 read back bit for bit.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import {
  chartOf,
  formedSentence,
  headSummary,
  historyTable,
  inductionFormed,
  predictionTable,
  progressText,
  SCORES,
  trainingCharts,
  typedTokens,
} from '../../web/model/training-view.js';
import { readCheckpoint } from '../../web/training/checkpoint.js';

const scores = (layer, head, induction, previousToken = 0.1) => ({
  layer,
  head,
  induction,
  previousToken,
  firstToken: 0.05,
  self: 0.2,
});
// What uniform attention scores on the sequences (the engine's uniformScores, the same each checkpoint).
const uniformScores = { previousToken: 0.12, firstToken: 0.12, induction: 0.07, self: 0.12 };
const HISTORY = [
  { step: 0, loss: 3.5, trainLoss: null, headScores: [scores(0, 0, 0.07), scores(1, 0, 0.07)], uniformScores },
  { step: 25, loss: 2.0, trainLoss: 2.5, headScores: [scores(0, 0, 0.1, 0.6), scores(1, 0, 0.3)], uniformScores },
  { step: 50, loss: 0.5, trainLoss: 0.9, headScores: [scores(0, 0, 0.1, 0.7), scores(1, 0, 0.62)], uniformScores },
];

test('the progress line gives the step, the rate, the time left and the loss once known', () => {
  assert.equal(progressText({ step: 0, steps: 1000, stepsPerSecond: 0, loss: NaN }), 'step 0 of 1000');
  assert.equal(
    progressText({ step: 350, steps: 1000, stepsPerSecond: 62.4, loss: 2.1404 }),
    'step 350 of 1000 \u00b7 62 steps/s \u00b7 11 s left \u00b7 held-out loss 2.140',
  );
  assert.equal(progressText({ step: 1000, steps: 1000, stepsPerSecond: 80, loss: 0.2 }).includes('left'), false);
});

test('a chart maps step 0 … last to the plot box and 0 … top to its height', () => {
  const chart = chartOf({
    series: [
      {
        name: 'a',
        colour: 'red',
        points: [
          [0, 0],
          [50, 1],
          [100, 2],
        ],
      },
    ],
    lastStep: 100,
    top: 2,
    yTicks: [0, 1, 2],
  });
  const { left, right, top, bottom, width, height } = chart.box;
  const [x0, x1, y0, y1] = [left, width - right, height - bottom, top];
  const at = (x, y) => `${x.toFixed(1)},${y.toFixed(1)}`;
  assert.equal(chart.lines[0].points, [at(x0, y0), at((x0 + x1) / 2, (y0 + y1) / 2), at(x1, y1)].join(' '));
  assert.deepEqual(
    chart.x.map((t) => t.text),
    ['0', '25', '50', '75', '100'],
  );
  assert.deepEqual(
    chart.y.map((t) => t.at),
    [y0, (y0 + y1) / 2, y1],
  );
});

test('the charts: the loss against ln V, one line per head and score, a second run dashed, the floor dotted', () => {
  const { loss, scores: charts } = trainingCharts(
    [
      { label: 'two', history: HISTORY },
      { label: 'one', history: HISTORY },
    ],
    50,
    32,
  );
  assert.match(loss.title, /ln 32 = 3\.47/);
  assert.deepEqual(
    loss.chart.lines.map((l) => l.dashed),
    [false, true],
  );
  assert.deepEqual(
    charts.map((c) => c.key),
    ['induction', 'previousToken', 'firstToken'],
  );
  assert.deepEqual(
    charts[0].chart.lines.map((l) => l.name),
    [
      'two: layer 0, head 0',
      'two: layer 1, head 0',
      'one: layer 0, head 0',
      'one: layer 1, head 0',
      'uniform attention: 0.070',
    ],
  );
  assert.equal(charts[0].title, `${SCORES[0][1]} (uniform attention scores 0.070)`);
  assert.deepEqual(
    charts[0].chart.lines.map((l) => l.baseline),
    [false, false, false, false, true],
  );
});

test('the table shows three decimals and keeps every number in full', () => {
  const { head, rows } = historyTable(HISTORY);
  assert.equal(head.length, 3 + 2 * 3);
  assert.deepEqual(rows[0].slice(0, 3), [
    { text: '0', full: '0' },
    { text: '3.500', full: '3.5' },
    { text: '\u2014', full: 'none' },
  ]);
  assert.deepEqual(rows[2][3 + 3], { text: '0.620', full: '0.62' }); // layer 1's induction at step 50
});

test('an induction head has formed at the first checkpoint where layer 1 scores 0.5', () => {
  assert.deepEqual(inductionFormed(HISTORY), { step: 50, head: 'layer 1, head 0', value: 0.62 });
  assert.equal(inductionFormed(HISTORY.slice(0, 2)), null);
});

test('the formed sentence names the step, the head, its score and the threshold that defines formed', () => {
  assert.equal(
    formedSentence('2 heads', HISTORY),
    '2 heads: an induction head has formed by step 50 ' +
      '(layer 1, head 0 scores 0.62; formed means a score of at least 0.5).',
  );
  assert.equal(
    formedSentence('1 head', HISTORY.slice(0, 2)),
    '1 head: no head of layer 1 or above has reached an induction score of 0.5 yet.',
  );
});

test("the shipped checkpoint's matrices read back from base64 bit for bit", () => {
  const file = JSON.parse(readFileSync(new URL('../../web/checkpoints/induction.json', import.meta.url), 'utf8'));
  const { model, history } = readCheckpoint(file);
  assert.deepEqual(model.config, { vocab: 32, seqLen: 24, dModel: 32, numLayers: 2, numHeads: 2, dK: 16, dV: 16 });
  assert.equal(history.at(-1).step, 1000);
  const bytes = Buffer.from(file.model.params.W_U.values, 'base64');
  assert.deepEqual(model.params.W_U.shape, [32, 32]);
  assert.equal(model.params.W_U.values.length, 32 * 32);
  assert.ok(Buffer.from(model.params.W_U.values.buffer).equals(bytes));
  assert.equal(model.params.layers[1].W_Q[1].shape[1], 16);
});

test('the predictions: the most likely next token, the next token there is, and the engine loss', () => {
  const probabilities = { shape: [3, 3], values: Float64Array.from([0.2, 0.5, 0.3, 0.6, 0.1, 0.3, 0.1, 0.1, 0.8]) };
  const losses = Float64Array.from([-Math.log(0.3), -Math.log(0.1)]);
  const { head, rows } = predictionTable([1, 2, 1], { probabilities, losses });
  assert.equal(head.length, 7);
  assert.deepEqual(
    rows.map((r) => r.map((c) => c.text)),
    [
      ['0', '1', '1', '0.500', '2', '0.300', '1.204'],
      ['1', '2', '0', '0.600', '1', '0.100', '2.303'],
      ['2', '1', '2', '0.800', '\u2014', '\u2014', '\u2014'],
    ],
  );
});

test('the predictions mark the positions the task counts, when the sequence is one of the task', () => {
  const probabilities = { shape: [2, 2], values: Float64Array.from([0.4, 0.6, 0.5, 0.5]) };
  const { head, rows } = predictionTable([0, 1], { probabilities, losses: Float64Array.from([0.5]) }, [0, 1]);
  assert.equal(head.at(-1), 'in the loss');
  assert.deepEqual(
    rows.map((r) => r.at(-1)),
    [
      { text: '', full: '0' },
      { text: 'counted', full: '1' },
    ],
  );
});

test('typed tokens: numbers split on spaces and commas, blank for none; the engine checks them', () => {
  assert.deepEqual(typedTokens(' 3 17,5  9 '), [3, 17, 5, 9]);
  assert.equal(typedTokens('   '), null);
  assert.deepEqual(typedTokens('3 x'), [3, NaN]);
});

test("each head's strongest score at a checkpoint against uniform attention's, named from twice that", () => {
  assert.deepEqual(headSummary(HISTORY[2]), [
    { name: 'layer 0, head 0', score: 'previous token', value: 0.7, named: true },
    { name: 'layer 1, head 0', score: 'induction', value: 0.62, named: true },
  ]);
  // At step 0 layer 1's head scores 0.07 on induction, what uniform attention does: 1×, not named.
  assert.deepEqual(headSummary(HISTORY[0])[1], {
    name: 'layer 1, head 0',
    score: 'induction',
    value: 0.07,
    named: false,
  });
});

// TP-1: the shipped run (the engine's numbers): uniform attention scores about 0.12 on key t − 1 and
// key 0 and 0.07 on induction; at step 0 no head is named, at step 1000 all four are, by the
// scores the review read off the same file.
test('TP-1: the shipped run names no head at step 0 and each head by its score at step 1000', () => {
  const file = JSON.parse(readFileSync(new URL('../../web/checkpoints/induction.json', import.meta.url), 'utf8'));
  const u = file.history[0].uniformScores;
  assert.equal(u.previousToken.toFixed(2), '0.12');
  assert.equal(u.induction.toFixed(2), '0.07');
  assert.ok(
    file.history.every((c) => c.uniformScores.induction === u.induction),
    'one floor for the run',
  );
  assert.deepEqual(
    headSummary(file.history[0]).map((h) => h.named),
    [false, false, false, false],
  );
  const last = headSummary(file.history.at(-1)).map((h) => [h.name, h.score, h.value.toFixed(2), h.named]);
  assert.deepEqual(last, [
    ['layer 0, head 0', 'previous token', '0.75', true],
    ['layer 0, head 1', 'previous token', '0.44', true],
    ['layer 1, head 0', 'induction', '0.64', true],
    ['layer 1, head 1', 'induction', '0.60', true],
  ]);
  const { scores: charts } = trainingCharts([{ label: 'run', history: file.history }], 1000, 32);
  for (const chart of charts) {
    const floor = chart.chart.lines.find((l) => l.baseline);
    assert.ok(floor && floor.name.startsWith('uniform attention'), `${chart.key}: the floor drawn`);
  }
});
