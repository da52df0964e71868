// Numerics at the edges, through the JS engine (tests/native/test_edges.cpp does the same in C++):
// the largest logits a spec allows (explicit entries are capped at ±1e6, so ±1e300 logits are
// tested natively only), rows whose keys are all masked (impossible: key 0 is visible to every
// query; the closest rows are exact one-hots), T = 1, d_k = 1, d_model = 1, denormal weights and
// inputs. Every value is finite (−∞ only where a mask hides a key) and exact answers are exact.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { assertRefused } from './support.mjs';

let engine;
before(async () => {
  engine = await createEngine();
});

// Where −∞ may appear: masked logits, the mask M, tile scores, and the running max m before a
// row's first key.
const MAY_HIDE = new Set(['masked', 'M', 'tile_scores', 'm']);

function assertFinite(trace) {
  const check = (where, name, values) => {
    const bad = values.findIndex((v) => !(Number.isFinite(v) || (MAY_HIDE.has(name) && v === -Infinity)));
    assert.equal(bad, -1, `${where}: value ${bad} is ${values[bad]}`);
  };
  for (const s of trace.stages) {
    const where = `${s.id}/${s.head}@${s.step}`;
    check(where, s.id, s.values);
    for (const o of s.operands) check(`${where} operand ${o.name}/${o.head}`, o.name, o.values);
  }
}

const stagesOf = (trace, id) => trace.stages.filter((s) => s.id === id);
const stageOf = (trace, id, head = null, step = null) =>
  trace.stages.find((s) => s.id === id && s.head === head && (step === null || s.step === step));
const operandOf = (stage, name) => stage.operands.find((o) => o.name === name);
const rowOf = ({ shape, values }, r) => Array.from(values.subarray(r * shape[1], (r + 1) * shape[1]));
const isSubnormal = (v) => v !== 0 && Math.abs(v) < 2.2250738585072014e-308;

describe('edges: the largest logits a spec allows', () => {
  test('±1e6 entries at d_model 1024, d_k 1: logits of ±1.05e30 give exact one-hot weights', () => {
    const D = 1024;
    const column = (v) => Array.from({ length: D }, () => [v]);
    const spec = {
      X: [Array(D).fill(1e6), Array(D).fill(-1e6)],
      W_Q: [column(1e6)],
      W_K: [column(1e6)],
      W_V: [column(1)],
    };
    for (const causal of [false, true]) {
      const trace = engine.run({ ...spec, causal });
      assertFinite(trace);
      const scores = stageOf(trace, 'scores', 0).values;
      assert.ok(Math.abs(scores[0]) > 1e30, `|logit| ${scores[0]}`);
      assert.deepEqual(Array.from(stageOf(trace, 'scaled', 0).values), Array.from(scores), 'd_k = 1: ÷ 1');
      assert.deepEqual(Array.from(stageOf(trace, 'weights', 0).values), [1, 0, 0, 1]);
      assert.deepEqual(Array.from(stageOf(trace, 'head', 0).values), [1.024e9, -1.024e9]);
    }
  });
});

describe('edges: no row has every key masked; the closest rows are exact', () => {
  test('validKeys 0 is refused by name, and the engine serves the next call', () => {
    assertRefused(
      engine,
      () => engine.run({ kind: 'cross', queryLen: 2, keyLen: 3, dModel: 4, validKeys: 0 }),
      'validKeys',
    );
    assert.equal(
      engine.run({ preset: 'cross-padding' }).config.validKeys,
      engine.presets().find((p) => p.id === 'cross-padding').spec.validKeys,
    );
  });

  test('validKeys 1: every query puts exactly 1 on key 0 and reads V row 0', () => {
    const trace = engine.run({ kind: 'cross', queryLen: 3, keyLen: 4, dModel: 8, numHeads: 2, validKeys: 1 });
    assertFinite(trace);
    for (const w of stagesOf(trace, 'weights')) {
      assert.deepEqual(Array.from(w.values), [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], `weights/${w.head}`);
      const head = stageOf(trace, 'head', w.head);
      const v0 = rowOf(operandOf(head, 'V'), 0);
      for (let r = 0; r < 3; r += 1) assert.deepEqual(rowOf(head, r), v0, `head/${w.head} row ${r}`);
    }
  });

  test('causal row 0 sees key 0 alone', () => {
    const trace = engine.run({ seqLen: 4, dModel: 8, numHeads: 2, causal: true });
    assertFinite(trace);
    for (const w of stagesOf(trace, 'weights')) {
      assert.deepEqual(rowOf(w, 0), [1, 0, 0, 0], `weights/${w.head}`);
      const head = stageOf(trace, 'head', w.head);
      assert.deepEqual(rowOf(head, 0), rowOf(operandOf(head, 'V'), 0), `head/${w.head} row 0`);
    }
  });

  test('a FlashAttention tile row that sees no key keeps m, l and O exactly', () => {
    for (const blockRows of [4, 3, 2]) {
      const trace = engine.run({
        kind: 'flash',
        seqLen: 4,
        dModel: 6,
        dK: 3,
        dV: 2,
        blockRows,
        blockCols: 1,
        causal: true,
      });
      assertFinite(trace);
      let hidden = 0;
      for (const out of stagesOf(trace, 'tile_out')) {
        const [q0] = out.tile.queryRows;
        const [k0] = out.tile.keyRows;
        const max = trace.stages.find((s) => s.id === 'tile_max' && s.step === out.step);
        const sum = trace.stages.find((s) => s.id === 'tile_sum' && s.step === out.step);
        const scores = trace.stages.find((s) => s.id === 'tile_scores' && s.step === out.step);
        for (let r = 0; q0 + r < k0 && r < out.shape[0]; r += 1) {
          hidden += 1;
          const at = `B_r ${blockRows}, tile ${out.step}, row ${r}`;
          assert.equal(scores.values[r], -Infinity, at);
          assert.equal(max.values[r], operandOf(max, 'm').values[r], `${at}: m`);
          assert.equal(operandOf(sum, 'α').values[r], 1, `${at}: α`);
          assert.equal(operandOf(sum, 'P').values[r], 0, `${at}: P`);
          assert.equal(sum.values[r], operandOf(sum, 'l').values[r], `${at}: l`);
          assert.deepEqual(rowOf(out, r), rowOf(operandOf(out, 'O'), r), `${at}: O`);
        }
      }
      assert.ok(hidden > 0, 'some tile rows see no key');
      assert.ok(trace.config.maxDifference <= 1e-12, `maxDifference ${trace.config.maxDifference}`);
    }
  });
});

describe('edges: T = 1, d_k = 1, d_model = 1', () => {
  const ONE_TOKEN = [
    { seqLen: 1, dModel: 4, numHeads: 2 },
    { seqLen: 1, dModel: 4, numHeads: 2, causal: true },
    { seqLen: 1, dModel: 4, numHeads: 4, numKvHeads: 1 },
    { kind: 'cross', queryLen: 1, keyLen: 1, dModel: 4, numHeads: 2, validKeys: 1 },
    { kind: 'encoder-layer', seqLen: 1, dModel: 4, numHeads: 2, causal: true },
    { kind: 'kv-cache', seqLen: 1, dModel: 4, numHeads: 2 },
    { kind: 'flash', seqLen: 1, dModel: 4, dK: 2, dV: 2, blockRows: 1, blockCols: 1, causal: true },
    { kind: 'designed', tokens: ['solo'] },
  ];
  for (const spec of ONE_TOKEN) {
    test(`T = 1: ${JSON.stringify(spec)}: weights exactly 1, V's row passes through`, () => {
      const trace = engine.run(spec);
      assertFinite(trace);
      for (const w of stagesOf(trace, 'weights')) {
        assert.deepEqual(Array.from(w.values), [1], `weights/${w.head}@${w.step}`);
        const head = trace.stages.find((s) => s.id === 'head' && s.head === w.head && s.step === w.step);
        assert.deepEqual(Array.from(head.values), rowOf(operandOf(head, 'V'), 0), `head/${w.head}`);
      }
      if (trace.config.maxDifference !== undefined && trace.config.maxDifference !== null) {
        assert.equal(trace.config.maxDifference, 0, 'one row: the same numbers both ways');
      }
      assert.ok(engine.forward(spec).values.every(Number.isFinite), 'forward');
    });
  }

  test('d_k = 1: scaled equals scores bit for bit', () => {
    for (const spec of [
      { seqLen: 5, dModel: 4, numHeads: 4 },
      { seqLen: 3, dModel: 1, causal: true },
    ]) {
      const trace = engine.run(spec);
      assertFinite(trace);
      for (const s of stagesOf(trace, 'scaled')) {
        assert.deepEqual(Array.from(s.values), Array.from(stageOf(trace, 'scores', s.head).values), `scaled/${s.head}`);
      }
    }
  });

  test('d_model = 1: x − mean is 0, so both layer norms are exactly 0 and ffn_pre is b1', () => {
    const trace = engine.run({ kind: 'encoder-layer', seqLen: 3, dModel: 1, dFF: 4 });
    assertFinite(trace);
    assert.deepEqual(Array.from(stageOf(trace, 'norm1').values, Math.abs), [0, 0, 0]);
    assert.deepEqual(Array.from(stageOf(trace, 'norm2').values, Math.abs), [0, 0, 0]);
    const pre = stageOf(trace, 'ffn_pre');
    const b1 = Array.from(operandOf(pre, 'b1').values);
    for (let r = 0; r < 3; r += 1) assert.deepEqual(rowOf(pre, r), b1, `ffn_pre row ${r}`);
  });
});

describe('edges: denormals', () => {
  const KINDS = [
    { seqLen: 4, dModel: 8, numHeads: 2 },
    { seqLen: 4, dModel: 8, numHeads: 2, causal: true },
    { kind: 'encoder-layer', seqLen: 4, dModel: 8, numHeads: 2, dFF: 16 },
    { kind: 'kv-cache', seqLen: 4, dModel: 8, numHeads: 2 },
    { kind: 'flash', seqLen: 4, dModel: 8, dK: 4, dV: 4, blockRows: 2, blockCols: 2, causal: true },
  ];
  for (const spec of KINDS) {
    const name = `${spec.kind ?? 'self'}${spec.causal ? ', causal' : ''}`;
    test(`weightScale 5e-324: ${name}: scores underflow to exactly 0`, () => {
      const trace = engine.run({ ...spec, weightScale: 5e-324 });
      assertFinite(trace);
      for (const s of [...stagesOf(trace, 'scores'), ...stagesOf(trace, 'scaled')]) {
        assert.ok(
          s.values.every((v) => v === 0),
          `${s.id}/${s.head}@${s.step}`,
        );
      }
      if (!spec.causal && spec.kind !== 'kv-cache') {
        for (const w of stagesOf(trace, 'weights'))
          assert.ok(
            w.values.every((v) => v === 0.25),
            `weights/${w.head}: 1/T`,
          );
      }
      const out = trace.stages.at(-1);
      assert.ok(out.values.every(Number.isFinite), out.id);
      if (trace.config.maxDifference !== undefined)
        assert.ok(trace.config.maxDifference <= 5e-324, 'at most a subnormal apart');
    });
  }

  test('weightScale 1e-160: subnormal scores, exactly uniform weights', () => {
    const trace = engine.run({ seqLen: 4, dModel: 8, numHeads: 2, weightScale: 1e-160 });
    assertFinite(trace);
    assert.ok(
      stagesOf(trace, 'scores').some((s) => s.values.some(isSubnormal)),
      'some scores are subnormal',
    );
    for (const w of stagesOf(trace, 'weights'))
      assert.ok(
        w.values.every((v) => v === 0.25),
        `weights/${w.head}`,
      );
  });

  test('explicit subnormal X: products underflow to exactly 0', () => {
    const I2 = [
      [1, 0],
      [0, 1],
    ];
    const trace = engine.run({
      X: [
        [5e-324, 0],
        [0, -5e-324],
      ],
      W_Q: [I2],
      W_K: [I2],
      W_V: [I2],
      W_O: I2,
    });
    assertFinite(trace);
    assert.ok(stageOf(trace, 'q', 0).values.filter(isSubnormal).length === 2, 'q keeps the subnormals');
    assert.deepEqual(Array.from(stageOf(trace, 'scores', 0).values, Math.abs), [0, 0, 0, 0]);
    assert.deepEqual(Array.from(stageOf(trace, 'weights', 0).values), [0.5, 0.5, 0.5, 0.5]);
    assert.ok(stageOf(trace, 'output').values.every((v) => Math.abs(v) <= 5e-324));
  });
});
