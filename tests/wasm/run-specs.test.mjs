// run() and forward() through the WASM engine on specs of each kind worked out in numbers (the
// lesson's shapes, the causal mask, cross-attention with padding, grouped-query K/V, the encoder
// layer) and on specs that are no preset: explicit matrices of every shape, d_k ≠ d_v, results
// that are copies. Every preset and custom spec against numpy: run.test.mjs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { expectedForm, expectedLabels, kvCounts } from './forms.mjs';
import { assertClose, explicitSpecFor, fixture, label, stageOf } from './support.mjs';

const engine = await createEngine();

describe('run: each kind in numbers', () => {
  const run = (preset, id, head = null) => stageOf(engine.run({ preset }), id, head);
  const equations = (s) => [s.equation, s.symbolic];

  test('the multi-head example: q is (5, 16) @ (16, 4) → (5, 4)', () => {
    assert.deepEqual(equations(run('lesson-multi-head', 'q', 0)), [
      '(5, 16) @ (16, 4) → (5, 4)',
      '(T, d_model) @ (d_model, d_k) → (T, d_k)',
    ]);
  });

  test('the causal mask is added: (4, 4) + (4, 4) → (4, 4), with M an operand', () => {
    const masked = run('lesson-causal', 'masked', 0);
    assert.deepEqual(equations(masked), ['(4, 4) + (4, 4) → (4, 4)', '(T, T) + (T, T) → (T, T)']);
    assert.deepEqual(
      masked.operands.map((o) => label(o.name, o.head)),
      ['scaled/0', 'M'],
    );
  });

  test('cross-attention: queries from X_q (2 tokens), keys from X_kv (3 tokens)', () => {
    assert.deepEqual(equations(run('cross-translation', 'scores', 1)), [
      '(2, 4) @ (4, 3) → (2, 3)',
      '(T_q, d_k) @ (d_k, T_kv) → (T_q, T_kv)',
    ]);
    assert.deepEqual(equations(run('cross-translation', 'k', 0)), [
      '(3, 8) @ (8, 4) → (3, 4)',
      '(T_kv, d_model) @ (d_model, d_k) → (T_kv, d_k)',
    ]);
    assert.deepEqual(
      run('cross-translation', 'v', 1).operands.map((o) => o.name),
      ['X_kv', 'W_V'],
    );
  });

  test('cross-attention with padding: no query puts weight on the padded key', () => {
    const weights = run('cross-padding', 'weights', 0);
    assert.deepEqual([weights.values[3], weights.values[7]], [0, 0]);
  });

  test('grouped-query: k and v once per K/V head, at the first query head of its group', () => {
    const trace = engine.run({ preset: 'gqa-4-2' });
    const kv = trace.stages.filter((s) => s.id === 'k' || s.id === 'v');
    assert.deepEqual(
      kv.map((s) => [label(s.id, s.head), s.kvHead]),
      [
        ['k/0', 0],
        ['v/0', 0],
        ['k/2', 1],
        ['v/2', 1],
      ],
    );
    assert.deepEqual(
      trace.stages.filter((s) => s.id === 'q').map((s) => s.kvHead),
      [0, 0, 1, 1],
    );
    const mqa = engine.run({ preset: 'mqa-4-1' });
    assert.deepEqual(
      mqa.stages.filter((s) => s.id === 'k').map((s) => s.head),
      [0],
    );
  });

  test('the encoder layer: residual, norm, the position-wise network', () => {
    assert.deepEqual(equations(run('encoder-layer', 'ffn_pre')), [
      '(5, 16) @ (16, 64) + (64) → (5, 64)',
      '(T, d_model) @ (d_model, d_ff) + (d_ff) → (T, d_ff)',
    ]);
    assert.deepEqual(equations(run('encoder-layer', 'norm1')), [
      'norm(5, 16) → (5, 16)',
      'norm(T, d_model) → (T, d_model)',
    ]);
    assert.deepEqual(equations(run('encoder-layer', 'ffn_hidden')), [
      'ReLU(5, 64) → (5, 64)',
      'ReLU(T, d_ff) → (T, d_ff)',
    ]);
    assert.deepEqual(equations(run('encoder-layer', 'residual2')), [
      '(5, 16) + (5, 16) → (5, 16)',
      '(T, d_model) + (T, d_model) → (T, d_model)',
    ]);
  });
});

describe('run: other specs', () => {
  test('explicit single head without W_O ends at head', () => {
    const { W_O: _unused, ...spec } = explicitSpecFor('lesson-multi-head');
    spec.W_Q = spec.W_Q.slice(0, 1);
    spec.W_K = spec.W_K.slice(0, 1);
    spec.W_V = spec.W_V.slice(0, 1);
    const trace = engine.run(spec);
    assert.deepEqual(
      trace.stages.map((s) => label(s.id, s.head)),
      expectedLabels({ numHeads: 1 }),
    );
    assert.equal(trace.config.outputProjection, false);
    assertClose('head/0', stageOf(trace, 'head', 0), fixture('lesson-multi-head:head/0'), 1e-12);
    assertClose('forward', engine.forward(spec), stageOf(trace, 'head', 0), 0);
  });

  test('explicit multi-head without W_O: forward is the heads side by side', () => {
    const { W_O: _unused, ...spec } = explicitSpecFor('lesson-multi-head');
    assertClose('forward', engine.forward(spec), fixture('lesson-multi-head:concat'), 1e-12);
  });

  test("explicit grouped-query: two W_K and W_V for four W_Q give numpy's gqa-4-2", () => {
    const spec = explicitSpecFor('gqa-4-2');
    assert.deepEqual([spec.W_Q.length, spec.W_K.length, spec.W_V.length], [4, 2, 2]);
    const trace = engine.run(spec);
    assert.equal(trace.config.numKvHeads, 2);
    assertClose('scores/3', stageOf(trace, 'scores', 3), fixture('gqa-4-2:scores/3'), 1e-12);
    assertClose('output', stageOf(trace, 'output'), fixture('gqa-4-2:output'), 1e-12);
  });

  test("explicit cross-attention with validKeys gives numpy's cross-padding", () => {
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
      kind: 'self',
      seqLen: 6,
      kvLen: 6,
      dModel: 9,
      numHeads: 3,
      numKvHeads: 3,
      dK: 2,
      dV: 5,
      dFF: null,
      validKeys: null,
      causal: true,
      outputProjection: true,
      scaleScores: true,
      blockRows: null,
      blockCols: null,
      weightScale: 0.1,
      prunedHeads: [],
    };
    const { kv, headSplit, causalPrefix, trainingPasses, scoreVariance, ...config } = trace.config;
    assert.ok(headSplit && causalPrefix.length === 6 && trainingPasses.withoutMask === 32 * 6); // costs.test.mjs
    assert.deepEqual(
      scoreVariance.map((v) => [v.head, v.entries]),
      [0, 1, 2].map((h) => [h, 21]),
    );
    assert.deepEqual(config, {
      ...sizes,
      seed: 7,
      masked: true,
      window: null,
      sinkTokens: null,
      prefix: null,
      documents: [],
      alibi: null,
      softcap: null,
      qkNorm: null,
      qNormGain: null,
      kNormGain: null,
      sinks: null,
      positionalEncoding: null,
      rope: null,
    });
    assert.deepEqual(kv, kvCounts(sizes));
    assert.deepEqual(
      trace.stages.map((s) => label(s.id, s.head)),
      expectedLabels(sizes),
    );
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
