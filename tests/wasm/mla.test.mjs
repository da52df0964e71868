// Kind mla (multi-head latent attention, DeepSeek-V2 §2.1) through the WASM engine's API: the
// absorbed path's check on every case numpy computed, the absorbed scores and heads recomputed
// here from the trace's own operands, the per-token cache counts by hand, MLA without its RoPE
// part as self-attention with W_K = W_DKV·W_UK and W_V = W_DKV·W_UV, and the refusals by name.
// Every stage against numpy: run.test.mjs; every cell's explanation: explain.test.mjs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { CASES, CUSTOM, assertClose, assertRefused, stageOf } from './support.mjs';

const engine = await createEngine();

const LATENT = CASES.filter(([, , sizes]) => sizes.kind === 'mla');

// A trace matrix { shape, values } as rows, and back; plain products of rows.
const rowsOf = ({ shape: [r, c], values }) =>
  Array.from({ length: r }, (_, i) => Array.from(values.slice(i * c, (i + 1) * c)));
const matrixOf = (rows) => ({ shape: [rows.length, rows[0].length], values: Float64Array.from(rows.flat()) });
const transpose = (a) => a[0].map((_, j) => a.map((row) => row[j]));
const matmul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((sum, x, k) => sum + x * b[k][j], 0)));
const add = (a, b) => a.map((row, i) => row.map((x, j) => x + b[i][j]));
const operand = (stage, name) => {
  const found = stage.operands.find((o) => o.name === name);
  assert.ok(found, `${stage.id}/${stage.head}: no operand ${name}`);
  return rowsOf(found);
};

test('mla: the cases numpy computed are the preset and the four custom specs', () => {
  assert.deepEqual(
    LATENT.map(([name]) => name),
    ['modern-mla', 'mla-rope-causal', 'mla-no-rope', 'mla-half-split-base-100', 'mla-explicit'],
  );
});

describe('mla: the absorbed path gives the decompressed one', () => {
  for (const [name, spec, sizes] of LATENT) {
    test(`${name}: absorbedDifference ≤ 1e-12`, () => {
      const { absorbedDifference } = engine.run(spec).config;
      assert.equal(typeof absorbedDifference, 'number', 'reported');
      assert.ok(absorbedDifference >= 0 && absorbedDifference <= 1e-12, `${absorbedDifference}`);
    });

    // Because W_UK is linear, q·kᵀ = (q·W_UKᵀ)·c_kvᵀ; and weights·V = (weights·c_kv)·W_UV.
    test(`${name}: each head's scores and head recomputed here by the absorbed route, to 1e-12`, () => {
      const trace = engine.run(spec);
      const cKv = rowsOf(stageOf(trace, 'c_kv'));
      for (let h = 0; h < sizes.numHeads; h += 1) {
        const q = rowsOf(stageOf(trace, 'q', h));
        const wUk = operand(stageOf(trace, 'k', h), 'W_UK');
        const absorbed = matmul(q, transpose(wUk)); // (T, d_c)
        assertClose(`q_absorbed/${h}`, stageOf(trace, 'q_absorbed', h), matrixOf(absorbed), 1e-12);
        let scores = matmul(absorbed, transpose(cKv));
        if (sizes.dRope > 0) {
          const [qRope, kRope] = [rowsOf(stageOf(trace, 'q_rope', h)), rowsOf(stageOf(trace, 'k_rope'))];
          scores = add(scores, matmul(qRope, transpose(kRope)));
        }
        assertClose(`scores/${h}`, stageOf(trace, 'scores', h), matrixOf(scores), 1e-12);
        const weights = rowsOf(stageOf(trace, 'weights', h));
        const wUv = operand(stageOf(trace, 'v', h), 'W_UV');
        const latentHead = matmul(weights, cKv);
        assertClose(`latent_head/${h}`, stageOf(trace, 'latent_head', h), matrixOf(latentHead), 1e-12);
        const v = rowsOf(stageOf(trace, 'v', h));
        assertClose(`head/${h} as weights · V`, stageOf(trace, 'head', h), matrixOf(matmul(weights, v)), 1e-12);
        assertClose(
          `head/${h} as latent_head · W_UV`,
          stageOf(trace, 'head', h),
          matrixOf(matmul(latentHead, wUv)),
          1e-12,
        );
      }
    });
  }
});

describe('mla: config.kv.perToken, the floats a token caches', () => {
  // [spec, MLA's d_c + d_r, multi-head attention's h·(d_k + d_v), grouped-query attention's
  // { h_kv: h_kv·(d_k + d_v) } for each h_kv < h dividing h]
  const CASES_BY_HAND = [
    [{ preset: 'modern-mla' }, 8 + 2, 4 * 8, { 1: 8, 2: 16 }],
    [CUSTOM['mla-no-rope'].spec, 6 + 0, 3 * 6, { 1: 6 }],
    [CUSTOM['mla-half-split-base-100'].spec, 4 + 2, 2 * 8, { 1: 8 }],
    [
      { kind: 'mla', seed: 5, seqLen: 3, dModel: 12, numHeads: 6, dK: 2, dV: 3, dLatent: 4, dRope: 2 },
      6,
      30,
      { 1: 5, 2: 10, 3: 15 },
    ],
    // 7 is prime: multi-query is the only grouping.
    [{ kind: 'mla', seed: 5, seqLen: 3, dModel: 7, numHeads: 7, dK: 1, dV: 1, dLatent: 3 }, 3, 14, { 1: 2 }],
  ];
  for (const [spec, mla, mha, byKvHeads] of CASES_BY_HAND) {
    test(JSON.stringify(spec).slice(0, 100), () => {
      const gqa = Object.entries(byKvHeads).map(([kvHeads, floats]) => ({ kvHeads: Number(kvHeads), floats }));
      const want = { perToken: { mla, mha, gqa } };
      assert.deepEqual(engine.run(spec).config.kv, want);
    });
  }
});

describe('mla: without its RoPE part, self-attention with W_K = W_DKV·W_UK and W_V = W_DKV·W_UV', () => {
  const SPECS = [
    ['mla-no-rope', CUSTOM['mla-no-rope'].spec],
    [
      'causal, d_k 3, d_v 5',
      { kind: 'mla', seed: 11, seqLen: 6, dModel: 8, numHeads: 2, dK: 3, dV: 5, dLatent: 4, causal: true },
    ],
    [
      'dRope 0 given, one head',
      { kind: 'mla', seed: 2, seqLen: 4, dModel: 6, numHeads: 1, dK: 6, dV: 6, dLatent: 2, dRope: 0 },
    ],
  ];
  for (const [name, spec] of SPECS) {
    test(`${name}: the output, and each head's weights, to 1e-12`, () => {
      const trace = engine.run(spec);
      const { numHeads, causal, dRope } = trace.config;
      assert.equal(dRope, 0);
      const [x, wDkv] = ['X', 'W_DKV'].map((n) => operand(stageOf(trace, 'c_kv'), n));
      const heads = Array.from({ length: numHeads }, (_, h) => h);
      const self = {
        X: x,
        W_Q: heads.map((h) => operand(stageOf(trace, 'q', h), 'W_Q')),
        W_K: heads.map((h) => matmul(wDkv, operand(stageOf(trace, 'k', h), 'W_UK'))),
        W_V: heads.map((h) => matmul(wDkv, operand(stageOf(trace, 'v', h), 'W_UV'))),
        W_O: operand(stageOf(trace, 'output'), 'W_O'),
        causal,
      };
      const output = engine.forward(spec);
      assertClose('forward(mla) is the trace\u2019s output', output, stageOf(trace, 'output'), 0);
      assertClose('forward(self-attention)', engine.forward(self), output, 1e-12);
      const reference = engine.run(self);
      for (const h of heads)
        assertClose(`weights/${h}`, stageOf(reference, 'weights', h), stageOf(trace, 'weights', h), 1e-12);
    });
  }
});

describe('mla: refused by name through engine.run', () => {
  const BASE = { kind: 'mla', seed: 1, seqLen: 4, dModel: 8, numHeads: 2, dK: 4, dV: 4, dLatent: 4, dRope: 2 };
  const { dLatent: _latent, ...withoutLatent } = BASE;
  const EXPLICIT = CUSTOM['mla-explicit'].spec; // d_model 6, two heads, d_c 3, d_h 2, d_r 2
  const { W_QR: _qr, ...withoutQr } = EXPLICIT;
  const REFUSED = [
    ['an odd dRope', { ...BASE, dRope: 3 }, 'dRope', /^dRope: 3 is odd/],
    ['dLatent missing', withoutLatent, 'dLatent', /^dLatent: is missing/],
    ['dLatent 0', { ...BASE, dLatent: 0 }, 'dLatent', /^dLatent: 0 is out of range/],
    ['dLatent 5000', { ...BASE, dLatent: 5000 }, 'dLatent', /^dLatent: 5000 is out of range/],
    ['rope with dRope 0', { ...BASE, dRope: 0, rope: { base: 100 } }, 'rope', /dRope is 0/],
    [
      'an explicit W_UK[1] of the wrong shape',
      {
        ...EXPLICIT,
        W_UK: [
          EXPLICIT.W_UK[0],
          [
            [1, 2, 3],
            [4, 5, 6],
            [7, 8, 9],
          ],
        ],
      },
      'W_UK[1]',
      /^W_UK\[1\]: shape \(3, 3\) should be \(3, 2\)/,
    ],
    ['W_KR without W_QR', withoutQr, 'W_QR', /^W_QR: is missing/],
    // Each shape is measured against the matrix that fixes it: W_Q's d_k, W_KR's d_r.
    [
      'W_Q wider than W_UK',
      { ...EXPLICIT, W_Q: EXPLICIT.W_Q.map((w) => w.map((row) => [...row, 0])) },
      'W_UK[0]',
      /^W_UK\[0\]: shape \(3, 2\) should be \(3, 3\) \(d_c = 3 rows like W_DKV's columns, 3 columns like W_Q's, d_k\)/,
    ],
    [
      'W_KR wider than W_QR',
      { ...EXPLICIT, W_KR: EXPLICIT.W_KR.map((row) => [...row, 0, 0]) },
      'W_QR[0]',
      /^W_QR\[0\]: shape \(6, 2\) should be \(6, 4\) \(d_model = 6 rows, 4 columns like W_KR's, d_r\)/,
    ],
    [
      'W_KR of 3 columns',
      { ...EXPLICIT, W_KR: EXPLICIT.W_KR.map((row) => [...row, 0]) },
      'W_KR',
      /^W_KR: 3 columns \(d_r\) is odd/,
    ],
    [
      'rope with given matrices and no RoPE part',
      (({ W_KR: _kr, W_QR: _qr2, ...rest }) => ({ ...rest, rope: { base: 100 } }))(EXPLICIT),
      'rope',
      /give W_KR and W_QR/,
    ],
    ['fewer W_QR than W_Q', { ...EXPLICIT, W_QR: [EXPLICIT.W_QR[0]] }, 'W_QR', /^W_QR: 1 matrices for 2 heads/],
    ['window', { ...BASE, window: 2 }, 'spec', /^spec: unknown field "window" for kind "mla"/],
    ['qkNorm', { ...BASE, qkNorm: true }, 'spec', /^spec: unknown field "qkNorm" for kind "mla"/],
    ['sinks', { ...BASE, sinks: true }, 'spec', /^spec: unknown field "sinks" for kind "mla"/],
  ];
  for (const [what, spec, field, message] of REFUSED) {
    test(`${what}: ${field}`, () => {
      const got = assertRefused(engine, () => engine.run(spec), field);
      assert.match(got, message);
    });
  }
});
