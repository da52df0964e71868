// Kind model (the Trained heads chapter): the trace's weights are the shipped checkpoint's, bit for
// bit (trained: web/checkpoints/induction.json's model; untrained: engine.initModel of its run),
// its stages equal engine.modelForward (the pass training uses) to 1e-12, its loss counts only the
// scored positions, and bad specs are refused by name.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { readCheckpoint } from '../../web/training/checkpoint.js';

const SHIPPED = readCheckpoint(
  JSON.parse(readFileSync(new URL('../../web/checkpoints/induction.json', import.meta.url))),
);

let engine;
let heldOut; // the task's held-out sequence 0, cut to the model's T
before(async () => {
  engine = await createEngine();
  heldOut = engine.taskBatch(SHIPPED.spec, { count: 1 }).tokens[0].slice(0, SHIPPED.model.config.seqLen);
});

const stageOf = (trace, id, head = null, step = null) => {
  const s = trace.stages.find((x) => x.id === id && x.head === head && x.step === step);
  assert.ok(s, `no stage ${id} head ${head} step ${step}`);
  return s;
};
const operand = (stage, name) => stage.operands.find((o) => o.name === name);
const sameBits = (got, want, what) => assert.deepEqual(Array.from(got), Array.from(want), what);

function largestDifference(got, want) {
  assert.equal(got.length, want.length);
  let worst = 0;
  for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
  return worst;
}

function checkWeights(trace, model, tokens) {
  const { params, config } = model;
  const d = config.dModel;
  const embedded = stageOf(trace, 'embedded');
  sameBits(
    operand(embedded, 'E').values,
    tokens.flatMap((t) => Array.from(params.W_E.values.slice(t * d, (t + 1) * d))),
    'E = W_E[tokens]',
  );
  sameBits(operand(embedded, 'P').values, params.W_P.values.slice(0, tokens.length * d), 'P = W_P[:T]');
  sameBits(operand(stageOf(trace, 'logits'), 'W_U').values, params.W_U.values, 'W_U');
  params.layers.forEach((layer, l) => {
    for (let h = 0; h < config.numHeads; h++)
      for (const [id, w] of [
        ['q', 'W_Q'],
        ['k', 'W_K'],
        ['v', 'W_V'],
      ])
        sameBits(operand(stageOf(trace, id, h, l), w).values, layer[w][h].values, `layer ${l} ${w} head ${h}`);
    sameBits(operand(stageOf(trace, 'output', null, l), 'W_O').values, layer.W_O.values, `layer ${l} W_O`);
  });
}

test("the trained trace's weights are the shipped checkpoint's, bit for bit", () => {
  const trace = engine.run({ kind: 'model', checkpoint: 'trained', tokens: heldOut });
  checkWeights(trace, SHIPPED.model, heldOut);
  assert.equal(trace.config.vocab, 32);
  assert.equal(trace.config.numLayers, 2);
});

test("the untrained trace's weights are the run's own draw at step 0 (engine.initModel)", () => {
  const { vocab, seqLen, dModel, numLayers, numHeads } = SHIPPED.model.config;
  const drawn = engine.initModel({ vocab, seqLen, dModel, numLayers, numHeads, seed: SHIPPED.spec.seed });
  const trace = engine.run({ kind: 'model', checkpoint: 'untrained', tokens: heldOut });
  checkWeights(trace, drawn, heldOut);
});

test('every stream, the logits, the probabilities and each loss equal engine.modelForward to 1e-12', () => {
  const trace = engine.run({ kind: 'model', checkpoint: 'trained', tokens: heldOut });
  const pass = engine.modelForward(SHIPPED.model, heldOut);
  const differences = {
    'x₀': largestDifference(stageOf(trace, 'embedded').values, pass.residual[0].values),
    'x₁': largestDifference(stageOf(trace, 'residual', null, 0).values, pass.residual[1].values),
    'x₂': largestDifference(stageOf(trace, 'residual', null, 1).values, pass.residual[2].values),
    'layer 1 reads x₁': largestDifference(stageOf(trace, 'x', null, 1).values, pass.residual[1].values),
    logits: largestDifference(stageOf(trace, 'logits').values, pass.logits.values),
    probabilities: largestDifference(stageOf(trace, 'probabilities').values, pass.probabilities.values),
    token_loss: largestDifference(stageOf(trace, 'token_loss').values, pass.losses),
  };
  for (const [what, worst] of Object.entries(differences)) assert.ok(worst <= 1e-12, `${what}: ${worst}`);
  const loss = stageOf(trace, 'loss').values[0];
  const mean = pass.losses.reduce((a, b) => a + b, 0) / pass.losses.length;
  assert.ok(Math.abs(loss - mean) <= 1e-12, `loss ${loss} against ${mean}`);
  assert.equal(engine.forward({ kind: 'model', checkpoint: 'trained', tokens: heldOut }).values[0], loss);
});

test('scored positions: the loss is the mean of theirs, as the task counts the copy', () => {
  const mask = engine.taskBatch(SHIPPED.spec, { count: 1 }).mask[0];
  const scored = mask.flatMap((m, t) => (m && t < heldOut.length - 1 ? [t] : []));
  assert.ok(scored.length >= 4, `${scored.length} positions scored`);
  const trace = engine.run({ kind: 'model', checkpoint: 'trained', tokens: heldOut, scored });
  const losses = stageOf(trace, 'token_loss').values;
  const loss = stageOf(trace, 'loss');
  assert.deepEqual(
    Array.from(operand(loss, 'counted').values),
    Array.from(losses, (_, t) => (scored.includes(t) ? 1 : 0)),
  );
  const mean = scored.reduce((a, t) => a + losses[t], 0) / scored.length;
  assert.ok(Math.abs(loss.values[0] - mean) <= 1e-15, `${loss.values[0]} against ${mean}`);
  // Trained, the copy is predicted: far below ln 32 = 3.47; every position counted, it is not.
  assert.ok(loss.values[0] < 0.15 * Math.log(32), `copy loss ${loss.values[0]}`);
  const untrained = engine.run({ kind: 'model', checkpoint: 'untrained', tokens: heldOut, scored });
  assert.ok(stageOf(untrained, 'loss').values[0] > 0.8 * Math.log(32));
  const e = engine.explain(
    { kind: 'model', checkpoint: 'trained', tokens: heldOut, scored },
    { stage: 'loss', row: 0, col: 0 },
  );
  assert.deepEqual(
    Array.from(e.addends),
    scored.map((t) => losses[t]),
  );
  assert.equal(e.divisor, scored.length);
});

test('explain a position\u2019s loss: \u2212ln of the probability of the token that came next', () => {
  const spec = { kind: 'model', checkpoint: 'trained', tokens: heldOut };
  const trace = engine.run(spec);
  const e = engine.explain(spec, { stage: 'token_loss', row: 17, col: 0 });
  assert.equal(e.next, heldOut[18]);
  const p = stageOf(trace, 'probabilities');
  assert.equal(e.input, p.values[17 * 32 + heldOut[18]]);
  assert.equal(e.value, -Math.log(e.input));
});

test('a given model runs as the shipped one it equals, and as itself at any other config', () => {
  const shipped = engine.run({ kind: 'model', checkpoint: 'trained', tokens: heldOut });
  const given = engine.run({ kind: 'model', model: SHIPPED.model, tokens: heldOut });
  assert.equal(given.stages.length, shipped.stages.length);
  given.stages.forEach((s, i) => sameBits(s.values, shipped.stages[i].values, `${s.id} head ${s.head} step ${s.step}`));
  // One layer of four heads over five tokens: the trace follows its config, and equals the pass training uses.
  const small = engine.initModel({ vocab: 5, seqLen: 6, dModel: 8, numLayers: 1, numHeads: 4, seed: 3 });
  const tokens = [4, 0, 3, 3, 1];
  const trace = engine.run({ kind: 'model', model: small, tokens });
  assert.deepEqual([trace.config.vocab, trace.config.numHeads, trace.config.numLayers], [5, 4, 1]);
  checkWeights(trace, small, tokens);
  const pass = engine.modelForward(small, tokens);
  assert.ok(largestDifference(stageOf(trace, 'logits').values, pass.logits.values) <= 1e-12);
  const loss = engine.explain({ kind: 'model', model: small, tokens }, { stage: 'token_loss', row: 2, col: 0 });
  assert.equal(loss.value, stageOf(trace, 'token_loss').values[2]);
  assert.equal(loss.next, tokens[3]);
});

test('bad model specs are refused by name', () => {
  const refused = (spec, pattern) => assert.throws(() => engine.run({ kind: 'model', ...spec }), pattern);
  refused({ checkpoint: 'halfway', tokens: [1, 2] }, /checkpoint: "halfway" is not one of trained, untrained/);
  refused({ checkpoint: 'trained', tokens: [1, 32] }, /tokens\[1\]: 32 is outside the vocabulary \[0, 31\]/);
  refused({ checkpoint: 'trained', tokens: [1] }, /tokens: 1 token; the loss needs the token after it/);
  refused({ checkpoint: 'trained', tokens: [1, -2] }, /tokens\[1\]/);
  refused({ checkpoint: 'trained', tokens: [1, 2, 3], scored: [2] }, /scored/);
  refused({ checkpoint: 'trained', tokens: [1, 2, 3], scored: [0, 0] }, /scored: position 0 is listed twice/);
  refused({ checkpoint: 'trained', tokens: [1, 2, 3], seed: 3 }, /seed/);
  refused({ tokens: [1, 2] }, /^Error: checkpoint: is missing/);
  refused({ checkpoint: 'trained', model: SHIPPED.model, tokens: [1, 2] }, /checkpoint: and model are both given/);
  const nan = structuredClone(SHIPPED.model);
  nan.params.layers[1].W_K[0].values[5] = NaN;
  refused(
    { model: nan, tokens: [1, 2] },
    /model\.params\.layers\[1\]\.W_K\[0\]\.values\[5\]: NaN is not a finite number/,
  );
  const wide = { ...SHIPPED.model, config: { ...SHIPPED.model.config, vocab: 33 } };
  refused({ model: wide, tokens: [1, 2] }, /model\.params\.W_E: shape \(32, 32\) should be \(33, 32\)/);
  assert.equal(engine.run({ kind: 'model', checkpoint: 'trained', tokens: [1, 2] }).stages.at(-1).id, 'loss');
});
