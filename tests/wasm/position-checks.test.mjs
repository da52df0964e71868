// What a run with positions or masks reports about itself in trace.config: RoPE's shift check
// (every position moved by 7: q_rot moves, the scores and weights do not), ALiBi's row check (a
// constant added to each row of B moves no weight), RoPE's settings as given, and padding keys
// in self-attention (validKeys) hidden from every query.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createEngine } from '../../dist/engine.js';

const engine = await createEngine();
const base = { seed: 42, seqLen: 6, dModel: 16, numHeads: 4, weightScale: 1 };

test('RoPE: the config holds its settings and the shift check', () => {
  const { config } = engine.run({ ...base, causal: true, rope: { convention: 'half-split', offset: 2 } });
  assert.deepEqual(config.rope, { base: 10000, convention: 'half-split', offset: 2, dims: 4 });
  assert.equal(config.ropeShift.shift, 7);
  assert.ok(config.ropeShift.qRot > 1e-3, `q_rot moved by ${config.ropeShift.qRot}`);
  assert.ok(config.ropeShift.scores <= 1e-12, `scores moved by ${config.ropeShift.scores}`);
  assert.ok(config.ropeShift.weights <= 1e-12, `weights moved by ${config.ropeShift.weights}`);
  assert.equal(engine.run(base).config.ropeShift, undefined, 'no RoPE, no check');
});

test('ALiBi: the slopes, and a row constant moves no weight', () => {
  const { config } = engine.run({ ...base, causal: true, alibi: true });
  assert.deepEqual(Array.from(config.alibi), [1 / 4, 1 / 16, 1 / 64, 1 / 256]); // 4 heads: 2^(−8/4)^(h+1)
  assert.ok(config.alibiRowShift <= 1e-12, `weights moved by ${config.alibiRowShift}`);
});

test('padding keys in self-attention: every query gives them exactly 0', () => {
  const trace = engine.run({ ...base, causal: true, validKeys: 4 });
  for (const w of trace.stages.filter((s) => s.id === 'weights')) {
    for (let i = 0; i < 6; i += 1)
      for (let j = 4; j < 6; j += 1) assert.equal(w.values[i * 6 + j], 0, `head ${w.head}: (${i}, ${j})`);
  }
  assert.equal(trace.config.validKeys, 4);
});
