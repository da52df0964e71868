// Decoding with a KV cache and FlashAttention's tiles through the WASM engine: the operands that
// change from step to step against numpy and against the stages they come from, and what each
// run reports about itself in trace.config (maxDifference, stepDifferences, cacheBytes,
// multiply-adds, floats held) against formulas worked out here. Stage by stage against numpy,
// order, shapes and equations: run.test.mjs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { expectedForm, expectedLabels, expectedTile } from './forms.mjs';
import { PRESETS, assertClose, fixture, isStepped, labelOf, stageOf } from './support.mjs';

const engine = await createEngine();
const presetsOf = (kind) =>
  engine
    .presets()
    .map((p) => p.id)
    .filter((id) => PRESETS[id].kind === kind);

// Largest |a − b| of each row of two matrices of one shape.
function rowDifferences(a, b) {
  const [rows, cols] = a.shape;
  return Array.from({ length: rows }, (_, r) => {
    let max = 0;
    for (let i = r * cols; i < (r + 1) * cols; i += 1) {
      max = Math.max(max, Math.abs(a.values[i] - b.values[i]));
    }
    return max;
  });
}

const largest = (values) => values.reduce((m, v) => Math.max(m, Math.abs(v)), 0);

// Rows [begin, end) of a stage as { shape, values }.
function rowsOf(s, [begin, end]) {
  const cols = s.shape[1];
  return { shape: [end - begin, cols], values: s.values.slice(begin * cols, end * cols) };
}

const filled = (shape, v) => ({ shape, values: new Float64Array(shape[0] * shape[1]).fill(v) });

// Every stepped operand of a trace against numpy ("preset:label:name"); returns how many.
function compareStepped(preset, trace) {
  let count = 0;
  for (const s of trace.stages) {
    for (const o of s.operands.filter((op) => isStepped(s, op) && op.shape[0] > 0)) {
      const key = `${preset}:${labelOf(s)}:${o.name}`;
      assertClose(key, o, fixture(key), 1e-12);
      count += 1;
    }
  }
  return count;
}

// Per step: the bytes of the float64 cache after it, and its multiply-adds: the new token's
// q (H·D·DK), k and v (H_kv·D·(DK + DV)), scores and weights·V over t+1 keys (H·(t+1)·(DK + DV)),
// W_O (H·DV·D); recomputing instead of caching, k and v for all t+1 tokens.
// The cache rows after step t: one per token so far, at most W with a window. The slot step t
// writes: t while the cache grows, then the ring's oldest, behind the k pinned sink rows.
function decodeCounts({
  seqLen,
  dModel: d,
  numHeads: h,
  numKvHeads: hkv,
  dK,
  dV,
  outputProjection,
  window,
  sinkTokens,
}) {
  const steps = Array.from({ length: seqLen }, (_, t) => t);
  const held = (t) => (window === null ? t + 1 : Math.min(t + 1, window));
  const k = sinkTokens ?? 0;
  const kv = hkv * d * (dK + dV);
  const rest = (t) => h * d * dK + h * held(t) * (dK + dV) + (outputProjection ? h * dV * d : 0);
  return {
    cacheBytes: steps.map((t) => held(t) * (dK + dV) * hkv * 8),
    cacheSlots: steps.map((t) => (window === null || t < window ? t : k + ((t - k) % (window - k)))),
    cached: steps.map((t) => rest(t) + kv),
    recomputed: steps.map((t) => rest(t) + held(t) * kv),
  };
}

test('a window of W decodes into a ring of W slots: bounded bytes, the same rows as the windowed pass', async () => {
  const engine = await createEngine();
  const { config } = engine.run({ kind: 'kv-cache', seqLen: 7, dModel: 8, numHeads: 2, window: 3, rope: {} });
  assert.deepEqual(config.cacheSlots, [0, 1, 2, 0, 1, 2, 0]);
  const perToken = (config.dK + config.dV) * config.numKvHeads * 8;
  assert.deepEqual(
    config.cacheBytes,
    [1, 2, 3, 3, 3, 3, 3].map((n) => n * perToken),
  );
  assert.ok(config.maxDifference <= 1e-12, `maxDifference ${config.maxDifference}`);
});

// The decoding checks that need no numpy: the cache grows by exactly the new row, the stacked
// steps are causal attention, and the config's counts are the formulas'.
function decodingChecks(trace) {
  const { config } = trace;
  test("each k_cache / v_cache is the step before's cache with the new row written into its slot, exactly", () => {
    const { cacheSlots } = decodeCounts(config);
    for (const s of trace.stages.filter((st) => st.id === 'k_cache' || st.id === 'v_cache')) {
      const [old, added] = s.operands;
      const width = s.id === 'k_cache' ? config.dK : config.dV;
      const before = s.step > 0 ? stageOf(trace, s.id, s.head, s.step - 1) : null;
      assert.deepEqual(old.shape, [before?.shape[0] ?? 0, width], `${labelOf(s)}: the old cache`);
      if (before) assertClose(labelOf(s), old, before, 0);
      // The row written: k_new, or what turned or normalised it (k_rot, k_norm); v_new.
      assertClose(labelOf(s), added, stageOf(trace, added.name, s.head, s.step), 0);
      const slot = cacheSlots[s.step];
      for (let r = 0; r < s.shape[0]; r += 1)
        assertClose(`${labelOf(s)} row ${r}`, rowsOf(s, [r, r + 1]), r === slot ? added : rowsOf(old, [r, r + 1]), 0);
    }
  });

  test("stacked row t is step t's output (without W_O: its heads side by side), exactly", () => {
    const stacked = stageOf(trace, 'stacked');
    for (let t = 0; t < config.seqLen; t += 1) {
      const head = (h) => [...stageOf(trace, 'head', h, t).values];
      const heads = Array.from({ length: config.numHeads }, (_, h) => head(h));
      const sideBySide = { shape: [1, config.numHeads * config.dV], values: Float64Array.from(heads.flat()) };
      const row = config.outputProjection ? stageOf(trace, 'output', null, t) : sideBySide;
      assertClose(`stacked row ${t}`, rowsOf(stacked, [t, t + 1]), row, 0);
    }
  });

  test('stepDifferences and maxDifference: stacked against causal_reference, ≤ 1e-12', () => {
    const steps = rowDifferences(stageOf(trace, 'stacked'), stageOf(trace, 'causal_reference'));
    assert.deepEqual(config.stepDifferences, steps);
    assert.equal(config.maxDifference, Math.max(...steps));
    assert.ok(config.maxDifference <= 1e-12, `maxDifference ${config.maxDifference}`);
  });

  test('cacheBytes and the multiply-adds with and without the cache follow the formulas', () => {
    const want = decodeCounts(config);
    assert.deepEqual(config.cacheBytes, want.cacheBytes);
    assert.deepEqual(config.cacheSlots, want.cacheSlots);
    assert.deepEqual(config.macs.cached, want.cached);
    assert.deepEqual(config.macs.recomputed, want.recomputed);
    const runningTotal = (list) => list.map((_, t) => list.slice(0, t + 1).reduce((a, b) => a + b, 0));
    assert.deepEqual(config.macs.cachedSoFar, runningTotal(want.cached));
    assert.deepEqual(config.macs.recomputedSoFar, runningTotal(want.recomputed));
    assert.equal(config.floats, undefined);
  });
}

describe('decoding with a KV cache', () => {
  for (const preset of presetsOf('kv-cache')) {
    describe(preset, () => {
      const trace = engine.run({ preset });
      test("each step's old K and V cache matches numpy (one pair per K/V head after step 0)", () => {
        const { seqLen, numKvHeads } = PRESETS[preset];
        assert.equal(compareStepped(preset, trace), 2 * numKvHeads * (seqLen - 1));
      });
      decodingChecks(trace);
    });
  }

  test('kv-cache-gqa by hand: 128 cache bytes a step; 800 multiply-adds at step 0', () => {
    const { config } = engine.run({ preset: 'kv-cache-gqa' });
    // 2 K/V heads × (d_k 4 + d_v 4) × 8 bytes per token.
    assert.deepEqual(config.cacheBytes, [128, 256, 384, 512, 640]);
    // q 4·16·4 = 256, k and v 2·16·8 = 256, scores and weights·V 4·1·8 = 32, W_O 16·16 = 256.
    assert.equal(config.macs.cached[0], 800);
    assert.equal(config.macs.recomputed[4], 800 + 4 * 32 + 4 * 256);
  });

  describe('a spec without W_O, d_k ≠ d_v, unscaled', () => {
    const spec = {
      kind: 'kv-cache',
      seed: 3,
      seqLen: 4,
      dModel: 6,
      numHeads: 3,
      dK: 2,
      dV: 3,
      numKvHeads: 1,
      outputProjection: false,
      scaleScores: false,
    };
    const trace = engine.run(spec);
    test('stages, shapes and equations; a step\u2019s concat is its output, stacked the heads side by side', () => {
      assert.deepEqual(trace.stages.map(labelOf), expectedLabels(trace.config));
      for (const s of trace.stages) {
        const want = expectedForm(s.id, trace.config, s);
        assert.deepEqual(
          [s.shape, s.axes, s.equation, s.symbolic],
          [want.shape, want.axes, want.equation, want.symbolic],
          labelOf(s),
        );
      }
      assert.deepEqual(stageOf(trace, 'stacked').shape, [4, 9]);
    });
    decodingChecks(trace);
  });
});

// Floats one head holds: the whole T × T scores, or one tile and the running m and l per row.
// One query block is live at a time: its B_r × B_c tile and its B_r rows' m and l.
const floatsHeld = (t, { blockRows, blockCols }) => ({ standard: t * t, tiled: blockRows * blockCols + 2 * blockRows });

// The tiling checks that need no numpy: each tile starts from the block's previous tile (or
// from m = −∞, l = 0, O = 0), reads its rows of q, k and v, and the blocks stacked are ordinary
// attention.
function tilingChecks(trace) {
  const { config } = trace;
  test("each tile reads its rows of q, k, v and the running m, l, O its block's last tile left", () => {
    const [q, k, v] = ['q', 'k', 'v'].map((id) => stageOf(trace, id, 0));
    let before = null;
    for (const s of trace.stages.filter((st) => st.step !== null)) {
      const { queryRows, keyRows } = s.tile;
      const rows = queryRows[1] - queryRows[0];
      const op = (name) => s.operands.find((o) => o.name === name);
      const first = before === null || before.tile.queryRows[0] !== queryRows[0];
      const prior = (id) => stageOf(trace, id, 0, before.step);
      if (s.id === 'tile_scores') {
        assertClose(`${labelOf(s)} Q_i`, op('Q_i'), rowsOf(q, queryRows), 0);
        assertClose(`${labelOf(s)} K_j`, op('K_j'), rowsOf(k, keyRows), 0);
      } else if (s.id === 'tile_max') {
        assertClose(`${labelOf(s)} m`, op('m'), first ? filled([rows, 1], -Infinity) : prior('tile_max'), 0);
      } else if (s.id === 'tile_sum') {
        assertClose(`${labelOf(s)} l`, op('l'), first ? filled([rows, 1], 0) : prior('tile_sum'), 0);
      } else if (s.id === 'tile_out') {
        assertClose(`${labelOf(s)} O`, op('O'), first ? filled([rows, config.dV], 0) : prior('tile_out'), 0);
        assertClose(`${labelOf(s)} V_j`, op('V_j'), rowsOf(v, keyRows), 0);
        before = s;
      } else if (s.id === 'block_out') {
        const [o, l] = [stageOf(trace, 'tile_out', 0, s.step), stageOf(trace, 'tile_sum', 0, s.step)];
        assertClose(`${labelOf(s)} O`, op('O'), o, 0);
        assertClose(`${labelOf(s)} l`, op('l'), l, 0);
        const divided = o.values.map((x, i) => x / l.values[Math.floor(i / config.dV)]);
        assertClose(labelOf(s), s, { shape: o.shape, values: divided }, 0);
        assertClose(`stacked rows ${queryRows}`, rowsOf(stageOf(trace, 'stacked'), queryRows), s, 0);
      }
    }
  });

  test('maxDifference: stacked against reference, relative to max(1, max |reference|), ≤ 1e-12', () => {
    const reference = stageOf(trace, 'reference');
    const absolute = Math.max(...rowDifferences(stageOf(trace, 'stacked'), reference));
    assert.equal(config.maxDifference, absolute / Math.max(1, largest(reference.values)));
    assert.ok(config.maxDifference <= 1e-12, `maxDifference ${config.maxDifference}`);
  });

  test("floats held: T² against B_r·B_c + 2·B_r, here and at the lesson's 2048 tokens", () => {
    const here = floatsHeld(config.seqLen, config);
    const lesson = floatsHeld(2048, config);
    assert.deepEqual(config.floats, {
      standard: here.standard,
      tiled: here.tiled,
      exampleSeqLen: 2048,
      exampleStandard: lesson.standard,
      exampleTiled: lesson.tiled,
    });
    for (const absent of ['stepDifferences', 'cacheBytes', 'macs']) assert.equal(config[absent], undefined);
  });
}

describe("FlashAttention's tiles", () => {
  for (const preset of presetsOf('flash')) {
    describe(preset, () => {
      const trace = engine.run({ preset });
      test("every tile's Q_i, K_j, V_j, m, l, O, α, P and every block's O, l match numpy", () => {
        const tiles = trace.stages.filter((s) => s.id === 'tile_out').length;
        const blocks = trace.stages.filter((s) => s.id === 'block_out').length;
        assert.equal(compareStepped(preset, trace), 10 * tiles + 2 * blocks);
      });
      tilingChecks(trace);
    });
  }

  test('flash-causal by hand: 6 of the 9 tiles run; 25 floats against 8', () => {
    const trace = engine.run({ preset: 'flash-causal' });
    // T = 5 in blocks of 2: query blocks [0,2) [2,4) [4,5) meet 1, 2 and 3 key blocks.
    assert.equal(trace.stages.filter((s) => s.id === 'tile_scores').length, 6);
    assert.deepEqual(stageOf(trace, 'tile_scores', 0, 2).tile, { queryRows: [2, 4], keyRows: [2, 4] });
    assert.equal(stageOf(trace, 'tile_scores', 0, 2).values[1], -Infinity); // query 2, key 3
    assert.deepEqual(trace.config.floats, {
      standard: 25,
      tiled: 2 * 2 + 2 * 2,
      exampleSeqLen: 2048,
      exampleStandard: 2048 * 2048,
      exampleTiled: 2 * 2 + 2 * 2,
    });
  });

  describe('a spec with uneven blocks: T = 7, 3 × 2 tiles, causal, unscaled', () => {
    const spec = {
      kind: 'flash',
      seed: 3,
      seqLen: 7,
      dModel: 6,
      dK: 2,
      dV: 3,
      causal: true,
      blockRows: 3,
      blockCols: 2,
      scaleScores: false,
    };
    const trace = engine.run(spec);
    test('stages, tiles, shapes and equations', () => {
      assert.deepEqual(trace.stages.map(labelOf), expectedLabels(trace.config));
      for (const s of trace.stages) {
        const want = expectedForm(s.id, trace.config, s);
        assert.deepEqual(
          [s.shape, s.axes, s.equation, s.symbolic, s.tile],
          [want.shape, want.axes, want.equation, want.symbolic, expectedTile(s, trace.config)],
          labelOf(s),
        );
      }
    });
    tilingChecks(trace);
  });
});

// StreamingLLM: the cache keeps its first sinkTokens rows for the first tokens and turns a ring of
// W − sinkTokens behind them. Which token a row holds (slotTokens) is checked against the cache
// itself: row s is the turned key of the step slotTokens names.
test('sink tokens: pinned cache rows and a ring of W − k, each row the key of the token slotTokens names', async () => {
  const engine = await createEngine();
  const { config, stages } = engine.run({ preset: 'kv-cache-streaming' });
  assert.deepEqual([config.window, config.sinkTokens], [6, 4]);
  assert.deepEqual(config.cacheSlots, [0, 1, 2, 3, 4, 5, 4, 5, 4, 5]);
  assert.deepEqual(
    config.slotTokens.map((held) => Array.from(held)),
    [
      [0],
      [0, 1],
      [0, 1, 2],
      [0, 1, 2, 3],
      [0, 1, 2, 3, 4],
      [0, 1, 2, 3, 4, 5],
      [0, 1, 2, 3, 6, 5],
      [0, 1, 2, 3, 6, 7],
      [0, 1, 2, 3, 8, 7],
      [0, 1, 2, 3, 8, 9],
    ],
  );
  const row = (m, r) => Array.from(m.values.slice(r * m.shape[1], (r + 1) * m.shape[1]));
  for (let t = 0; t < 10; t++) {
    const cache = stages.find((s) => s.id === 'k_cache' && s.step === t && s.head === 0);
    config.slotTokens[t].forEach((token, slot) => {
      const written = stages.find((s) => s.id === 'k_rot' && s.step === token && s.head === 0);
      assert.deepEqual(row(cache, slot), row(written, 0), `step ${t}: slot ${slot} holds token ${token}'s key`);
    });
  }
  assert.equal(config.cacheBytes.at(-1), config.cacheBytes[5], 'W rows however long');
  assert.ok(config.maxDifference <= 1e-12, `maxDifference ${config.maxDifference}`);
});
