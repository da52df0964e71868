// run() and forward() through the WASM engine: every preset the engine lists, and every custom
// spec the fixture names (weightScale 1, prunedHeads [1, 3]), against numpy (every stage of
// every head, decode step and tile; drawn or built weight, mask, gate, row total, each head's
// contribution, outputChange, and the operands that change from step to step), the stage
// order, steps, tiles, shapes, axes, equations and config of each kind, and explicit specs
// giving the same trace as generated ones. Each kind in numbers and other specs:
// run-specs.test.mjs; what decoding and FlashAttention report about themselves: steps.test.mjs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { alibiSlopes, expectedForm, expectedLabels, expectedTile, hasMask, kvCounts } from './forms.mjs';
import {
  CASES,
  CUSTOM,
  PRESETS,
  assertClose,
  explicitSpecFor,
  fixture,
  fixtures,
  groupOf,
  isStepped,
  label,
  labelOf,
} from './support.mjs';

// Top-level: the tests below are made from the engine's own list of presets.
const engine = await createEngine();

// Drawn or given (inputs, weights, biases, the backward pass's dO) or built (the designed heads'
// X and weights, the mask M of 0 and −∞, the pruning gate of 1 and 0): both sides hold the same
// doubles. Everything else is computed, and agrees with numpy to 1e-12.
const isExact = (id) => ['x', 'x_q', 'x_kv', 'x_t', 'd_output'].includes(id);
const isDrawn = (operand) => /^(W|b\d)/.test(operand.name) || ['M', 'gate'].includes(operand.name);
// The untrained model is initModel's draw of 11,008 normals (seed 0): in WASM, musl's log differs
// from glibc's (numpy's) by one ulp at one input, so normals 10276 and 10277 differ by 1.1e-16
// (engine.randn(0, 1, 11008) against np.random.randn). Natively they are numpy's bit for bit.
const MODEL_DRAW_TOLERANCE = 2.3e-16;
const isBuilt = (key) => /:(M|gate)(\/|$)/.test(key); // the model's M is keyed by layer: name:M/-@l

// Every [fixture key, matrix, what] a trace offers for comparison with numpy: each stage, the row
// totals of each weights stage (and of each d_scaled stage, under the stage), the operands numpy drew or built
// (weights, biases, M, gate), the
// stepped operands (the cache before step 0 has no rows, and no fixture), each head's
// contribution to an output and ALiBi's B and the sinusoidal PE outside decoding, and a pruned
// run's outputChange (1 × 1).
function* comparable(name, trace) {
  const model = trace.config.kind === 'model'; // each layer's weights its own: keyed by layer
  for (const s of trace.stages) {
    const key = `${name}:${labelOf(s)}`;
    yield [key, s, 'stage'];
    if (s.id === 'weights') {
      const totals = { shape: [s.shape[0], 1], values: s.totals };
      yield [`${name}:${label('totals', s.head, s.step)}`, totals, 'totals'];
    }
    if (s.id === 'd_scaled') yield [`${key}:totals`, { shape: [s.shape[0], 1], values: s.totals }, 'totals'];
    for (const o of s.operands) {
      if (isDrawn(o)) yield [`${name}:${label(o.name, o.head, model ? s.step : null)}`, o, 'drawn'];
      else if (isStepped(s, o) && o.shape[0] > 0) yield [`${key}:${o.name}`, o, 'stepped'];
      else if (['contribution', 'B', 'PE'].includes(o.name) && s.step === null)
        yield [`${name}:${label(o.name, o.head)}`, o, 'computed'];
    }
  }
  const change = trace.config.outputChange;
  if (change !== undefined) yield [`${name}:outputChange`, { shape: [1, 1], values: [change] }, 'computed'];
}

// What forward() returns: the stacked steps or blocks; the backward pass's forward output, the
// stage before dO; else the last stage.
const resultOf = ({ stages }) =>
  stages.findLast((s) => s.id === 'stacked') ??
  stages[stages.findIndex((s) => s.id === 'd_output') - 1] ??
  stages.at(-1);

// The fields trace.config adds for decoding, FlashAttention and pruning (steps.test.mjs and
// pruning.test.mjs check them), the designed heads' descriptions, the RoPE and ALiBi checks
// (position-checks.test.mjs), the costs and the causal prefix check (costs.test.mjs), each head's
// score variance (score-variance.test.mjs), the weight gradients' slope checks (below) and MLA's
// absorbed path against the decompressed one (mla.test.mjs).
const CHECKS = [
  'maxDifference',
  'stepDifferences',
  'cacheBytes',
  'cacheSlots',
  'slotTokens',
  'macs',
  'floats',
  'outputChange',
  'designedHeads',
  'ropeShift',
  'alibiRowShift',
  'softcapChange',
  'qkNormBound',
  'qkNormLargest',
  'qkNormWithout',
  'headSplit',
  'causalPrefix',
  'trainingPasses',
  'memoryTraffic',
  'scoreVariance',
  'gradientScaling',
  'gradientChecks',
  'absorbedDifference',
];
const withoutChecks = (config) => Object.fromEntries(Object.entries(config).filter(([k]) => !CHECKS.includes(k)));

// The four designed heads, each named for what it does, in head order.
const DESIGNED_HEADS = [
  'Previous token',
  'Same word (duplicate token)',
  'First token (attention sink)',
  'Uniform (broad)',
];

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
  assert.deepEqual(
    listed.map((p) => p.id),
    Object.keys(PRESETS),
  );
  for (const p of listed) assert.equal(p.spec.skip ?? 0, PRESETS[p.id].skip, `${p.id}: skip`);
  // The lesson's causal example draws on after the multi-head one: X, W_Q/W_K/W_V ×4, W_O.
  assert.equal(PRESETS['lesson-causal'].skip, 5 * 16 + 3 * 4 * 16 * 4 + 16 * 16);
  // The custom specs are no presets, and numpy used their own fields.
  assert.deepEqual(Object.keys(CUSTOM), [
    'weight-scale-1',
    'pruned-heads-1-3',
    'rope-dims-2-gqa',
    'alibi-3-heads',
    'kv-cache-rope-alibi-window',
    'prefix-documents-padding',
    'qk-norm-gains-gqa-rope',
    'qk-norm-kv-cache-window',
    'sink-tokens-window',
    'sink-tokens-kv-cache',
    'gradients-mha',
    'gradients-gqa-4-2-causal',
    'gradients-no-wo',
    'gradients-unscaled',
    'gradients-given-d-output',
    'gradients-window-alibi',
    'gradients-sinusoidal',
    'gradients-rope',
    'gradients-rope-half-split',
    'gradients-prefix-documents-padding',
    'mla-rope-causal',
    'mla-no-rope',
    'mla-half-split-base-100',
    'gradients-explicit',
    'mla-explicit',
  ]);
  for (const [name, { spec, sizes }] of Object.entries(CUSTOM)) {
    assert.equal(PRESETS[name], undefined, name);
    const scale = spec.X ? null : (spec.weightScale ?? 0.1); // explicit matrices: nothing drawn
    assert.deepEqual([sizes.weightScale, sizes.prunedHeads], [scale, spec.prunedHeads ?? []]);
    for (const field of ['window', 'prefix', 'validKeys']) assert.equal(sizes[field], spec[field] ?? null, field);
    const rope = spec.rope && { base: 10000, convention: 'interleaved', offset: 0, dims: sizes.dK, ...spec.rope };
    // MLA turns its d_r RoPE columns whenever it has them, from position 0, rope given or not.
    const latentRope = sizes.dRope > 0 && {
      base: 10000,
      convention: 'interleaved',
      ...spec.rope,
      offset: 0,
      dims: sizes.dRope,
    };
    assert.deepEqual(sizes.rope, (spec.kind === 'mla' ? latentRope : rope) || null, 'rope, its defaults filled in');
  }
});

// The config test of one case: the sizes numpy used, the K/V counts, the designed heads' names.
function assertConfig(trace, sizes) {
  const { skip: _skip, alibi: withAlibi, ...configSizes } = sizes;
  const { kv, masked, alibi, ...config } = withoutChecks(trace.config);
  assert.deepEqual(config, configSizes);
  assert.deepEqual(alibi && [...alibi], withAlibi ? alibiSlopes(sizes.numHeads) : null, 'ALiBi: the slopes');
  assert.equal(masked, hasMask(sizes), 'masked: the logits get M');
  assert.deepEqual(kv, kvCounts(sizes));
  const designed = trace.config.designedHeads?.map((h) => h.name);
  assert.deepEqual(designed, sizes.kind === 'designed' ? DESIGNED_HEADS : undefined);
}

describe('run: every preset and custom spec against numpy', () => {
  for (const [name, spec, sizes] of CASES) {
    describe(name, () => {
      const trace = engine.run(spec);

      test('config holds the sizes numpy used, the seed, the K/V counts (designed: the heads)', () => {
        assertConfig(trace, sizes);
      });

      if (sizes.kind === 'backward') {
        test('each weight gradient\u2019s largest entry is the central difference of \u27e8O, dO\u27e9', () => {
          const checks = trace.config.gradientChecks;
          assert.deepEqual(
            checks.map((g) => g.matrix),
            sizes.outputProjection ? ['W_Q', 'W_K', 'W_V', 'W_O'] : ['W_Q', 'W_K', 'W_V'],
          );
          for (const g of checks) {
            const id = `d_${g.matrix.toLowerCase()}`;
            const stage = trace.stages.find((s) => s.id === id && (s.head === 0 || s.head === null));
            const entries = Array.from(stage.values, Math.abs);
            assert.equal(stage.values[g.row * stage.shape[1] + g.col], g.analytic, `${id}: the stage's entry`);
            assert.equal(Math.abs(g.analytic), Math.max(...entries), `${id}: the largest`);
            assert.ok(Math.abs(g.numeric - g.analytic) <= 1e-7 * Math.max(1, Math.abs(g.analytic)), `${id}`);
          }
        });
      }

      if (PRESETS[name]) {
        test("the preset's spec, run as given, is the preset", () => {
          const again = engine.run(engine.presets().find((p) => p.id === name).spec);
          assert.deepEqual(again.config, trace.config);
          assertSameStages(again, trace);
        });
      }

      test('stage ids in the lesson order; head and kvHead are null only for whole-sequence stages', () => {
        assert.deepEqual(trace.stages.map(labelOf), expectedLabels(sizes));
        for (const s of trace.stages) {
          const at = labelOf(s);
          if (s.head === null) assert.equal(s.kvHead, null, `${at}: kvHead`);
          else assert.equal(s.kvHead, Math.floor(s.head / groupOf(sizes)), `${at}: kvHead`);
          assert.deepEqual(s.tile, expectedTile(s, sizes), `${at}: tile`);
        }
      });

      test('every stage matches numpy to 1e-12 (inputs exactly, masked −∞ as null)', () => {
        for (const s of trace.stages) {
          const at = labelOf(s);
          assert.ok(s.values instanceof Float64Array, `${at}: values is a Float64Array`);
          // The model's x is each layer's input stream, computed: not an input.
          assertClose(at, s, fixture(`${name}:${at}`), isExact(s.id) && sizes.kind !== 'model' ? 0 : 1e-12);
        }
      });

      test("the drawn or built weights and biases are numpy's exactly, and so are M and the gate", () => {
        const drawn = new Set();
        for (const [key, o, what] of comparable(name, trace)) {
          if (what !== 'drawn') continue;
          assertClose(key, o, fixture(key), sizes.kind === 'model' ? MODEL_DRAW_TOLERANCE : 0);
          if (!isBuilt(key)) drawn.add(key);
        }
        const { numHeads, numKvHeads, outputProjection, kind } = sizes;
        const biasesAndFfn = kind === 'encoder-layer' ? 4 : 0;
        const layer = numHeads + 2 * numKvHeads + (outputProjection ? 1 : 0);
        // MLA: W_DKV, each head's W_UK, W_UV and W_Q, with d_r > 0 W_KR and each head's W_QR, W_O.
        const latent = 1 + 3 * numHeads + (sizes.dRope > 0 ? 1 + numHeads : 0) + 1;
        if (kind === 'model') assert.equal(drawn.size, sizes.numLayers * layer + 1, 'every layer\u2019s, and W_U');
        else if (kind === 'mla') assert.equal(drawn.size, latent, 'W_DKV, W_UK, W_UV, W_Q, (W_KR, W_QR), W_O');
        else assert.equal(drawn.size, layer + biasesAndFfn);
      });

      test("each head's contribution and outputChange match numpy to 1e-12", () => {
        let count = 0;
        for (const [key, o, what] of comparable(name, trace)) {
          if (what !== 'computed') continue;
          assertClose(key, o, fixture(key), 1e-12);
          count += 1;
        }
        const { outputProjection, kind, numHeads, prunedHeads, alibi, positionalEncoding } = sizes;
        const perStep = kind === 'kv-cache' || kind === 'model'; // on a step: summed, not compared alone
        const contributions = outputProjection && !perStep ? numHeads : 0;
        // ALiBi's B per head (outside decoding), the sinusoidal PE.
        const positions = (alibi && kind !== 'kv-cache' ? numHeads : 0) + (positionalEncoding ? 1 : 0);
        assert.equal(count, contributions + positions + (prunedHeads.length > 0 ? 1 : 0));
      });

      const WEIGHTS_TOTALS =
        "weights rows sum to 1 (less a sink's share), d_scaled rows to 0: totals match numpy's; the rest carry none";
      test(WEIGHTS_TOTALS, () => {
        for (const s of trace.stages) {
          const at = labelOf(s);
          if (s.id === 'd_scaled') {
            const totals = { shape: [s.shape[0], 1], values: s.totals };
            assertClose(`${at} totals`, totals, fixture(`${name}:${at}:totals`), 1e-12);
            assertClose(`${at} totals`, totals, { shape: totals.shape, values: totals.values.map(() => 0) }, 1e-12);
            continue;
          }
          if (s.id === 'probabilities') {
            // The model's next-token distribution: each row sums to 1 (numpy's is the same softmax).
            const totals = { shape: [s.shape[0], 1], values: s.totals };
            assertClose(`${at} totals`, totals, { shape: totals.shape, values: totals.values.map(() => 1) }, 1e-12);
            continue;
          }
          if (s.id !== 'weights') {
            assert.equal(s.totals, null, `${at}: totals`);
            continue;
          }
          const totals = { shape: [s.shape[0], 1], values: s.totals };
          const key = `${name}:${label('totals', s.head, s.step)}`;
          assertClose(`${at} totals`, totals, fixture(key), 1e-12);
          const sink = trace.stages.find((x) => x.id === 'sink' && x.head === s.head && x.step === s.step);
          const ones = { shape: totals.shape, values: totals.values.map((_, i) => 1 - (sink ? sink.values[i] : 0)) };
          assertClose(`${at} totals`, totals, ones, 1e-12);
        }
      });

      test('every numpy matrix of the case was compared, and every comparable matrix has one', () => {
        const offered = new Set(Array.from(comparable(name, trace), ([key]) => key));
        const keys = Object.keys(fixtures().matrices).filter((k) => k.startsWith(`${name}:`));
        assert.deepEqual(
          keys.filter((k) => !offered.has(k)),
          [],
        );
        assert.deepEqual(
          [...offered].filter((k) => !keys.includes(k)),
          [],
        );
      });

      test('shapes, axes and equations of every stage', () => {
        for (const s of trace.stages) {
          const at = labelOf(s);
          const want = expectedForm(s.id, trace.config, s);
          assert.deepEqual(s.shape, want.shape, `${at}: shape`);
          assert.deepEqual(s.axes, want.axes, `${at}: axes`);
          assert.equal(s.values.length, s.shape[0] * s.shape[1], `${at}: values.length`);
          assert.deepEqual([s.equation, s.symbolic], [want.equation, want.symbolic], `${at}: equation`);
        }
      });

      test('forward() equals the result of run(): the last stage, or the stacked steps or blocks', () => {
        const out = engine.forward(spec);
        assertClose('forward', out, resultOf(trace), 0);
        assert.ok(out.values instanceof Float64Array);
      });

      if (sizes.outputProjection) {
        test('each output stage is the sum of its per-head contributions', () => {
          for (const output of trace.stages.filter((s) => s.id === 'output')) {
            const parts = output.operands.filter((o) => o.name === 'contribution');
            assert.deepEqual(
              parts.map((p) => p.head),
              Array.from({ length: sizes.numHeads }, (_, h) => h),
            );
            const sum = new Float64Array(output.values.length);
            for (const p of parts)
              p.values.forEach((v, i) => {
                sum[i] += v;
              });
            const total = { shape: output.shape, values: sum };
            assertClose(`Σ contributions of ${labelOf(output)}`, total, output, 1e-12);
          }
        });
      }

      if (['self', 'cross', 'backward', 'mla'].includes(sizes.kind)) {
        test('an explicit spec with the same matrices (and dO) gives the same trace (seed null)', () => {
          const explicit = engine.run(explicitSpecFor(name));
          // Nothing is drawn from explicit matrices: no seed, no weight scale (and the backward
          // pass's √d_k study, seeded by the run's seed, takes 42).
          const { gradientScaling: _study, ...config } = explicit.config;
          const { gradientScaling: _drawn, ...generated } = trace.config;
          assert.deepEqual(config, { ...generated, seed: null, weightScale: null });
          assertSameStages(explicit, trace);
          assertClose('forward(explicit)', engine.forward(explicitSpecFor(name)), resultOf(trace), 0);
        });
      }
    });
  }
});
