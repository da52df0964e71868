// run() and forward() through the WASM engine: the lesson's three presets against numpy,
// the stage order, shapes, equations and config, and explicit specs giving the same trace.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import {
  PRESETS, assertClose, expectedLabels, explicitSpecFor, fixture, fixtures, label, stageOf,
} from './support.mjs';

let engine;
before(async () => {
  engine = await createEngine();
});

// The equations every stage of a preset must show, numeric and symbolic.
function expectedEquations({ seqLen: t, dModel: d, numHeads: h, dK: dk, dV: dv }) {
  const tt = `(${t}, ${t})`;
  return {
    x: [`(${t}, ${d})`, '(T, d_model)'],
    q: [`(${t}, ${d}) @ (${d}, ${dk}) → (${t}, ${dk})`, '(T, d_model) @ (d_model, d_k) → (T, d_k)'],
    k: [`(${t}, ${d}) @ (${d}, ${dk}) → (${t}, ${dk})`, '(T, d_model) @ (d_model, d_k) → (T, d_k)'],
    v: [`(${t}, ${d}) @ (${d}, ${dv}) → (${t}, ${dv})`, '(T, d_model) @ (d_model, d_v) → (T, d_v)'],
    scores: [`(${t}, ${dk}) @ (${dk}, ${t}) → ${tt}`, '(T, d_k) @ (d_k, T) → (T, T)'],
    scaled: [`${tt} ÷ √${dk} → ${tt}`, '(T, T) ÷ √d_k → (T, T)'],
    masked: [`${tt} + mask ${tt} → ${tt}`, '(T, T) + mask (T, T) → (T, T)'],
    weights: [`softmax${tt} → ${tt}`, 'softmax(T, T) → (T, T)'],
    head: [`${tt} @ (${t}, ${dv}) → (${t}, ${dv})`, '(T, T) @ (T, d_v) → (T, d_v)'],
    concat: [`${h} × (${t}, ${dv}) → (${t}, ${h * dv})`, 'h × (T, d_v) → (T, h·d_v)'],
    output: [`(${t}, ${h * dv}) @ (${h * dv}, ${d}) → (${t}, ${d})`,
      '(T, h·d_v) @ (h·d_v, d_model) → (T, d_model)'],
  };
}

function expectedShape(id, { seqLen: t, dModel: d, numHeads: h, dK: dk, dV: dv }) {
  return {
    x: [t, d], q: [t, dk], k: [t, dk], v: [t, dv], scores: [t, t], scaled: [t, t], masked: [t, t],
    weights: [t, t], head: [t, dv], concat: [t, h * dv], output: [t, d],
  }[id];
}

// Asserts two traces hold the same stages, operands and values, exactly.
function assertSameStages(got, want) {
  assert.deepEqual(got.stages.map((s) => label(s.id, s.head)), want.stages.map((s) => label(s.id, s.head)));
  got.stages.forEach((s, i) => {
    const w = want.stages[i];
    const name = label(s.id, s.head);
    assert.equal(s.equation, w.equation, `${name}: equation`);
    assert.equal(s.symbolic, w.symbolic, `${name}: symbolic`);
    assertClose(name, s, w, 0);
    assert.deepEqual(s.operands.map((o) => label(o.name, o.head)), w.operands.map((o) => label(o.name, o.head)));
    s.operands.forEach((o, j) => assertClose(`${name} operand ${o.name}`, o, w.operands[j], 0));
  });
}

describe('run: the lesson presets', () => {
  for (const [preset, sizes] of Object.entries(PRESETS)) {
    describe(preset, () => {
      let trace;
      before(() => {
        trace = engine.run({ preset });
      });

      test('config holds the preset sizes and seed 42', () => {
        assert.deepEqual(trace.config, { ...sizes, scaleScores: true, seed: 42 });
      });

      test('stage ids in the lesson order; head is null only for x, concat and output', () => {
        assert.deepEqual(trace.stages.map((s) => label(s.id, s.head)), expectedLabels(sizes));
        for (const s of trace.stages) {
          const shared = ['x', 'concat', 'output'].includes(s.id);
          assert.equal(s.head === null, shared, `${label(s.id, s.head)}: head`);
          if (!shared) assert.ok(Number.isInteger(s.head), `${s.id}: head is an integer`);
        }
      });

      test('every stage matches numpy to 1e-12 (X exactly, masked −∞ as null)', () => {
        for (const s of trace.stages) {
          const name = label(s.id, s.head);
          assert.ok(s.values instanceof Float64Array, `${name}: values is a Float64Array`);
          assertClose(name, s, fixture(`${preset}:${name}`), s.id === 'x' ? 0 : 1e-12);
        }
      });

      test('the drawn weights (operands W_Q, W_K, W_V, W_O) match numpy to 1e-12', () => {
        let compared = 0;
        for (const s of trace.stages) {
          for (const o of s.operands.filter((op) => op.name.startsWith('W_'))) {
            assertClose(`${label(s.id, s.head)} operand ${o.name}`, o, fixture(`${preset}:${label(o.name, o.head)}`), 1e-12);
            compared += 1;
          }
        }
        assert.equal(compared, 3 * sizes.numHeads + (sizes.outputProjection ? 1 : 0));
      });

      test('every numpy matrix of the preset has its stage or operand', () => {
        const seen = new Set();
        for (const s of trace.stages) {
          seen.add(`${preset}:${label(s.id, s.head)}`);
          for (const o of s.operands) seen.add(`${preset}:${label(o.name, o.head)}`);
        }
        const keys = Object.keys(fixtures().matrices).filter((k) => k.startsWith(`${preset}:`));
        assert.deepEqual(keys.filter((k) => !seen.has(k)), []);
      });

      test('shapes and equations of every stage', () => {
        const equations = expectedEquations(sizes);
        for (const s of trace.stages) {
          const name = label(s.id, s.head);
          assert.deepEqual(s.shape, expectedShape(s.id, sizes), `${name}: shape`);
          assert.equal(s.values.length, s.shape[0] * s.shape[1], `${name}: values.length`);
          assert.deepEqual([s.equation, s.symbolic], equations[s.id], `${name}: equation`);
        }
      });

      test('forward() equals the last stage of run()', () => {
        const out = engine.forward({ preset });
        assertClose('forward', out, trace.stages.at(-1), 0);
        assert.ok(out.values instanceof Float64Array);
      });

      test('an explicit spec with the same matrices gives the same trace (seed null)', () => {
        const explicit = engine.run(explicitSpecFor(preset));
        assert.deepEqual(explicit.config, { ...sizes, scaleScores: true, seed: null });
        assertSameStages(explicit, trace);
        assertClose('forward(explicit)', engine.forward(explicitSpecFor(preset)), trace.stages.at(-1), 0);
      });
    });
  }
});

describe('run: other specs', () => {
  test('the multi-head example in numbers: q is (5, 16) @ (16, 4) → (5, 4)', () => {
    const q = stageOf(engine.run({ preset: 'lesson-multi-head' }), 'q', 0);
    assert.equal(q.equation, '(5, 16) @ (16, 4) → (5, 4)');
    assert.equal(q.symbolic, '(T, d_model) @ (d_model, d_k) → (T, d_k)');
  });

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
    const out = engine.forward(spec);
    assertClose('forward', out, fixture('lesson-multi-head:concat'), 1e-12);
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
    const sizes = { seqLen: 6, dModel: 9, numHeads: 3, dK: 2, dV: 5, causal: true, outputProjection: true };
    assert.deepEqual(trace.config, { ...sizes, scaleScores: true, seed: 7 });
    assert.deepEqual(trace.stages.map((s) => label(s.id, s.head)), expectedLabels(sizes));
    const equations = expectedEquations(sizes);
    for (const s of trace.stages) {
      assert.deepEqual(s.shape, expectedShape(s.id, sizes), `${label(s.id, s.head)}: shape`);
      assert.deepEqual([s.equation, s.symbolic], equations[s.id], `${label(s.id, s.head)}: equation`);
    }
    assertClose('forward', engine.forward(spec), stageOf(trace, 'output'), 0);
  });

  test('the output stage is the sum of its per-head contributions', () => {
    const output = stageOf(engine.run({ preset: 'lesson-multi-head' }), 'output');
    const parts = output.operands.filter((o) => o.name === 'contribution');
    assert.deepEqual(parts.map((p) => p.head), [0, 1, 2, 3]);
    const sum = new Float64Array(output.values.length);
    for (const p of parts) p.values.forEach((v, i) => { sum[i] += v; });
    assertClose('Σ contributions', { shape: output.shape, values: sum }, output, 1e-12);
  });

  test('results are copies: changing one run leaves the next untouched', () => {
    const first = engine.run({ preset: 'lesson-causal' });
    const keep = Float64Array.from(stageOf(first, 'weights', 0).values);
    stageOf(first, 'weights', 0).values.fill(7);
    assertClose('weights', stageOf(engine.run({ preset: 'lesson-causal' }), 'weights', 0), { shape: [4, 4], values: keep }, 0);
  });
});
