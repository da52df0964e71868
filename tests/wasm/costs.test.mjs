// The costs the engine counts for every preset, against the formulas written out here from the
// config alone; the causal prefix check (row t of one causal pass is the pass over tokens 0 … t)
// on every preset that has a mask with no prefix; the training passes and the slow-memory
// traffic of the lesson's examples by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createEngine } from '../../dist/engine.js';

const engine = await createEngine();
const presets = engine.presets();

test('headSplit: h heads of (d_k, d_v) against one head of (h·d_k, h·d_v), part by part', () => {
  const without = [];
  for (const { id } of presets) {
    const c = engine.run({ preset: id }).config;
    // Decoding, FlashAttention and MLA (its heads read one shared latent) report no split.
    if (c.kind === 'kv-cache' || c.kind === 'flash' || c.kind === 'mla') {
      assert.equal(c.headSplit, undefined, id);
      without.push(c.kind);
      continue;
    }
    const { seqLen: t, kvLen: tkv, dModel: d, numHeads: h, numKvHeads: g, dK: k, dV: v } = c;
    const out = c.outputProjection ? t * h * v * d : 0;
    const part = (projections, scores, values) => ({
      projections,
      scores,
      values,
      output: out,
      total: projections + scores + values + out,
    });
    assert.deepEqual(
      c.headSplit,
      {
        heads: { ...part(t * d * h * k + tkv * d * g * (k + v), h * t * tkv * k, h * t * tkv * v), exps: h * t * tkv },
        single: { ...part(t * d * h * k + tkv * d * (h * k + h * v), t * tkv * h * k, t * tkv * h * v), exps: t * tkv },
      },
      id,
    );
  }
  assert.deepEqual([...new Set(without)].sort(), ['flash', 'kv-cache', 'mla'], 'each kind without a split was seen');
  const mha = engine.run({ preset: 'lesson-multi-head' }).config.headSplit;
  assert.deepEqual([mha.heads.scores, mha.single.scores, mha.heads.exps, mha.single.exps], [400, 400, 100, 25]);
});

test('causalPrefix: every causal preset without a prefix, each row its own prefix to 1e-12', () => {
  const checked = [];
  for (const { id } of presets) {
    const c = engine.run({ preset: id }).config;
    const causal = c.causal || c.window !== null || c.documents.length > 0;
    const applies = causal && c.prefix === null && (c.kind === 'self' || c.kind === 'designed');
    if (!applies) {
      assert.equal(c.causalPrefix, undefined, id);
      continue;
    }
    checked.push(id);
    assert.equal(c.causalPrefix.length, Math.min(c.seqLen, 16), id);
    for (const d of c.causalPrefix) assert.ok(d <= 1e-12, `${id}: ${d}`);
    assert.deepEqual(c.trainingPasses, {
      batch: 32,
      withoutMask: 32 * c.seqLen,
      withMask: 32,
      exampleSeqLen: 1024,
      exampleWithoutMask: 32768,
      exampleWithMask: 32,
    });
  }
  assert.ok(
    checked.includes('lesson-causal') && checked.includes('masks-window') && checked.includes('designed-heads-causal'),
  );
});

test('memoryTraffic: standard attention against the tiles FlashAttention keeps', () => {
  const causal = engine.run({ preset: 'flash-causal' }).config.memoryTraffic;
  // T = 5, d_k = d_v = 4, tiles of 2 × 2 under the causal mask: the query blocks read 2, 4 and 5 keys.
  assert.deepEqual([causal.standard, causal.tiled], [2 * 5 * 4 + 2 * 5 * 4 + 4 * 25, 5 * 4 + 11 * 8 + 5 * 4]);
  const full = engine.run({ preset: 'flash-full' }).config.memoryTraffic; // tiles of 2 × 3: every block reads 5 keys
  assert.equal(full.tiled, 5 * 4 + 3 * 5 * 8 + 5 * 4);
  // The lesson's 2048 tokens at d = 64 in tiles of 256 (M = 4 · 64 · 256 values on chip).
  assert.deepEqual(
    [
      full.exampleSeqLen,
      full.exampleDk,
      full.exampleBlock,
      full.exampleMemory,
      full.exampleStandard,
      full.exampleTiled,
    ],
    [2048, 64, 256, 65536, 4 * 2048 * 64 + 4 * 2048 ** 2, 2048 * 64 + 8 * 2048 * 128 + 2048 * 64],
  );
});
