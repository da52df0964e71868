// The heads' features through the WASM engine: engine.pruneEach (each entry a run with that head
// alone pruned, and the relative Frobenius change worked out here from two runs' outputs), a
// pruned run's stages (gate, pruned concat, output, contributions; outputChange by hand on a
// tiny spec), weightScale against engine.randn, and the designed presets' patterns and config.
// Against numpy: run.test.mjs; refused input: errors-heads.test.mjs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { assertClose, stageOf } from './support.mjs';

const engine = await createEngine();

const at = (m, row, col) => m.values[row * m.shape[1] + col];
const operand = (s, name, head = null) => s.operands.find((o) => o.name === name && o.head === head);

// ‖a − b‖ / ‖b‖ in the Frobenius norm.
function relativeChange(a, b) {
  let diff = 0;
  let norm = 0;
  a.values.forEach((v, i) => {
    diff += (v - b.values[i]) ** 2;
    norm += b.values[i] ** 2;
  });
  return Math.sqrt(diff / norm);
}

// (m, k) @ (k, n) by the textbook loop.
function matmul(a, b) {
  const [m, k] = a.shape;
  const n = b.shape[1];
  const values = new Float64Array(m * n);
  for (let i = 0; i < m; i += 1) {
    for (let j = 0; j < n; j += 1) {
      for (let p = 0; p < k; p += 1) values[i * n + j] += at(a, i, p) * at(b, p, j);
    }
  }
  return { shape: [m, n], values };
}

// The presets whose kind has W_O to prune before: self with W_O, cross, encoder, designed.
const PRUNABLE = engine
  .presets()
  .filter(
    ({ id, spec }) =>
      ['self', 'cross', 'encoder-layer', 'designed'].includes(spec.kind) &&
      engine.run({ preset: id }).config.outputProjection,
  );

describe('pruneEach', () => {
  test('the prunable presets are the ones with W_O', () => {
    assert.deepEqual(
      PRUNABLE.map((p) => p.id),
      [
        'lesson-multi-head',
        'cross-translation',
        'cross-padding',
        'gqa-4-2',
        'mqa-4-1',
        'gqa-4-4',
        'encoder-layer',
        'designed-heads',
        'designed-heads-causal',
        'positions-rope',
        'positions-rope-half-split',
        'positions-alibi',
        'positions-sinusoidal',
        'masks-window',
        'masks-prefix',
        'masks-documents',
        'masks-padding',
        'masks-causal',
        'modern-softcap',
        'modern-qk-norm',
        'modern-sinks',
      ],
    );
  });

  for (const { id, spec } of PRUNABLE) {
    test(`${id}: each entry is a run with that head alone pruned, and the Frobenius change by hand`, () => {
      const whole = stageOf(engine.run(spec), 'output');
      const each = engine.pruneEach({ preset: id });
      assert.deepEqual(
        each.map((e) => e.head),
        Array.from({ length: each.length }, (_, h) => h),
      );
      assert.equal(each.length, engine.run(spec).config.numHeads);
      for (const { head, change } of each) {
        const pruned = engine.run({ ...spec, prunedHeads: [head] });
        assert.equal(change, pruned.config.outputChange, `head ${head}`);
        const byHand = relativeChange(stageOf(pruned, 'output'), whole);
        assert.ok(Math.abs(change - byHand) <= 1e-14 * byHand, `head ${head}: ${change} vs ${byHand}`);
        assert.ok(change > 0 && change < 10, `head ${head}: ${change}`);
      }
      // Heads already pruned in the spec are put back: each head is pruned alone.
      assert.deepEqual(engine.pruneEach({ ...spec, prunedHeads: [0] }), each);
    });
  }
});

describe('a pruned run', () => {
  const spec = { seqLen: 5, dModel: 16, numHeads: 4, prunedHeads: [1, 3] };
  const trace = engine.run(spec);
  const whole = engine.run({ ...spec, prunedHeads: [] });

  test("pruned = concat with heads 1 and 3's columns 0; output = pruned · W_O", () => {
    const concat = stageOf(trace, 'concat');
    const pruned = stageOf(trace, 'pruned');
    assertClose('concat', concat, stageOf(whole, 'concat'), 0);
    assertClose('operand concat', operand(pruned, 'concat'), concat, 0);
    const gate = operand(pruned, 'gate');
    assert.deepEqual([...gate.values], [1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0]);
    const kept = concat.values.map((v, i) => v * gate.values[i % 16]);
    assertClose('pruned', pruned, { shape: concat.shape, values: kept }, 0);
    const output = stageOf(trace, 'output');
    assertClose('operand pruned', operand(output, 'pruned'), pruned, 0);
    assertClose('output', output, matmul(pruned, operand(output, 'W_O')), 1e-12);
  });

  test('heads 1 and 3 contribute exactly 0; heads 0 and 2 what they did unpruned', () => {
    const output = stageOf(trace, 'output');
    const before = stageOf(whole, 'output');
    for (const h of [0, 1, 2, 3]) {
      const part = operand(output, 'contribution', h);
      const zero = { shape: part.shape, values: part.values.map(() => 0) };
      const want = [1, 3].includes(h) ? zero : operand(before, 'contribution', h);
      assertClose(`contribution/${h}`, part, want, 0);
    }
    assert.equal(whole.config.outputChange, undefined);
    assert.ok(Math.abs(trace.config.outputChange - relativeChange(output, before)) <= 1e-15);
  });

  test('outputChange by hand: two tokens, two heads of ½, ½ weights, W_O = diag(1, 2)', () => {
    // concat = ½ everywhere; output = [[½, 1], [½, 1]], ‖output‖² = 2.5. Without head 1:
    // ‖Δ‖² = 2 → √0.8; without head 0: ‖Δ‖² = 0.5 → √0.2; without both: 1.
    const tiny = (prunedHeads) => ({
      X: [
        [1, 0],
        [0, 1],
      ],
      W_Q: [
        [[0], [0]],
        [[0], [0]],
      ],
      W_K: [
        [[0], [0]],
        [[0], [0]],
      ],
      W_V: [
        [[1], [0]],
        [[0], [1]],
      ],
      W_O: [
        [1, 0],
        [0, 2],
      ],
      prunedHeads,
    });
    assert.ok(Math.abs(engine.run(tiny([1])).config.outputChange - Math.sqrt(0.8)) <= 1e-15);
    assert.ok(Math.abs(engine.run(tiny([0])).config.outputChange - Math.sqrt(0.2)) <= 1e-15);
    assert.equal(engine.run(tiny([0, 1])).config.outputChange, 1);
    assertClose('output', stageOf(engine.run(tiny([1])), 'output'), { shape: [2, 2], values: [0.5, 0, 0.5, 0] }, 0);
    const each = engine.pruneEach(tiny([]));
    assert.ok(Math.abs(each[0].change - Math.sqrt(0.2)) <= 1e-15 && Math.abs(each[1].change - Math.sqrt(0.8)) <= 1e-15);
  });
});

describe('weightScale', () => {
  // lesson-multi-head's sizes: X (5 × 16) = 80 normals, then W_Q/0 (16 × 4) = 64.
  const normals = engine.randn(42, 1, 80 + 64); // a Float64Array
  const run = (weightScale) => engine.run({ seqLen: 5, dModel: 16, numHeads: 4, weightScale });
  const wq0 = (scale) => operand(stageOf(run(scale), 'q', 0), 'W_Q', 0);

  test('W_Q/0 is engine.randn · weightScale exactly; X is not scaled', () => {
    for (const scale of [1, 0.1, 2.5, 10]) {
      const want = { shape: [16, 4], values: normals.slice(80).map((v) => v * scale) };
      assertClose(`W_Q/0 at ${scale}`, wq0(scale), want, 0);
    }
    const x = stageOf(run(7), 'x');
    assertClose('X', x, { shape: [5, 16], values: normals.slice(0, 80) }, 0);
  });

  test('the config reports it: 0.1 by default, null for the designed heads', () => {
    assert.equal(engine.run({ seqLen: 2, dModel: 2 }).config.weightScale, 0.1);
    assert.equal(engine.run({ seqLen: 2, dModel: 2, weightScale: 3 }).config.weightScale, 3);
    assert.equal(engine.run({ preset: 'designed-heads' }).config.weightScale, null);
  });
});

describe('the designed presets through JS', () => {
  for (const preset of ['designed-heads', 'designed-heads-causal']) {
    test(`${preset}: previous token, same word, sink ≥ 0.9; broad uniform; no seed`, () => {
      const trace = engine.run({ preset });
      const { causal, seqLen, seed } = trace.config;
      assert.equal(seed, null);
      const words = ['the', 'cat', 'sat', 'on', 'the', 'mat'];
      const w = [0, 1, 2, 3].map((h) => stageOf(trace, 'weights', h));
      for (let i = 0; i < seqLen; i += 1) {
        const visible = causal ? i + 1 : seqLen;
        if (i > 0) assert.ok(at(w[0], i, i - 1) >= 0.9, `row ${i}: previous`);
        let own = 0;
        for (let j = 0; j < visible; j += 1) own += words[j] === words[i] ? at(w[1], i, j) : 0;
        assert.ok(own >= 0.9, `row ${i}: same word ${own}`);
        assert.ok(at(w[2], i, 0) >= 0.9, `row ${i}: sink`);
        for (let j = 0; j < seqLen; j += 1) {
          assert.ok(Math.abs(at(w[3], i, j) - (j < visible ? 1 / visible : 0)) <= 1e-15, `row ${i}: broad`);
        }
      }
    });
  }
});
