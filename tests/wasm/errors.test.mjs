// Every refused input reaches JS as a real Error whose message names the field; after each one
// the engine still computes correctly: the next preset in turn, of every kind, gives exactly the
// trace it gave before any error (assertRefused). The messages' wording is asserted where it is
// made: the core's in tests/native/test_validation*.cpp, the bindings' in messages.mjs.
// Decoding's and tiling's fields, explain steps and kvCacheBytes: errors-steps.test.mjs.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { assertRefused, explicitSpecFor } from './support.mjs';
import { I2, explicit, explicitCross } from './explicit-specs.mjs';

let engine;
before(async () => {
  engine = await createEngine();
});

const generated = (fields) => ({ seqLen: 3, dModel: 4, ...fields });

// [title, spec, the field the message names]; the wording: tests/native/test_validation*.cpp
// and, for a JS value of the wrong type, the bindings' table (messages.mjs).
const RULE_CASES = [
  ['seqLen 0', generated({ seqLen: 0 }), 'seqLen'],
  ['seqLen -1', generated({ seqLen: -1 }), 'seqLen'],
  ['seqLen 2.5', generated({ seqLen: 2.5 }), 'seqLen'],
  ['seqLen NaN', generated({ seqLen: NaN }), 'seqLen'],
  ['seqLen Infinity', generated({ seqLen: Infinity }), 'seqLen'],
  ['seqLen 1e9', generated({ seqLen: 1e9 }), 'seqLen'],
  ['seqLen 1e-7', generated({ seqLen: 1e-7 }), 'seqLen'], // String(1e-7)
  ['seqLen missing', { dModel: 4 }, 'seqLen'],
  ['dModel 0', generated({ dModel: 0 }), 'dModel'],
  ['dModel 1025', generated({ dModel: 1025 }), 'dModel'],
  ['numHeads 0', generated({ numHeads: 0 }), 'numHeads'],
  ['numHeads 65', generated({ numHeads: 65 }), 'numHeads'],
  ['numHeads 3 with dModel 16', generated({ dModel: 16, numHeads: 3 }), 'numHeads'],
  ['dK 0', generated({ dK: 0 }), 'dK'],
  ['dK 1025', generated({ dK: 1025 }), 'dK'],
  ['dV 1.5', generated({ dV: 1.5 }), 'dV'],
  ['dV 1025', generated({ dV: 1025 }), 'dV'],
  ['seed -1', generated({ seed: -1 }), 'seed'],
  ['seed 2^32', generated({ seed: 2 ** 32 }), 'seed'],
  ['seed 0.5', generated({ seed: 0.5 }), 'seed'],
  ['weights over budget', { seqLen: 1, dModel: 1024, numHeads: 64, dK: 1024, dV: 1024 }, 'weights'],
  ['unknown preset', { preset: 'lesson-nope' }, 'preset'],
  ['X empty', explicit({ X: [] }), 'X'],
  ['X one empty row', explicit({ X: [[]] }), 'X'],
  ['X ragged', explicit({ X: [[1, 2], [3]] }), 'X'],
  [
    'X NaN',
    explicit({
      X: [
        [1, NaN],
        [3, 4],
      ],
    }),
    'X[0][1]',
  ],
  [
    'X Infinity',
    explicit({
      X: [
        [1, 2],
        [Infinity, 4],
      ],
    }),
    'X[1][0]',
  ],
  [
    'X |v| > 1e6',
    explicit({
      X: [
        [1, 2],
        [3, -1000001],
      ],
    }),
    'X[1][1]',
  ],
  ['X with 1025 rows', explicit({ X: Array.from({ length: 1025 }, () => [1, 2]) }), 'X'],
  // A long (sparse) array must be refused by its length, before anything is allocated for it.
  ['X with 2^28 rows', explicit({ X: new Array(2 ** 28) }), 'X'],
  ['X with 2^31 rows', explicit({ X: new Array(2 ** 31) }), 'X'],
  ['W_Q no heads', explicit({ W_Q: [] }), 'W_Q'],
  ['W_K count', explicit({ W_K: [I2, I2] }), 'W_K'],
  ['W_V count', explicit({ W_V: [] }), 'W_V'],
  [
    'W_Q shape',
    explicit({
      W_Q: [
        [
          [1, 0],
          [0, 1],
          [1, 1],
        ],
      ],
    }),
    'W_Q[0]',
  ],
  [
    'W_K shape',
    explicit({
      W_K: [
        [
          [1, 0, 0],
          [0, 1, 0],
        ],
      ],
    }),
    'W_K[0]',
  ],
  ['W_V ragged', explicit({ W_V: [[[1, 0], [0]]] }), 'W_V[0]'],
  [
    'W_V NaN',
    explicit({
      W_V: [
        [
          [1, 0],
          [0, NaN],
        ],
      ],
    }),
    'W_V[0][1][1]',
  ],
  [
    'W_O shape',
    explicit({
      W_O: [
        [1, 0, 0],
        [0, 1, 0],
      ],
    }),
    'W_O',
  ],
];

const cross = (fields) => ({ kind: 'cross', queryLen: 2, keyLen: 4, dModel: 8, numHeads: 2, ...fields });
const encoder = (fields) => ({ kind: 'encoder-layer', seqLen: 3, dModel: 8, numHeads: 2, ...fields });
const gqa = (fields) => ({ seqLen: 3, dModel: 8, numHeads: 4, ...fields });
// Explicit grouped-query specs (4 query heads, 2 K/V heads); explicitCross: explicit-specs.mjs.
const col = [[1], [0]];
const explicitGqa = (fields) => ({ X: I2, W_Q: [col, col, col, col], W_K: [col, col], W_V: [col, col], ...fields });

// The kind, the fields each kind takes, and the new fields' rules: [title, spec, field].
const KIND_CASES = [
  ['kind "x"', generated({ kind: 'x' }), 'kind'],
  ['kind a number', generated({ kind: 5 }), 'kind'],
  ['kind null', generated({ kind: null }), 'kind'],
  ['causal on cross', cross({ causal: true }), 'spec'],
  ['seqLen on cross', cross({ seqLen: 2 }), 'spec'],
  ['numKvHeads on cross', cross({ numKvHeads: 1 }), 'spec'],
  ['numKvHeads on encoder-layer', encoder({ numKvHeads: 1 }), 'spec'],
  ['outputProjection on encoder-layer', encoder({ outputProjection: false }), 'spec'],
  ['validKeys on encoder-layer', encoder({ validKeys: 2 }), 'spec'],
  ['validKeys on self out of range', generated({ validKeys: 0 }), 'validKeys'],
  ['dFF on self', generated({ dFF: 16 }), 'spec'],
  ['keyLen on self', generated({ keyLen: 3 }), 'spec'],
  ['kind beside a preset', { preset: 'gqa-4-2', kind: 'self' }, 'spec'],
  ['queryLen missing', { kind: 'cross', keyLen: 3, dModel: 8 }, 'queryLen'],
  ['keyLen missing', { kind: 'cross', queryLen: 3, dModel: 8 }, 'keyLen'],
  ['queryLen 0', cross({ queryLen: 0 }), 'queryLen'],
  ['keyLen 1025', cross({ keyLen: 1025 }), 'keyLen'],
  ['validKeys 0', cross({ validKeys: 0 }), 'validKeys'],
  ['validKeys 5 of 4 keys', cross({ validKeys: 5 }), 'validKeys'],
  ['validKeys 1.5', cross({ validKeys: 1.5 }), 'validKeys'],
  ['validKeys null', cross({ validKeys: null }), 'validKeys'],
  ['numKvHeads 3 of 4', gqa({ numKvHeads: 3 }), 'numKvHeads'],
  ['numKvHeads 8 of 4', gqa({ numKvHeads: 8 }), 'numKvHeads'],
  ['numKvHeads 0', gqa({ numKvHeads: 0 }), 'numKvHeads'],
  ['numKvHeads a string', gqa({ numKvHeads: '2' }), 'numKvHeads'],
  ['dFF 0', encoder({ dFF: 0 }), 'dFF'],
  ['dFF 4097', encoder({ dFF: 4097 }), 'dFF'],
  ['dFF 2.5', encoder({ dFF: 2.5 }), 'dFF'],
  ['skip -1', generated({ skip: -1 }), 'skip'],
  ['skip 0.5', generated({ skip: 0.5 }), 'skip'],
  ['skip a string', generated({ skip: '3' }), 'skip'],
  ['dK only, dModel 16 over 3 heads', generated({ dModel: 16, numHeads: 3, dK: 4 }), 'numHeads'],
  ['dV only, dModel 16 over 3 heads', generated({ dModel: 16, numHeads: 3, dV: 4 }), 'numHeads'],
  ['explicit encoder-layer', { kind: 'encoder-layer', X: I2 }, 'kind'],
  ['explicit cross with X', explicitCross({ X: I2, X_q: undefined }), 'spec'],
  ['explicit cross with causal', explicitCross({ causal: true }), 'spec'],
  ['explicit self with X_kv', explicit({ X_kv: I2 }), 'spec'],
  ['explicit self with validKeys past its keys', explicit({ validKeys: 5 }), 'validKeys'],
  ['explicit cross without X_kv', explicitCross({ X_kv: undefined }), 'X_kv'],
  [
    'X_kv of another d_model',
    explicitCross({
      X_kv: [
        [1, 0, 0],
        [0, 1, 0],
        [1, 1, 0],
      ],
    }),
    'X_kv',
  ],
  ['explicit validKeys 4 of 3 keys', explicitCross({ validKeys: 4 }), 'validKeys'],
  ['W_K count not dividing W_Q', explicitGqa({ W_K: [col, col, col], W_V: [col, col, col] }), 'W_K'],
  ['W_K more than W_Q', explicitGqa({ W_K: Array(8).fill(col), W_V: Array(8).fill(col) }), 'W_K'],
  ['W_V count other than W_K', explicitGqa({ W_V: [col] }), 'W_V'],
  ['W_V heads of two widths', explicitGqa({ W_V: [col, I2] }), 'W_V[1]'],
];

// Valid specs of every kind that sit next to the refused ones above.
const ACCEPTED = [
  ['dK and dV both given: dModel need not split', generated({ dModel: 16, numHeads: 3, dK: 4, dV: 4 }), 'output'],
  ['numKvHeads 2 of 4', gqa({ numKvHeads: 2 }), 'output'],
  ['validKeys = keyLen', cross({ validKeys: 4 }), 'output'],
  ['dFF 4096', encoder({ dFF: 4096 }), 'norm2'],
  ['explicit cross', explicitCross({ validKeys: 3 }), 'head'],
  ['explicit grouped-query', explicitGqa({}), 'concat'], // no W_O: the heads' concat is the output
];

const MQ = { preset: 'lesson-multi-head' };
const cell = (fields) => ({ stage: 'q', head: 0, row: 0, col: 0, ...fields });
const EXPLAIN_CASES = [
  ['cell a string', 'q', 'cell'],
  ['cell null', null, 'cell'],
  ['stage a number', cell({ stage: 5 }), 'stage'],
  ['unknown stage', cell({ stage: 'nope' }), 'stage'],
  ['a stage of another kind', cell({ stage: 'norm1', head: null }), 'stage'],
  ['masked without a mask', cell({ stage: 'masked' }), 'stage'],
  ['head 9', cell({ head: 9 }), 'stage'],
  ['head 1.5', cell({ head: 1.5 }), 'head'],
  ['head -5', cell({ head: -5 }), 'head'],
  ['head -1 on a shared stage', cell({ stage: 'output', head: -1 }), 'head'],
  ['output with a head', cell({ stage: 'output' }), 'stage'],
  ['row past the end', cell({ row: 5 }), 'cell'],
  ['col past the end', cell({ col: 4 }), 'cell'],
  ['row -1', cell({ row: -1 }), 'row'],
  ['row a string', cell({ row: '1' }), 'row'],
  ['col missing', cell({ col: undefined }), 'col'],
];

const RANDN_CASES = [
  ['seed -1', [-1, 2, 2], 'seed'],
  ['seed 2^32', [2 ** 32, 2, 2], 'seed'],
  ['seed a string', ['42', 2, 2], 'seed'],
  ['rows 0', [42, 0, 5], 'rows'],
  ['rows 2.5', [42, 2.5, 5], 'rows'],
  ['cols NaN', [42, 2, NaN], 'cols'],
  ['cols null', [42, 2, null], 'cols'],
  ['cols missing', [42, 2], 'cols'],
  ['5000 × 5000 values', [42, 5000, 5000], 'rows'],
  // rows · cols = 2^32 and 2^32 + 2^17 + 1: both must be refused, whatever the word size.
  ['65536 × 65536 values', [42, 65536, 65536], 'rows'],
  ['65537 × 65537 values', [42, 65537, 65537], 'rows'],
];

describe('errors: numeric rules and matrices', () => {
  for (const [title, spec, field] of RULE_CASES) {
    test(`run: ${title}`, () => assertRefused(engine, () => engine.run(spec), field));
    test(`forward: ${title}`, () => assertRefused(engine, () => engine.forward(spec), field));
  }
  test('the explicit valid spec used above is accepted', () => {
    assert.equal(engine.run(explicit({})).stages.at(-1).id, 'output');
  });
});

describe('errors: kinds and their fields', () => {
  for (const [title, spec, field] of KIND_CASES) {
    test(`run: ${title}`, () => assertRefused(engine, () => engine.run(spec), field));
    test(`forward: ${title}`, () => assertRefused(engine, () => engine.forward(spec), field));
  }
  for (const [title, spec, last] of ACCEPTED) {
    test(`accepted: ${title}`, () => assert.equal(engine.run(spec).stages.at(-1).id, last));
  }
});

describe('errors: the trace budget', () => {
  // GPT-2 small's attention at full context: ~125 M traced values, 7× the budget.
  const big = { seqLen: 1024, dModel: 768, numHeads: 12 };
  test('run refuses it, naming the trace and its size', () => {
    assertRefused(engine, () => engine.run(big), 'trace');
  });
  test('explain refuses it too', () => {
    assertRefused(engine, () => engine.explain(big, { stage: 'x', head: null, row: 0, col: 0 }), 'trace');
  });
  test('forward computes it', () => {
    const out = engine.forward(big);
    assert.deepEqual(out.shape, [1024, 768]);
    assert.equal(out.values.length, 1024 * 768);
    assert.ok(out.values.every(Number.isFinite));
  });
});

describe('errors: explain cells', () => {
  for (const [title, c, field] of EXPLAIN_CASES)
    test(title, () => assertRefused(engine, () => engine.explain(MQ, c), field));
  test('a bad spec is named before the cell', () => {
    assertRefused(engine, () => engine.explain(generated({ seqLen: 0 }), cell({})), 'seqLen');
  });
  test("k of a grouped-query trace lives under its group's first query head", () => {
    assertRefused(engine, () => engine.explain({ preset: 'gqa-4-2' }, cell({ stage: 'k', head: 1 })), 'stage');
    assert.equal(engine.explain({ preset: 'gqa-4-2' }, cell({ stage: 'k', head: 2 })).terms.length, 16);
  });
  test('a cell past the keys of a cross trace', () => {
    assertRefused(
      engine,
      () => engine.explain({ preset: 'cross-translation' }, cell({ stage: 'weights', col: 3 })),
      'cell',
    );
  });
  test('explicit specs explain too', () => {
    const e = engine.explain(explicitSpecFor('lesson-causal'), { stage: 'weights', head: 0, row: 0, col: 3 });
    assert.equal(e.value, 0);
    assert.equal(e.masked, true);
  });
});

describe('errors: randn arguments', () => {
  for (const [title, args, field] of RANDN_CASES)
    test(title, () => assertRefused(engine, () => engine.randn(...args), field));
});
