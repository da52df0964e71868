// run() and forward() through the WASM engine: every preset the engine lists against numpy
// (every stage of every head, decode step and tile; drawn weight, mask, row total, and the
// operands that change from step to step), the stage order, steps, tiles, shapes, axes,
// equations and config of each kind, and explicit specs giving the same trace as generated ones.
// What decoding and FlashAttention report about themselves: steps.test.mjs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import {
  PRESETS, assertClose, expectedForm, expectedLabels, expectedTile, explicitSpecFor, fixture, fixtures,
  groupOf, isStepped, label, labelOf, stageOf,
} from './support.mjs';

// Top-level: the tests below are made from the engine's own list of presets.
const engine = await createEngine();

// Drawn (inputs, weights, biases) or built (the mask M of 0 and −∞): both sides hold the same
// doubles. Everything else is computed, and agrees with numpy to 1e-12.
const isExact = (id) => ['x', 'x_q', 'x_kv', 'x_t'].includes(id);
const isDrawn = (operand) => /^(W|b\d)/.test(operand.name) || operand.name === 'M';

// Every [fixture key, matrix, what] a trace offers for comparison with numpy: each stage, the row
// totals of each weights stage, the operands numpy drew or built (weights, biases, M), and the
// stepped operands (the cache before step 0 has no rows, and no fixture).
function* comparable(preset, trace) {
  for (const s of trace.stages) {
    const key = `${preset}:${labelOf(s)}`;
    yield [key, s, 'stage'];
    if (s.id === 'weights') {
      const totals = { shape: [s.shape[0], 1], values: s.totals };
      yield [`${preset}:${label('totals', s.head, s.step)}`, totals, 'totals'];
    }
    for (const o of s.operands) {
      if (isDrawn(o)) yield [`${preset}:${label(o.name, o.head)}`, o, 'drawn'];
      else if (isStepped(s, o) && o.shape[0] > 0) yield [`${key}:${o.name}`, o, 'stepped'];
    }
  }
}

// What forward() returns: the stacked steps or blocks, else the last stage.
const resultOf = (trace) => trace.stages.findLast((s) => s.id === 'stacked') ?? trace.stages.at(-1);

// The fields trace.config adds for decoding and FlashAttention (steps.test.mjs checks them).
const CHECKS = ['maxDifference', 'stepDifferences', 'cacheBytes', 'macs', 'floats'];
const withoutChecks = (config) =>
  Object.fromEntries(Object.entries(config).filter(([k]) => !CHECKS.includes(k)));

// The K/V parameter and cache counts trace.config.kv reports, by hand.
function kvCounts({ kvLen, dModel, numHeads, numKvHeads, dK, dV }) {
  return {
    params: numKvHeads * dModel * (dK + dV), paramsMha: numHeads * dModel * (dK + dV),
    cacheValues: kvLen * numKvHeads * (dK + dV), cacheValuesMha: kvLen * numHeads * (dK + dV),
  };
}

// Asserts two traces hold the same stages, operands and values, exactly.
function assertSameStages(got, want) {
  assert.deepEqual(got.stages.map(labelOf), want.stages.map(labelOf));
  got.stages.forEach((s, i) => {
    const w = want.stages[i];
    const name = labelOf(s);
    const form = (t) => [t.kvHead, t.step, t.tile, t.equation, t.symbolic, t.axes];
    assert.deepEqual(form(s), form(w), name);
    assertClose(name, s, w, 0);
    assert.deepEqual(s.totals, w.totals, `${name}: totals`);
    const operands = (t) => t.operands.map((o) => label(o.name, o.head));
    assert.deepEqual(operands(s), operands(w), `${name}: operands`);
    s.operands.forEach((o, j) => assertClose(`${name} operand ${o.name}`, o, w.operands[j], 0));
  });
}

test('presets: the engine lists exactly the presets numpy computed, with the skip numpy used', () => {
  const listed = engine.presets();
  assert.deepEqual(listed.map((p) => p.id), Object.keys(PRESETS));
  for (const p of listed) assert.equal(p.spec.skip ?? 0, PRESETS[p.id].skip, `${p.id}: skip`);
  // The lesson's causal example draws on after the multi-head one: X, W_Q/W_K/W_V ×4, W_O.
  assert.equal(PRESETS['lesson-causal'].skip, 5 * 16 + 3 * 4 * 16 * 4 + 16 * 16);
});

describe('run: every preset against numpy', () => {
  for (const { id: preset } of engine.presets()) {
    describe(preset, () => {
      const sizes = PRESETS[preset];
      const { skip: _skip, ...configSizes } = sizes;
      const trace = engine.run({ preset });

      test('config holds the sizes numpy used, the seed and the K/V counts', () => {
        const { kv, ...config } = withoutChecks(trace.config);
        assert.deepEqual(config, configSizes);
        assert.deepEqual(kv, kvCounts(sizes));
      });

      test('the preset\'s spec, run as given, is the preset', () => {
        const again = engine.run(engine.presets().find((p) => p.id === preset).spec);
        assert.deepEqual(again.config, trace.config);
        assertSameStages(again, trace);
      });

      test('stage ids in the lesson order; head and kvHead are null only for whole-sequence stages', () => {
        assert.deepEqual(trace.stages.map(labelOf), expectedLabels(sizes));
        for (const s of trace.stages) {
          const name = labelOf(s);
          if (s.head === null) assert.equal(s.kvHead, null, `${name}: kvHead`);
          else assert.equal(s.kvHead, Math.floor(s.head / groupOf(sizes)), `${name}: kvHead`);
          assert.deepEqual(s.tile, expectedTile(s, sizes), `${name}: tile`);
        }
      });

      test('every stage matches numpy to 1e-12 (inputs exactly, masked −∞ as null)', () => {
        for (const s of trace.stages) {
          const name = labelOf(s);
          assert.ok(s.values instanceof Float64Array, `${name}: values is a Float64Array`);
          assertClose(name, s, fixture(`${preset}:${name}`), isExact(s.id) ? 0 : 1e-12);
        }
      });

      test('the drawn weights and biases are numpy\'s exactly, and so is the mask M', () => {
        const drawn = new Set();
        for (const [key, o, what] of comparable(preset, trace)) {
          if (what !== 'drawn') continue;
          assertClose(key, o, fixture(key), 0);
          if (!key.endsWith(':M')) drawn.add(key);
        }
        const { numHeads, numKvHeads, outputProjection, kind } = sizes;
        const biasesAndFfn = kind === 'encoder-layer' ? 4 : 0;
        assert.equal(drawn.size, numHeads + 2 * numKvHeads + (outputProjection ? 1 : 0) + biasesAndFfn);
      });

      test('every weights row sums to 1: totals match numpy\'s; other stages carry none', () => {
        for (const s of trace.stages) {
          const name = labelOf(s);
          if (s.id !== 'weights') {
            assert.equal(s.totals, null, `${name}: totals`);
            continue;
          }
          const totals = { shape: [s.shape[0], 1], values: s.totals };
          const key = `${preset}:${label('totals', s.head, s.step)}`;
          assertClose(`${name} totals`, totals, fixture(key), 1e-12);
          const ones = { shape: totals.shape, values: totals.values.map(() => 1) };
          assertClose(`${name} totals`, totals, ones, 1e-12);
        }
      });

      test('every numpy matrix of the preset was compared, and every comparable matrix has one', () => {
        const offered = new Set(Array.from(comparable(preset, trace), ([key]) => key));
        const keys = Object.keys(fixtures().matrices).filter((k) => k.startsWith(`${preset}:`));
        assert.deepEqual(keys.filter((k) => !offered.has(k)), []);
        assert.deepEqual([...offered].filter((k) => !keys.includes(k)), []);
      });

      test('shapes, axes and equations of every stage', () => {
        for (const s of trace.stages) {
          const name = labelOf(s);
          const want = expectedForm(s.id, trace.config, s);
          assert.deepEqual(s.shape, want.shape, `${name}: shape`);
          assert.deepEqual(s.axes, want.axes, `${name}: axes`);
          assert.equal(s.values.length, s.shape[0] * s.shape[1], `${name}: values.length`);
          assert.deepEqual([s.equation, s.symbolic], [want.equation, want.symbolic], `${name}: equation`);
        }
      });

      test('forward() equals the result of run(): the last stage, or the stacked steps or blocks', () => {
        const out = engine.forward({ preset });
        assertClose('forward', out, resultOf(trace), 0);
        assert.ok(out.values instanceof Float64Array);
      });

      if (sizes.outputProjection) {
        test('each output stage is the sum of its per-head contributions', () => {
          for (const output of trace.stages.filter((s) => s.id === 'output')) {
            const parts = output.operands.filter((o) => o.name === 'contribution');
            assert.deepEqual(parts.map((p) => p.head), Array.from({ length: sizes.numHeads }, (_, h) => h));
            const sum = new Float64Array(output.values.length);
            for (const p of parts) p.values.forEach((v, i) => { sum[i] += v; });
            const total = { shape: output.shape, values: sum };
            assertClose(`Σ contributions of ${labelOf(output)}`, total, output, 1e-12);
          }
        });
      }

      if (sizes.kind === 'self' || sizes.kind === 'cross') {
        test('an explicit spec with the same matrices gives the same trace (seed null)', () => {
          const explicit = engine.run(explicitSpecFor(preset));
          assert.deepEqual(explicit.config, { ...trace.config, seed: null });
          assertSameStages(explicit, trace);
          assertClose('forward(explicit)', engine.forward(explicitSpecFor(preset)), trace.stages.at(-1), 0);
        });
      }
    });
  }
});

describe('run: each kind in numbers', () => {
  const run = (preset, id, head = null) => stageOf(engine.run({ preset }), id, head);
  const equations = (s) => [s.equation, s.symbolic];

  test('the multi-head example: q is (5, 16) @ (16, 4) → (5, 4)', () => {
    assert.deepEqual(equations(run('lesson-multi-head', 'q', 0)),
      ['(5, 16) @ (16, 4) → (5, 4)', '(T, d_model) @ (d_model, d_k) → (T, d_k)']);
  });

  test('the causal mask is added: (4, 4) + (4, 4) → (4, 4), with M an operand', () => {
    const masked = run('lesson-causal', 'masked', 0);
    assert.deepEqual(equations(masked), ['(4, 4) + (4, 4) → (4, 4)', '(T, T) + (T, T) → (T, T)']);
    assert.deepEqual(masked.operands.map((o) => label(o.name, o.head)), ['scaled/0', 'M']);
  });

  test('cross-attention: queries from X_q (2 tokens), keys from X_kv (3 tokens)', () => {
    assert.deepEqual(equations(run('cross-translation', 'scores', 1)),
      ['(2, 4) @ (4, 3) → (2, 3)', '(T_q, d_k) @ (d_k, T_kv) → (T_q, T_kv)']);
    assert.deepEqual(equations(run('cross-translation', 'k', 0)),
      ['(3, 8) @ (8, 4) → (3, 4)', '(T_kv, d_model) @ (d_model, d_k) → (T_kv, d_k)']);
    assert.deepEqual(run('cross-translation', 'v', 1).operands.map((o) => o.name), ['X_kv', 'W_V']);
  });

  test('cross-attention with padding: no query puts weight on the padded key', () => {
    const weights = run('cross-padding', 'weights', 0);
    assert.deepEqual([weights.values[3], weights.values[7]], [0, 0]);
  });

  test('grouped-query: k and v once per K/V head, at the first query head of its group', () => {
    const trace = engine.run({ preset: 'gqa-4-2' });
    const kv = trace.stages.filter((s) => s.id === 'k' || s.id === 'v');
    assert.deepEqual(kv.map((s) => [label(s.id, s.head), s.kvHead]),
      [['k/0', 0], ['v/0', 0], ['k/2', 1], ['v/2', 1]]);
    assert.deepEqual(trace.stages.filter((s) => s.id === 'q').map((s) => s.kvHead), [0, 0, 1, 1]);
    const mqa = engine.run({ preset: 'mqa-4-1' });
    assert.deepEqual(mqa.stages.filter((s) => s.id === 'k').map((s) => s.head), [0]);
  });

  test('the encoder layer: residual, norm, the position-wise network', () => {
    assert.deepEqual(equations(run('encoder-layer', 'ffn_pre')),
      ['(5, 16) @ (16, 64) + (64) → (5, 64)', '(T, d_model) @ (d_model, d_ff) + (d_ff) → (T, d_ff)']);
    assert.deepEqual(equations(run('encoder-layer', 'norm1')),
      ['norm(5, 16) → (5, 16)', 'norm(T, d_model) → (T, d_model)']);
    assert.deepEqual(equations(run('encoder-layer', 'ffn_hidden')),
      ['ReLU(5, 64) → (5, 64)', 'ReLU(T, d_ff) → (T, d_ff)']);
    assert.deepEqual(equations(run('encoder-layer', 'residual2')),
      ['(5, 16) + (5, 16) → (5, 16)', '(T, d_model) + (T, d_model) → (T, d_model)']);
  });
});

describe('run: other specs', () => {
  test('explicit single head without W_O ends at head', () => {
    const { W_O: _unused, ...spec } = explicitSpecFor('lesson-multi-head');
    spec.W_Q = spec.W_Q.slice(0, 1);
    spec.W_K = spec.W_K.slice(0, 1);
    spec.W_V = spec.W_V.slice(0, 1);
    const trace = engine.run(spec);
    assert.deepEqual(trace.stages.map((s) => label(s.id, s.head)), expectedLabels({ numHeads: 1 }));
    assert.equal(trace.config.outputProjection, false);
    assertClose('head/0', stageOf(trace, 'head', 0), fixture('lesson-multi-head:head/0'), 1e-12);
    assertClose('forward', engine.forward(spec), stageOf(trace, 'head', 0), 0);
  });

  test('explicit multi-head without W_O: forward is the heads side by side', () => {
    const { W_O: _unused, ...spec } = explicitSpecFor('lesson-multi-head');
    assertClose('forward', engine.forward(spec), fixture('lesson-multi-head:concat'), 1e-12);
  });

  test('explicit grouped-query: two W_K and W_V for four W_Q give numpy\'s gqa-4-2', () => {
    const spec = explicitSpecFor('gqa-4-2');
    assert.deepEqual([spec.W_Q.length, spec.W_K.length, spec.W_V.length], [4, 2, 2]);
    const trace = engine.run(spec);
    assert.equal(trace.config.numKvHeads, 2);
    assertClose('scores/3', stageOf(trace, 'scores', 3), fixture('gqa-4-2:scores/3'), 1e-12);
    assertClose('output', stageOf(trace, 'output'), fixture('gqa-4-2:output'), 1e-12);
  });

  test('explicit cross-attention with validKeys gives numpy\'s cross-padding', () => {
    const spec = explicitSpecFor('cross-padding');
    assert.deepEqual([spec.kind, spec.validKeys, spec.X_q.length, spec.X_kv.length], ['cross', 3, 2, 4]);
    const trace = engine.run(spec);
    assertClose('masked/1', stageOf(trace, 'masked', 1), fixture('cross-padding:masked/1'), 1e-12);
    assertClose('output', stageOf(trace, 'output'), fixture('cross-padding:output'), 1e-12);
  });

  test('explicit spec with scaleScores false: scaled equals scores', () => {
    const trace = engine.run({ ...explicitSpecFor('lesson-causal'), scaleScores: false });
    assert.equal(trace.config.scaleScores, false);
    const scaled = stageOf(trace, 'scaled', 0);
    assertClose('scaled', scaled, stageOf(trace, 'scores', 0), 0);
    assert.equal(scaled.equation, '(4, 4) ÷ 1 → (4, 4)');
  });

  test('a generated spec with d_k ≠ d_v has every shape right, and forward equals output', () => {
    const spec = { seed: 7, seqLen: 6, dModel: 9, numHeads: 3, dK: 2, dV: 5, causal: true };
    const trace = engine.run(spec);
    const sizes = {
      kind: 'self', seqLen: 6, kvLen: 6, dModel: 9, numHeads: 3, numKvHeads: 3, dK: 2, dV: 5, dFF: null,
      validKeys: null, causal: true, outputProjection: true, scaleScores: true,
      blockRows: null, blockCols: null,
    };
    const { kv, ...config } = trace.config;
    assert.deepEqual(config, { ...sizes, seed: 7 });
    assert.deepEqual(kv, kvCounts(sizes));
    assert.deepEqual(trace.stages.map((s) => label(s.id, s.head)), expectedLabels(sizes));
    for (const s of trace.stages) {
      const want = expectedForm(s.id, sizes);
      const got = { shape: s.shape, axes: s.axes, equation: s.equation, symbolic: s.symbolic };
      assert.deepEqual(got, want, label(s.id, s.head));
    }
    assertClose('forward', engine.forward(spec), stageOf(trace, 'output'), 0);
  });

  test('results are copies: changing one run leaves the next untouched', () => {
    const first = engine.run({ preset: 'lesson-causal' });
    const keep = Float64Array.from(stageOf(first, 'weights', 0).values);
    stageOf(first, 'weights', 0).values.fill(7);
    const again = stageOf(engine.run({ preset: 'lesson-causal' }), 'weights', 0);
    assertClose('weights', again, { shape: [4, 4], values: keep }, 0);
  });
});
