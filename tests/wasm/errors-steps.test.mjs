// Refused input of the kinds whose stages carry a step (kv-cache, flash), of explain's step, and
// of kvCacheBytes: each reaches JS as a real Error whose message names the field; after each one
// the next preset in turn gives exactly the trace it gave before any error (assertRefused). The
// wording: tests/native/test_validation*.cpp and, for the bindings' messages, messages.mjs (the
// other kinds' errors: errors.test.mjs).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { assertRefused } from './support.mjs';

let engine;
before(async () => {
  engine = await createEngine();
});

const I2 = [
  [1, 0],
  [0, 1],
];
const decode = (fields) => ({ kind: 'kv-cache', seqLen: 3, dModel: 8, numHeads: 4, ...fields });
const flash = (fields) => ({ kind: 'flash', seqLen: 5, dModel: 8, blockRows: 2, blockCols: 2, ...fields });

// Decoding is causal by nature, with no FFN and no padding; a flash pass is one head without W_O
// or padding; B_r and B_c are whole numbers of tokens in [1, seqLen]. [title, spec, field].
const KIND_CASES = [
  ['causal on kv-cache', decode({ causal: true }), 'spec'],
  ['causal false on kv-cache', decode({ causal: false }), 'spec'],
  ['dFF on kv-cache', decode({ dFF: 16 }), 'spec'],
  ['validKeys on kv-cache', decode({ validKeys: 2 }), 'spec'],
  ['blockRows on kv-cache', decode({ blockRows: 2 }), 'spec'],
  ['numHeads on flash', flash({ numHeads: 1 }), 'spec'],
  ['numKvHeads on flash', flash({ numKvHeads: 1 }), 'spec'],
  ['outputProjection on flash', flash({ outputProjection: false }), 'spec'],
  ['validKeys on flash', flash({ validKeys: 2 }), 'spec'],
  ['dFF on flash', flash({ dFF: 8 }), 'spec'],
  ['blockRows on self', { seqLen: 3, dModel: 4, blockRows: 1 }, 'spec'],
  ['numKvHeads 3 of 4 in kv-cache', decode({ numKvHeads: 3 }), 'numKvHeads'],
  ['numKvHeads 0 in kv-cache', decode({ numKvHeads: 0 }), 'numKvHeads'],
  ['seqLen 0 in kv-cache', decode({ seqLen: 0 }), 'seqLen'],
  ['seqLen missing in flash', flash({ seqLen: undefined }), 'seqLen'],
  ['explicit kv-cache', { kind: 'kv-cache', X: I2 }, 'kind'],
  ['explicit flash', { kind: 'flash', X: I2 }, 'kind'],
  ...['blockRows', 'blockCols'].flatMap((f) => [
    [`${f} missing`, flash({ [f]: undefined }), f],
    [`${f} 0`, flash({ [f]: 0 }), f],
    [`${f} -1`, flash({ [f]: -1 }), f],
    [`${f} 6, past seqLen 5`, flash({ [f]: 6 }), f],
    [`${f} 1.5`, flash({ [f]: 1.5 }), f],
    [`${f} NaN`, flash({ [f]: NaN }), f],
    [`${f} Infinity`, flash({ [f]: Infinity }), f],
    [`${f} a string`, flash({ [f]: '2' }), f],
    [`${f} null`, flash({ [f]: null }), f],
  ]),
];

// Valid specs beside the refused ones, and the stage each ends with.
const ACCEPTED = [
  ['kv-cache: multi-query, no W_O', decode({ numKvHeads: 1, outputProjection: false }), 'causal_reference'],
  ['kv-cache: one token', decode({ seqLen: 1 }), 'causal_reference'],
  ['flash: one tile of every token, causal', flash({ blockRows: 5, blockCols: 5, causal: true }), 'reference'],
  ['flash: 1 × 1 tiles, unscaled', flash({ blockRows: 1, blockCols: 1, scaleScores: false }), 'reference'],
];

// A decode step or tile that is not a whole number, or that the trace does not have.
const KV = { preset: 'kv-cache-gqa' }; // 5 steps; K/V heads under query heads 0 and 2
const FLASH = { preset: 'flash-causal' }; // tiles 0 … 5; blocks end at tiles 0, 2 and 5
const cell = (fields) => ({ stage: 'k_cache', head: 0, row: 0, col: 0, ...fields });
const STEP_CASES = [
  ['step -1', KV, cell({ step: -1 }), 'step'],
  ['step 1.5', KV, cell({ step: 1.5 }), 'step'],
  ['step NaN', KV, cell({ step: NaN }), 'step'],
  ['step a string', KV, cell({ step: '1' }), 'step'],
  ['step true', KV, cell({ step: true }), 'step'],
  ['step 2^21', KV, cell({ step: 2 ** 21 }), 'step'],
  ['step 5 of 5 steps', KV, cell({ step: 5 }), 'stage'],
  ['a decode stage without its step', KV, cell({}), 'stage'],
  ['the cache of head 1, kept under head 0', KV, cell({ head: 1, step: 0 }), 'stage'],
  ["a row past step 2's cache", KV, cell({ step: 2, row: 3 }), 'cell'],
  ['a step on a stage without steps', { preset: 'lesson-multi-head' }, cell({ stage: 'q', step: 0 }), 'stage'],
  ['stacked at a step', KV, cell({ stage: 'stacked', head: null, step: 0 }), 'stage'],
  ['tile 6 of 6', FLASH, cell({ stage: 'tile_out', step: 6 }), 'stage'],
  ['block_out at a tile that ends no block', FLASH, cell({ stage: 'block_out', step: 1 }), 'stage'],
  ['a tile cell past the short block', FLASH, cell({ stage: 'tile_scores', step: 5, row: 1 }), 'cell'],
];

// kvCacheBytes: the query's type, its fields, each field's values, and products past 2⁵³.
const fp16 = (fields) => ({ seqLen: 1024, dHead: 64, numKvHeads: 12, numLayers: 12, bytesPerValue: 2, ...fields });
const OVER = 'kvCacheBytes'; // the product past 2^53: tests/native/test_kv_size.cpp words it
const NOT_AN_OBJECT = 'query'; // the bindings' message: messages.mjs
const FIELDS = ['seqLen', 'dHead', 'numKvHeads', 'numLayers', 'bytesPerValue', 'batch'];
// Values no field takes (their messages: tests/native/test_kv_size.cpp, and messages.mjs for types).
const BAD_VALUES = [0, -2, 2.5, NaN, Infinity, -Infinity, 2 ** 32, 1e300, '8', null, true];
const KV_BYTES_CASES = [
  ['query undefined', undefined, NOT_AN_OBJECT],
  ['query null', null, NOT_AN_OBJECT],
  ['query a number', 42, NOT_AN_OBJECT],
  ['query a string', 'gpt2-124m', NOT_AN_OBJECT],
  ['query an array', [1024, 64, 12, 12, 2], NOT_AN_OBJECT],
  ['query a function', () => 1, NOT_AN_OBJECT],
  ['unknown field', fp16({ layers: 12 }), 'query'],
  ...FIELDS.slice(0, 5).map((f) => [`${f} missing`, fp16({ [f]: undefined }), f]),
  ...FIELDS.flatMap((f) =>
    BAD_VALUES.map((v) => [`${f} ${typeof v === 'string' ? `'${v}'` : String(v)}`, fp16({ [f]: v }), f]),
  ),
  ['bytesPerValue 17', fp16({ bytesPerValue: 17 }), 'bytesPerValue'],
  ['2^54 bytes', { seqLen: 2 ** 26, dHead: 1024, numKvHeads: 256, numLayers: 16, bytesPerValue: 4, batch: 8 }, OVER],
  [
    '2^53 + 2^33 - 2^21 - 2 bytes',
    { seqLen: 2 ** 32 - 1, dHead: 2 ** 20 + 1, numKvHeads: 1, numLayers: 1, bytesPerValue: 1 },
    OVER,
  ],
  [
    'every field at 2^32 - 1',
    Object.fromEntries(FIELDS.map((f) => [f, f === 'bytesPerValue' ? 16 : 2 ** 32 - 1])),
    OVER,
  ],
];

describe('errors steps: the fields of kv-cache and flash', () => {
  for (const [title, spec, field] of KIND_CASES) {
    test(`run: ${title}`, () => assertRefused(engine, () => engine.run(spec), field));
    test(`forward: ${title}`, () => assertRefused(engine, () => engine.forward(spec), field));
  }
  for (const [title, spec, last] of ACCEPTED) {
    test(`accepted: ${title}`, () => assert.equal(engine.run(spec).stages.at(-1).id, last));
  }
  test('explain refuses a bad kv-cache spec before the cell', () => {
    assertRefused(engine, () => engine.explain(decode({ causal: true }), cell({ step: 0 })), 'spec');
  });
});

describe('errors steps: explain with a step', () => {
  for (const [title, spec, c, field] of STEP_CASES)
    test(title, () => assertRefused(engine, () => engine.explain(spec, c), field));
  test("accepted: step 3's cache row 2 is step 2's k_new", () => {
    const kNew = engine.run(KV).stages.find((s) => s.id === 'k_new' && s.head === 2 && s.step === 2);
    assert.equal(engine.explain(KV, cell({ head: 2, step: 3, row: 2, col: 1 })).value, kNew.values[1]);
  });
  test('accepted: step null is no step', () => {
    assert.equal(engine.explain(KV, cell({ stage: 'stacked', head: null, step: null })).terms, null);
  });
});

describe('errors steps: kvCacheBytes', () => {
  for (const [title, query, field] of KV_BYTES_CASES)
    test(title, () => assertRefused(engine, () => engine.kvCacheBytes(query), field));
  test('accepted: the query used above, GPT-2 124M in fp16, 36 MiB', () => {
    assert.equal(engine.kvCacheBytes(fp16({})), 37748736);
  });
  test('accepted: 2^53 - 2^21 bytes, just under the edge', () => {
    const query = { seqLen: 2 ** 32 - 1, dHead: 2 ** 20, numKvHeads: 1, numLayers: 1, bytesPerValue: 1, batch: 1 };
    assert.equal(engine.kvCacheBytes(query), 2 ** 53 - 2 ** 21);
  });
});
