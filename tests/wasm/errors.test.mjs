// Every refused input reaches JS as a real Error whose message names the field (and, for
// numbers, the value and the rule); after each one the engine still computes correctly: the
// next preset in turn, of every kind, gives exactly the trace it gave before any error.
// Decoding's and tiling's fields, explain steps and kvCacheBytes: errors-steps.test.mjs.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { explicitSpecFor, servingCheck } from './support.mjs';
import { I2, explicit, explicitCross } from './explicit-specs.mjs';

let engine;
let stillServes; // after each refusal: the next preset gives the trace it gave before any error
before(async () => {
  engine = await createEngine();
  stillServes = servingCheck(engine);
});

const generated = (fields) => ({ seqLen: 3, dModel: 4, ...fields });

// [title, call, text the message must contain]
const SPEC_CASES = [
  ['spec undefined', (e) => e.run(undefined), 'spec: must be an object, got undefined'],
  ['spec null', (e) => e.run(null), 'spec: must be an object, got null'],
  ['spec number', (e) => e.run(42), 'spec: must be an object, got number'],
  ['spec string', (e) => e.run('lesson-multi-head'), 'spec: must be an object, got string'],
  ['spec array', (e) => e.run([]), 'spec: must be an object, got array'],
  ['spec boolean', (e) => e.run(true), 'spec: must be an object, got boolean'],
  ['spec function', (e) => e.run(() => 1), 'spec: must be an object, got function'],
  ['forward of a non-object', (e) => e.forward(7), 'spec: must be an object, got number'],
  [
    'unknown field beside a preset',
    (e) => e.run({ preset: 'lesson-multi-head', extra: 1 }),
    'spec: unknown field "extra"',
  ],
  ['unknown generated field', (e) => e.run(generated({ heads: 2 })), 'spec: unknown field "heads"'],
  [
    'unknown explicit field',
    (e) => e.run(explicit({ seqLen: 2 })),
    'spec: unknown field "seqLen" for explicit self-attention',
  ],
];

const TYPE_CASES = [
  ['seqLen string', generated({ seqLen: '5' }), 'seqLen: must be a number, got string'],
  ['dModel boolean', generated({ dModel: true }), 'dModel: must be a number, got boolean'],
  ['numHeads null', generated({ numHeads: null }), 'numHeads: must be a number, got null'],
  ['dK array', generated({ dK: [4] }), 'dK: must be a number, got array'],
  ['dV object', generated({ dV: {} }), 'dV: must be a number, got object'],
  ['seed string', generated({ seed: '42' }), 'seed: must be a number, got string'],
  ['causal number', generated({ causal: 1 }), 'causal: must be true or false, got number'],
  [
    'outputProjection string',
    generated({ outputProjection: 'yes' }),
    'outputProjection: must be true or false, got string',
  ],
  ['scaleScores null', generated({ scaleScores: null }), 'scaleScores: must be true or false, got null'],
  ['preset number', { preset: 42 }, 'preset: must be a string'],
  ['X string', explicit({ X: 'abc' }), 'X: must be an array of rows, got string'],
  ['X flat array', explicit({ X: [1, 2] }), 'X[0]: must be an array of numbers, got number'],
  [
    'X string entry',
    explicit({
      X: [
        [1, '2'],
        [3, 4],
      ],
    }),
    'X[0][1]: must be a number, got string',
  ],
  [
    'X null entry',
    explicit({
      X: [
        [1, 2],
        [null, 4],
      ],
    }),
    'X[1][0]: must be a number, got null',
  ],
  [
    'X undefined entry',
    explicit({
      X: [
        [1, 2],
        [3, undefined],
      ],
    }),
    'X[1][1]: must be a number, got undefined',
  ],
  ['W_Q string', explicit({ W_Q: 'x' }), 'W_Q: must be an array with one matrix per head, got string'],
  ['W_K missing', explicit({ W_K: undefined }), 'W_K: must be an array with one matrix per head, got undefined'],
  ['W_V second head a number', explicit({ W_V: [I2, 5] }), 'W_V[1]: must be an array of rows, got number'],
  ['W_O object', explicit({ W_O: {} }), 'W_O: must be an array of rows, got object'],
  ['W_O null', explicit({ W_O: null }), 'W_O: must be an array of rows, got null'],
  ['explicit causal string', explicit({ causal: 'true' }), 'causal: must be true or false, got string'],
];

const RULE_CASES = [
  ['seqLen 0', generated({ seqLen: 0 }), 'seqLen: 0 is out of range [1, 1024]'],
  ['seqLen -1', generated({ seqLen: -1 }), 'seqLen: -1 is out of range [1, 1024]'],
  ['seqLen 2.5', generated({ seqLen: 2.5 }), 'seqLen: 2.5 is not a whole number'],
  ['seqLen NaN', generated({ seqLen: NaN }), 'seqLen: NaN is not a finite number'],
  ['seqLen Infinity', generated({ seqLen: Infinity }), 'seqLen: Infinity is not a finite number'],
  ['seqLen 1e9', generated({ seqLen: 1e9 }), 'seqLen: 1000000000 is out of range [1, 1024]'],
  ['seqLen 1e-7', generated({ seqLen: 1e-7 }), 'seqLen: 1e-7 is not a whole number'], // String(1e-7)
  ['seqLen missing', { dModel: 4 }, 'seqLen'],
  ['dModel 0', generated({ dModel: 0 }), 'dModel: 0 is out of range [1, 1024]'],
  ['dModel 1025', generated({ dModel: 1025 }), 'dModel: 1025 is out of range [1, 1024]'],
  ['numHeads 0', generated({ numHeads: 0 }), 'numHeads: 0 is out of range [1, 64]'],
  ['numHeads 65', generated({ numHeads: 65 }), 'numHeads: 65 is out of range [1, 64]'],
  ['numHeads 3 with dModel 16', generated({ dModel: 16, numHeads: 3 }), 'numHeads: 3 does not divide dModel 16'],
  ['dK 0', generated({ dK: 0 }), 'dK: 0 is out of range [1, 1024]'],
  ['dK 1025', generated({ dK: 1025 }), 'dK: 1025 is out of range [1, 1024]'],
  ['dV 1.5', generated({ dV: 1.5 }), 'dV: 1.5 is not a whole number'],
  ['dV 1025', generated({ dV: 1025 }), 'dV: 1025 is out of range [1, 1024]'],
  ['seed -1', generated({ seed: -1 }), 'seed: -1 is out of range [0, 4294967295]'],
  ['seed 2^32', generated({ seed: 2 ** 32 }), 'seed: 4294967296 is out of range [0, 4294967295]'],
  ['seed 0.5', generated({ seed: 0.5 }), 'seed: 0.5 is not a whole number'],
  ['weights over budget', { seqLen: 1, dModel: 1024, numHeads: 64, dK: 1024, dV: 1024 }, 'weights:'],
  ['unknown preset', { preset: 'lesson-nope' }, 'preset: "lesson-nope" is not one of'],
  ['X empty', explicit({ X: [] }), 'X: needs at least one row and one column'],
  ['X one empty row', explicit({ X: [[]] }), 'X: needs at least one row and one column'],
  ['X ragged', explicit({ X: [[1, 2], [3]] }), 'X: row 1 has 1 values but row 0 has 2'],
  [
    'X NaN',
    explicit({
      X: [
        [1, NaN],
        [3, 4],
      ],
    }),
    'X[0][1]: NaN is not a finite number',
  ],
  [
    'X Infinity',
    explicit({
      X: [
        [1, 2],
        [Infinity, 4],
      ],
    }),
    'X[1][0]: Infinity is not a finite number',
  ],
  [
    'X |v| > 1e6',
    explicit({
      X: [
        [1, 2],
        [3, -1000001],
      ],
    }),
    'X[1][1]: -1000001 is outside [-1e6, 1e6]',
  ],
  [
    'X with 1025 rows',
    explicit({ X: Array.from({ length: 1025 }, () => [1, 2]) }),
    'X: 1025 rows, more than the limit 1024',
  ],
  // A long (sparse) array must be refused by its length, before anything is allocated for it.
  ['X with 2^28 rows', explicit({ X: new Array(2 ** 28) }), 'X: 268435456 rows, more than the limit 1024'],
  ['X with 2^31 rows', explicit({ X: new Array(2 ** 31) }), 'X: 2147483648 rows, more than the limit 1024'],
  ['W_Q no heads', explicit({ W_Q: [] }), 'W_Q: 0 matrices'],
  ['W_K count', explicit({ W_K: [I2, I2] }), "W_K: 2 matrices; give one per K/V head, a number that divides W_Q's 1"],
  ['W_V count', explicit({ W_V: [] }), 'W_V: 0 matrices, but W_K has 1 (one W_K and one W_V per K/V head)'],
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
    'W_Q[0]: shape (3, 2) should be (2, 2)',
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
    'W_K[0]: shape (2, 3) should be (2, 2)',
  ],
  ['W_V ragged', explicit({ W_V: [[[1, 0], [0]]] }), 'W_V[0]: row 1 has 1 values but row 0 has 2'],
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
    'W_V[0][1][1]: NaN is not a finite number',
  ],
  [
    'W_O shape',
    explicit({
      W_O: [
        [1, 0, 0],
        [0, 1, 0],
      ],
    }),
    'W_O: shape (2, 3) should be (2, 2)',
  ],
];

const cross = (fields) => ({ kind: 'cross', queryLen: 2, keyLen: 4, dModel: 8, numHeads: 2, ...fields });
const encoder = (fields) => ({ kind: 'encoder-layer', seqLen: 3, dModel: 8, numHeads: 2, ...fields });
const gqa = (fields) => ({ seqLen: 3, dModel: 8, numHeads: 4, ...fields });
const known = (what) => `for ${what} (known: `;
// Explicit grouped-query specs (4 query heads, 2 K/V heads); explicitCross: explicit-specs.mjs.
const col = [[1], [0]];
const explicitGqa = (fields) => ({ X: I2, W_Q: [col, col, col, col], W_K: [col, col], W_V: [col, col], ...fields });

// The kind, the fields each kind takes, and the new fields' rules: [title, spec, text].
const KIND_CASES = [
  [
    'kind "x"',
    generated({ kind: 'x' }),
    'kind: "x" is not one of self, cross, encoder-layer, kv-cache, flash, designed',
  ],
  ['kind a number', generated({ kind: 5 }), 'kind: must be a string, got number'],
  ['kind null', generated({ kind: null }), 'kind: must be a string, got null'],
  ['causal on cross', cross({ causal: true }), `spec: unknown field "causal" ${known('kind "cross"')}`],
  ['seqLen on cross', cross({ seqLen: 2 }), 'spec: unknown field "seqLen" for kind "cross"'],
  ['numKvHeads on cross', cross({ numKvHeads: 1 }), 'spec: unknown field "numKvHeads" for kind "cross"'],
  [
    'numKvHeads on encoder-layer',
    encoder({ numKvHeads: 1 }),
    `spec: unknown field "numKvHeads" ${known('kind "encoder-layer"')}`,
  ],
  [
    'outputProjection on encoder-layer',
    encoder({ outputProjection: false }),
    'spec: unknown field "outputProjection" for kind "encoder-layer"',
  ],
  ['validKeys on encoder-layer', encoder({ validKeys: 2 }), 'spec: unknown field "validKeys" for kind "encoder-layer"'],
  ['validKeys on self out of range', generated({ validKeys: 0 }), 'validKeys: 0 is out of range [1, '],
  ['dFF on self', generated({ dFF: 16 }), 'spec: unknown field "dFF" for self-attention'],
  ['keyLen on self', generated({ keyLen: 3 }), 'spec: unknown field "keyLen" for self-attention'],
  ['kind beside a preset', { preset: 'gqa-4-2', kind: 'self' }, 'spec: unknown field "kind" for a preset'],
  ['queryLen missing', { kind: 'cross', keyLen: 3, dModel: 8 }, 'queryLen: is missing; give a whole number'],
  ['keyLen missing', { kind: 'cross', queryLen: 3, dModel: 8 }, 'keyLen: is missing; give a whole number'],
  ['queryLen 0', cross({ queryLen: 0 }), 'queryLen: 0 is out of range [1, 1024]'],
  ['keyLen 1025', cross({ keyLen: 1025 }), 'keyLen: 1025 is out of range [1, 1024]'],
  ['validKeys 0', cross({ validKeys: 0 }), 'validKeys: 0 is out of range [1, 4]'],
  ['validKeys 5 of 4 keys', cross({ validKeys: 5 }), 'validKeys: 5 is out of range [1, 4]'],
  ['validKeys 1.5', cross({ validKeys: 1.5 }), 'validKeys: 1.5 is not a whole number'],
  ['validKeys null', cross({ validKeys: null }), 'validKeys: must be a number, got null'],
  [
    'numKvHeads 3 of 4',
    gqa({ numKvHeads: 3 }),
    'numKvHeads: 3 does not divide numHeads 4 (each K/V head serves a whole group of query heads)',
  ],
  ['numKvHeads 8 of 4', gqa({ numKvHeads: 8 }), 'numKvHeads: 8 is out of range [1, 4]'],
  ['numKvHeads 0', gqa({ numKvHeads: 0 }), 'numKvHeads: 0 is out of range [1, 4]'],
  ['numKvHeads a string', gqa({ numKvHeads: '2' }), 'numKvHeads: must be a number, got string'],
  ['dFF 0', encoder({ dFF: 0 }), 'dFF: 0 is out of range [1, 4096]'],
  ['dFF 4097', encoder({ dFF: 4097 }), 'dFF: 4097 is out of range [1, 4096]'],
  ['dFF 2.5', encoder({ dFF: 2.5 }), 'dFF: 2.5 is not a whole number'],
  ['skip -1', generated({ skip: -1 }), 'skip: -1 is out of range [0, 16777216]'],
  ['skip 0.5', generated({ skip: 0.5 }), 'skip: 0.5 is not a whole number'],
  ['skip a string', generated({ skip: '3' }), 'skip: must be a number, got string'],
  [
    'dK only, dModel 16 over 3 heads',
    generated({ dModel: 16, numHeads: 3, dK: 4 }),
    'numHeads: 3 does not divide dModel 16; give dK and dV',
  ],
  [
    'dV only, dModel 16 over 3 heads',
    generated({ dModel: 16, numHeads: 3, dV: 4 }),
    'numHeads: 3 does not divide dModel 16; give dK and dV',
  ],
  [
    'explicit encoder-layer',
    { kind: 'encoder-layer', X: I2 },
    'kind: "encoder-layer" takes no explicit matrices; give sizes and a seed (or tokens)',
  ],
  ['explicit cross with X', explicitCross({ X: I2, X_q: undefined }), 'spec: unknown field "X" for kind "cross"'],
  ['explicit cross with causal', explicitCross({ causal: true }), 'spec: unknown field "causal" for kind "cross"'],
  ['explicit self with X_kv', explicit({ X_kv: I2 }), 'spec: unknown field "X_kv" for explicit self-attention'],
  ['explicit self with validKeys past its keys', explicit({ validKeys: 5 }), 'validKeys: 5 is out of range [1, 2]'],
  ['explicit cross without X_kv', explicitCross({ X_kv: undefined }), 'X_kv: must be an array of rows, got undefined'],
  [
    'X_kv of another d_model',
    explicitCross({
      X_kv: [
        [1, 0, 0],
        [0, 1, 0],
        [1, 1, 0],
      ],
    }),
    'X_kv: shape (3, 3) should be (3, 2) (d_model = 2 columns like X_q)',
  ],
  ['explicit validKeys 4 of 3 keys', explicitCross({ validKeys: 4 }), 'validKeys: 4 is out of range [1, 3]'],
  [
    'W_K count not dividing W_Q',
    explicitGqa({ W_K: [col, col, col], W_V: [col, col, col] }),
    "W_K: 3 matrices; give one per K/V head, a number that divides W_Q's 4 " +
      '(as many as W_Q for multi-head, 1 for multi-query)',
  ],
  [
    'W_K more than W_Q',
    explicitGqa({ W_K: Array(8).fill(col), W_V: Array(8).fill(col) }),
    "W_K: 8 matrices; give one per K/V head, a number that divides W_Q's 4",
  ],
  [
    'W_V count other than W_K',
    explicitGqa({ W_V: [col] }),
    'W_V: 1 matrices, but W_K has 2 (one W_K and one W_V per K/V head)',
  ],
  ['W_V heads of two widths', explicitGqa({ W_V: [col, I2] }), 'W_V[1]: shape (2, 2) should be (2, 1)'],
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
// The engine's stage table, in its order, as its message lists it.
const STAGE_IDS = (await createEngine())
  .stages()
  .map((s) => s.id)
  .join(', ');

const EXPLAIN_CASES = [
  ['cell a string', 'q', 'cell: must be an object'],
  ['cell null', null, 'cell: must be an object'],
  ['stage a number', cell({ stage: 5 }), 'stage: must be a string, got number'],
  ['unknown stage', cell({ stage: 'nope' }), `stage: "nope" is not a stage; the stages are ${STAGE_IDS}`],
  ['a stage of another kind', cell({ stage: 'norm1', head: null }), 'stage: no stage "norm1"'],
  ['masked without a mask', cell({ stage: 'masked' }), 'stage: no stage "masked"'],
  ['head 9', cell({ head: 9 }), 'stage: no stage "q" for head 9'],
  ['head 1.5', cell({ head: 1.5 }), 'head: 1.5 is not a whole number'],
  ['head -5', cell({ head: -5 }), 'head: -5 is out of range'],
  ['head -1 on a shared stage', cell({ stage: 'output', head: -1 }), 'head: -1 is out of range'],
  ['output with a head', cell({ stage: 'output' }), 'stage: no stage "output" for head 0'],
  ['row past the end', cell({ row: 5 }), "cell: (5, 0) is outside q's shape (5, 4)"],
  ['col past the end', cell({ col: 4 }), "cell: (0, 4) is outside q's shape (5, 4)"],
  ['row -1', cell({ row: -1 }), 'row: -1 is out of range'],
  ['row a string', cell({ row: '1' }), 'row: must be a number, got string'],
  ['col missing', cell({ col: undefined }), 'col'],
];

const RANDN_CASES = [
  ['seed -1', [-1, 2, 2], 'seed: -1 is out of range [0, 4294967295]'],
  ['seed 2^32', [2 ** 32, 2, 2], 'seed: 4294967296 is out of range [0, 4294967295]'],
  ['seed a string', ['42', 2, 2], 'seed: must be a number, got string'],
  ['rows 0', [42, 0, 5], 'rows: 0 is out of range'],
  ['rows 2.5', [42, 2.5, 5], 'rows: 2.5 is not a whole number'],
  ['cols NaN', [42, 2, NaN], 'cols: NaN is not a finite number'],
  ['cols null', [42, 2, null], 'cols: must be a number, got null'],
  ['cols missing', [42, 2], 'cols'],
  ['5000 × 5000 values', [42, 5000, 5000], 'above the limit 16777216'],
  // rows · cols = 2^32 and 2^32 + 2^17 + 1: both must be refused, whatever the word size.
  ['65536 × 65536 values', [42, 65536, 65536], 'above the limit 16777216'],
  ['65537 × 65537 values', [42, 65537, 65537], 'above the limit 16777216'],
];

// Calls f, expecting an Error naming `text`; then the next preset in turn must give exactly the
// trace it gave before any error.
function assertRefused(f, text) {
  assert.throws(f, (err) => {
    assert.ok(err instanceof Error, `expected an Error, got ${typeof err}: ${String(err)}`);
    assert.ok(
      err.message.includes(text),
      `message ${JSON.stringify(err.message)} should contain ${JSON.stringify(text)}`,
    );
    return true;
  });
  stillServes();
}

describe('errors: the spec itself', () => {
  for (const [title, call, text] of SPEC_CASES) test(title, () => assertRefused(() => call(engine), text));
});

describe('errors: wrong types', () => {
  for (const [title, spec, text] of TYPE_CASES) {
    test(`run: ${title}`, () => assertRefused(() => engine.run(spec), text));
    test(`forward: ${title}`, () => assertRefused(() => engine.forward(spec), text));
  }
});

describe('errors: numeric rules and matrices', () => {
  for (const [title, spec, text] of RULE_CASES) {
    test(`run: ${title}`, () => assertRefused(() => engine.run(spec), text));
    test(`forward: ${title}`, () => assertRefused(() => engine.forward(spec), text));
  }
  test('the explicit valid spec used above is accepted', () => {
    assert.equal(engine.run(explicit({})).stages.at(-1).id, 'output');
  });
});

describe('errors: kinds and their fields', () => {
  for (const [title, spec, text] of KIND_CASES) {
    test(`run: ${title}`, () => assertRefused(() => engine.run(spec), text));
    test(`forward: ${title}`, () => assertRefused(() => engine.forward(spec), text));
  }
  for (const [title, spec, last] of ACCEPTED) {
    test(`accepted: ${title}`, () => assert.equal(engine.run(spec).stages.at(-1).id, last));
  }
});

describe('errors: the trace budget', () => {
  // GPT-2 small's attention at full context: ~125 M traced values, 7× the budget.
  const big = { seqLen: 1024, dModel: 768, numHeads: 12 };
  test('run refuses it, naming the trace and its size', () => {
    assertRefused(() => engine.run(big), 'trace: 1024 tokens and 12 heads need');
  });
  test('explain refuses it too', () => {
    assertRefused(() => engine.explain(big, { stage: 'x', head: null, row: 0, col: 0 }), 'trace:');
  });
  test('forward computes it', () => {
    const out = engine.forward(big);
    assert.deepEqual(out.shape, [1024, 768]);
    assert.equal(out.values.length, 1024 * 768);
    assert.ok(out.values.every(Number.isFinite));
  });
});

describe('errors: explain cells', () => {
  for (const [title, c, text] of EXPLAIN_CASES) test(title, () => assertRefused(() => engine.explain(MQ, c), text));
  test('a bad spec is named before the cell', () => {
    assertRefused(() => engine.explain(generated({ seqLen: 0 }), cell({})), 'seqLen: 0 is out of range');
  });
  test("k of a grouped-query trace lives under its group's first query head", () => {
    assertRefused(
      () => engine.explain({ preset: 'gqa-4-2' }, cell({ stage: 'k', head: 1 })),
      'stage: no stage "k" for head 1',
    );
    assert.equal(engine.explain({ preset: 'gqa-4-2' }, cell({ stage: 'k', head: 2 })).terms.length, 16);
  });
  test('a cell past the keys of a cross trace', () => {
    assertRefused(
      () => engine.explain({ preset: 'cross-translation' }, cell({ stage: 'weights', col: 3 })),
      "cell: (0, 3) is outside weights's shape (2, 3)",
    );
  });
  test('explicit specs explain too', () => {
    const e = engine.explain(explicitSpecFor('lesson-causal'), { stage: 'weights', head: 0, row: 0, col: 3 });
    assert.equal(e.value, 0);
    assert.equal(e.masked, true);
  });
});

describe('errors: randn arguments', () => {
  for (const [title, args, text] of RANDN_CASES) test(title, () => assertRefused(() => engine.randn(...args), text));
});
