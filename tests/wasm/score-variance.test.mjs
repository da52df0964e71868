// config.scoreVariance: per query head, var(S) and var(S̃) over the scores its queries see,
// the premise of the √d_k argument measured. Recomputed here from the trace's own scores and
// scaled stages (the entries where the masked stage's M is 0; every entry without a mask).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createEngine } from '../../dist/engine.js';

const engine = await createEngine();

// numpy's x[M == 0].var() for one stage's values, with `seen(i, j)` for M == 0.
function variance(stage, seen) {
  const [rows, cols] = stage.shape;
  const xs = [];
  for (let i = 0; i < rows; i += 1)
    for (let j = 0; j < cols; j += 1) if (seen(i, j)) xs.push(stage.values[i * cols + j]);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return { value: xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length, entries: xs.length };
}

function expected(trace, head) {
  const of = (id) => trace.stages.find((s) => s.id === id && s.head === head);
  const masked = of('masked');
  const mask = masked?.operands.find((o) => o.name === 'M');
  const seen = mask ? (i, j) => mask.values[i * masked.shape[1] + j] === 0 : () => true;
  return { scores: variance(of('scores'), seen), scaled: variance(of('scaled'), seen) };
}

const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-12 * Math.abs(b), `${what}: ${a} vs ${b}`);

for (const spec of [
  { preset: 'lesson-multi-head' },
  { preset: 'lesson-causal' },
  { preset: 'cross-padding' },
  { preset: 'masks-window' },
  { preset: 'designed-heads' },
  { preset: 'modern-mla' }, // S = q·kᵀ + q_rope·k_ropeᵀ, S̃ = S / √(d_k + d_r)
  { seed: 42, seqLen: 5, dModel: 16, numHeads: 4, weightScale: 1 },
]) {
  test(`scoreVariance: ${JSON.stringify(spec)}, every head as numpy's S[M == 0].var()`, () => {
    const trace = engine.run(spec);
    const got = trace.config.scoreVariance;
    assert.equal(got.length, trace.config.numHeads);
    got.forEach((v, h) => {
      assert.equal(v.head, h);
      const want = expected(trace, h);
      assert.equal(v.entries, want.scores.entries, `head ${h}: entries`);
      close(v.scores, want.scores.value, `head ${h}: var(S)`);
      close(v.scaled, want.scaled.value, `head ${h}: var(S̃)`);
    });
  });
}

test('scoreVariance: the lesson at weight scale 0.1 is far below 1, at 1 far above', () => {
  const low = engine.run({ preset: 'lesson-multi-head' }).config.scoreVariance;
  const high = engine.run({ seed: 42, seqLen: 5, dModel: 16, numHeads: 4, weightScale: 1 }).config.scoreVariance;
  for (const v of low) assert.ok(v.scaled < 0.2, `head ${v.head}: var(S̃) = ${v.scaled}`);
  for (const v of high) assert.ok(v.scaled > 5, `head ${v.head}: var(S̃) = ${v.scaled}`);
});

test('scoreVariance: a decode pools its steps; flash records none', () => {
  const decoded = engine.run({ preset: 'kv-cache-gqa' }).config;
  const T = decoded.seqLen;
  for (const v of decoded.scoreVariance) assert.equal(v.entries, (T * (T + 1)) / 2, `head ${v.head}`);
  assert.equal(engine.run({ preset: 'flash-causal' }).config.scoreVariance, undefined);
});
