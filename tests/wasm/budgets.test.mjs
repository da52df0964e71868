// The hostile review's rows D and E: an argument, an explain list or a training call within every
// field's own limit but past what a call may take together is refused by name before the work (or
// the rest of the reading) is done, and the engine answers the next call as before.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { heapBytesOf } from '../../dist/engine-api.js';

let engine;
before(async () => {
  engine = await createEngine();
});

function refused(call) {
  try {
    call();
  } catch (e) {
    assert.ok(e instanceof Error, `${e} is an Error`);
    return e.message;
  }
  assert.fail('accepted');
}

// After a refusal the engine still gives the same first weights of the causal example.
function stillAnswers() {
  const weights = engine.run({ preset: 'lesson-causal' }).stages.find((s) => s.id === 'weights');
  assert.equal(weights.values[0], 1);
}

const flat = (rows, cols, fill = 0.01) => ({ shape: [rows, cols], values: new Float64Array(rows * cols).fill(fill) });

test('D29: matrices within their own limits but 65 Mi numbers together stop the reading where they pass 32 Mi', () => {
  const X = flat(1024, 1024);
  const W = flat(1024, 1024);
  const W_Q = Array.from({ length: 64 }, () => W); // with X and the shapes' two numbers each, W_Q[30] passes 2²⁵
  const message = refused(() => engine.run({ X, W_Q, W_K: W_Q, W_V: W_Q }));
  assert.equal(
    message,
    'W_Q[30].values: the argument holds more than 33554432 numbers by here, more than every limit allows ' +
      'together (the weights of a spec: 16777216); nothing was run',
  );
  // Read to the end, W_Q, W_K and W_V would be 192 copies of 8 MiB (1.5 GiB) in WebAssembly's memory.
  const { memory } = heapBytesOf(engine);
  assert.ok(memory < 600 * 2 ** 20, `WebAssembly's memory grew to ${memory} bytes`);
  stillAnswers();
});

test('D28: 65,536 cells whose explanations would hold 3 numbers for each of 1024 terms are refused by cells', () => {
  const spec = { seqLen: 256, dModel: 1024, numHeads: 1 };
  const cells = Array.from({ length: 65536 }, (_, i) => ({ stage: 'q', head: 0, row: i % 256, col: i % 1024 }));
  const perCell = 16 + 3 * 1024; // a q cell: 1024 terms x·w = product, and the explanation's 16 scalars
  const first = Math.floor(4194304 / perCell) + 1;
  assert.equal(
    refused(() => engine.explain(spec, cells)),
    `cells: the first ${first} of 65536 cells take ${first * perCell} numbers apart, more than the limit 4194304; ` +
      'ask for fewer cells at a time',
  );
  stillAnswers();
  // The documented 65,536 cells of a stage whose cells have few parts are explained, all of them.
  const small = Array.from({ length: 65536 }, (_, i) => ({ stage: 'weights', head: 0, row: i % 4, col: (i >> 2) % 4 }));
  const explained = engine.explain({ preset: 'lesson-causal' }, small);
  assert.equal(explained.length, 65536);
  assert.equal(explained[65535].value, engine.explain({ preset: 'lesson-causal' }, small[65535]).value);
});

// The largest model the limits allow but for dK = dV = 64: a forward pass of one sequence takes
// 679 million multiply-adds (4 layers of 128 × 256 · 16 heads · 192, 16 · 128² · 128, 128 · 1024 ·
// 256, then 128 · 256 · 256), against the 69 billion a call may take.
const BIG = { vocab: 256, seqLen: 128, dModel: 256, numLayers: 4, numHeads: 16, dK: 64, dV: 64, seed: 1 };
const sequences = (n) => Array.from({ length: n }, (_, s) => Array.from({ length: 129 }, (_, t) => (s + t) % 256));

test('E31, E32: lossAndGradients and headScores of 256 sequences of the largest model are refused by tokens', () => {
  const model = engine.initModel(BIG);
  assert.equal(
    refused(() => engine.lossAndGradients(model, { tokens: sequences(256) })),
    'tokens: 256 sequences of this model, forward and backward, take about 522 billion multiply-adds, ' +
      'more than the 69 billion one call may take; give fewer sequences',
  );
  assert.equal(
    refused(() => engine.headScores(model, sequences(256))),
    'tokens: 256 sequences of this model take about 174 billion multiply-adds, more than the 69 billion one ' +
      'call may take; give fewer sequences',
  );
  stillAnswers();
});

// The default induction model: W_E and W_U (32 × 32), W_P (24 × 32), and 2 layers of 2 heads' W_Q, W_K,
// W_V (32 × 16) and W_O (32 × 32); a checkpoint holds it, Adam's m and v.
const params = 2 * 32 * 32 + 24 * 32 + 2 * (2 * 3 * 32 * 16 + 32 * 32);

test('E33: a train call of 100,000 steps is refused by steps, one keeping 1001 checkpoints by checkpointEvery', () => {
  const big = { task: 'induction', vocab: 256, seqLen: 128, dModel: 256, numLayers: 4, numHeads: 16, batch: 256 };
  const said = refused(() => engine.train({ ...big, steps: 100000, checkpointEvery: 1 }));
  assert.ok(
    said.startsWith('steps: 100000 steps of 256 sequences of this model take about ') &&
      said.endsWith(
        ' billion multiply-adds, more than the 69 billion one call may take; ' +
          "train in parts of fewer steps, each from the last one's checkpoint",
      ),
    said,
  );
  assert.equal(
    refused(() => engine.train({ task: 'induction', steps: 1000, checkpointEvery: 1 })),
    `checkpointEvery: 1001 checkpoints of this model hold ${1001 * 3 * params} numbers, ` +
      'more than the limit 16777216; keep fewer (a larger checkpointEvery) or train fewer steps',
  );
  stillAnswers();
});
