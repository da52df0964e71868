// Refused input of the kinds whose stages carry a step (kv-cache, flash), of explain's step, and
// of kvCacheBytes: each reaches JS as a real Error whose message names the field, the value and
// the rule; after each one the next preset in turn gives exactly the trace it gave before any
// error (the other kinds' errors: errors.test.mjs).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { servingCheck } from './support.mjs';

let engine;
let stillServes; // after each refusal: the next preset gives the trace it gave before any error
before(async () => {
  engine = await createEngine();
  stillServes = servingCheck(engine);
});

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

const I2 = [
  [1, 0],
  [0, 1],
];
const decode = (fields) => ({ kind: 'kv-cache', seqLen: 3, dModel: 8, numHeads: 4, ...fields });
const flash = (fields) => ({ kind: 'flash', seqLen: 5, dModel: 8, blockRows: 2, blockCols: 2, ...fields });
const unknown = (field, kind) => `spec: unknown field "${field}" for kind "${kind}"`;

// Decoding is causal by nature, with no FFN and no padding; a flash pass is one head without W_O
// or padding; B_r and B_c are whole numbers of tokens in [1, seqLen]. [title, spec, text].
const KIND_CASES = [
  ['causal on kv-cache', decode({ causal: true }), unknown('causal', 'kv-cache')],
  ['causal false on kv-cache', decode({ causal: false }), unknown('causal', 'kv-cache')],
  ['dFF on kv-cache', decode({ dFF: 16 }), unknown('dFF', 'kv-cache')],
  ['validKeys on kv-cache', decode({ validKeys: 2 }), unknown('validKeys', 'kv-cache')],
  ['blockRows on kv-cache', decode({ blockRows: 2 }), unknown('blockRows', 'kv-cache')],
  ['numHeads on flash', flash({ numHeads: 1 }), unknown('numHeads', 'flash')],
  ['numKvHeads on flash', flash({ numKvHeads: 1 }), unknown('numKvHeads', 'flash')],
  ['outputProjection on flash', flash({ outputProjection: false }), unknown('outputProjection', 'flash')],
  ['validKeys on flash', flash({ validKeys: 2 }), unknown('validKeys', 'flash')],
  ['dFF on flash', flash({ dFF: 8 }), unknown('dFF', 'flash')],
  ['blockRows on self', { seqLen: 3, dModel: 4, blockRows: 1 }, 'spec: unknown field "blockRows" for self-attention'],
  ['numKvHeads 3 of 4 in kv-cache', decode({ numKvHeads: 3 }), 'numKvHeads: 3 does not divide numHeads 4'],
  ['numKvHeads 0 in kv-cache', decode({ numKvHeads: 0 }), 'numKvHeads: 0 is out of range [1, 4]'],
  ['seqLen 0 in kv-cache', decode({ seqLen: 0 }), 'seqLen: 0 is out of range [1, 1024]'],
  ['seqLen missing in flash', flash({ seqLen: undefined }), 'seqLen: is missing; give a whole number'],
  [
    'explicit kv-cache',
    { kind: 'kv-cache', X: I2 },
    'kind: "kv-cache" takes no explicit matrices; give sizes and a seed (or tokens)',
  ],
  [
    'explicit flash',
    { kind: 'flash', X: I2 },
    'kind: "flash" takes no explicit matrices; give sizes and a seed (or tokens)',
  ],
  ...['blockRows', 'blockCols'].flatMap((f) => [
    [`${f} missing`, flash({ [f]: undefined }), `${f}: is missing; give a whole number`],
    [`${f} 0`, flash({ [f]: 0 }), `${f}: 0 is out of range [1, 5]`],
    [`${f} -1`, flash({ [f]: -1 }), `${f}: -1 is out of range [1, 5]`],
    [`${f} 6, past seqLen 5`, flash({ [f]: 6 }), `${f}: 6 is out of range [1, 5]`],
    [`${f} 1.5`, flash({ [f]: 1.5 }), `${f}: 1.5 is not a whole number`],
    [`${f} NaN`, flash({ [f]: NaN }), `${f}: NaN is not a finite number`],
    [`${f} Infinity`, flash({ [f]: Infinity }), `${f}: Infinity is not a finite number`],
    [`${f} a string`, flash({ [f]: '2' }), `${f}: must be a number, got string`],
    [`${f} null`, flash({ [f]: null }), `${f}: must be a number, got null`],
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
  ['step -1', KV, cell({ step: -1 }), 'step: -1 is out of range [0, 1048576]'],
  ['step 1.5', KV, cell({ step: 1.5 }), 'step: 1.5 is not a whole number'],
  ['step NaN', KV, cell({ step: NaN }), 'step: NaN is not a finite number'],
  ['step a string', KV, cell({ step: '1' }), 'step: must be a number, got string'],
  ['step true', KV, cell({ step: true }), 'step: must be a number, got boolean'],
  ['step 2^21', KV, cell({ step: 2 ** 21 }), 'step: 2097152 is out of range [0, 1048576]'],
  ['step 5 of 5 steps', KV, cell({ step: 5 }), 'stage: no stage "k_cache" for head 0 at step 5 in this trace'],
  ['a decode stage without its step', KV, cell({}), 'stage: no stage "k_cache" for head 0 in this trace'],
  [
    'the cache of head 1, kept under head 0',
    KV,
    cell({ head: 1, step: 0 }),
    'stage: no stage "k_cache" for head 1 at step 0',
  ],
  ["a row past step 2's cache", KV, cell({ step: 2, row: 3 }), "cell: (3, 0) is outside k_cache's shape (3, 4)"],
  [
    'a step on a stage without steps',
    { preset: 'lesson-multi-head' },
    cell({ stage: 'q', step: 0 }),
    'stage: no stage "q" for head 0 at step 0',
  ],
  [
    'stacked at a step',
    KV,
    cell({ stage: 'stacked', head: null, step: 0 }),
    'stage: no stage "stacked" for head -1 at step 0',
  ],
  ['tile 6 of 6', FLASH, cell({ stage: 'tile_out', step: 6 }), 'stage: no stage "tile_out" for head 0 at step 6'],
  [
    'block_out at a tile that ends no block',
    FLASH,
    cell({ stage: 'block_out', step: 1 }),
    'stage: no stage "block_out" for head 0 at step 1',
  ],
  [
    'a tile cell past the short block',
    FLASH,
    cell({ stage: 'tile_scores', step: 5, row: 1 }),
    "cell: (1, 0) is outside tile_scores's shape (1, 1)",
  ],
];

// kvCacheBytes: the query's type, its fields, each field's values, and products past 2⁵³.
const fp16 = (fields) => ({ seqLen: 1024, dHead: 64, numKvHeads: 12, numLayers: 12, bytesPerValue: 2, ...fields });
const OVER = 'kvCacheBytes: the product exceeds 2^53 = 9007199254740992 bytes; use smaller sizes';
const NOT_AN_OBJECT = 'query: must be an object { seqLen, dHead, numKvHeads, numLayers, bytesPerValue, batch }';
const FIELDS = ['seqLen', 'dHead', 'numKvHeads', 'numLayers', 'bytesPerValue', 'batch'];
const badValues = (field) => {
  const range = field === 'bytesPerValue' ? '[1, 16]' : '[1, 4294967295]';
  return [
    [0, `0 is out of range ${range}`],
    [-2, `-2 is out of range ${range}`],
    [2.5, '2.5 is not a whole number'],
    [NaN, 'NaN is not a finite number'],
    [Infinity, 'Infinity is not a finite number'],
    [-Infinity, '-Infinity is not a finite number'],
    [2 ** 32, `4294967296 is out of range ${range}`],
    [1e300, `1e+300 is out of range ${range}`],
    ['8', 'must be a number, got string'],
    [null, 'must be a number, got null'],
    [true, 'must be a number, got boolean'],
  ];
};
const KV_BYTES_CASES = [
  ['query undefined', undefined, NOT_AN_OBJECT],
  ['query null', null, NOT_AN_OBJECT],
  ['query a number', 42, NOT_AN_OBJECT],
  ['query a string', 'gpt2-124m', NOT_AN_OBJECT],
  ['query an array', [1024, 64, 12, 12, 2], NOT_AN_OBJECT],
  ['query a function', () => 1, NOT_AN_OBJECT],
  [
    'unknown field',
    fp16({ layers: 12 }),
    'query: unknown field "layers" for kvCacheBytes ' +
      '(known: batch, bytesPerValue, dHead, numKvHeads, numLayers, seqLen, window)',
  ],
  ...FIELDS.slice(0, 5).map((f) => [`${f} missing`, fp16({ [f]: undefined }), `${f}: is missing; give a whole number`]),
  ...FIELDS.flatMap((f) =>
    badValues(f).map(([v, rule]) => [
      `${f} ${typeof v === 'string' ? `'${v}'` : String(v)}`,
      fp16({ [f]: v }),
      `${f}: ${rule}`,
    ]),
  ),
  ['bytesPerValue 17', fp16({ bytesPerValue: 17 }), 'bytesPerValue: 17 is out of range [1, 16]'],
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
  for (const [title, spec, text] of KIND_CASES) {
    test(`run: ${title}`, () => assertRefused(() => engine.run(spec), text));
    test(`forward: ${title}`, () => assertRefused(() => engine.forward(spec), text));
  }
  for (const [title, spec, last] of ACCEPTED) {
    test(`accepted: ${title}`, () => assert.equal(engine.run(spec).stages.at(-1).id, last));
  }
  test('explain refuses a bad kv-cache spec before the cell', () => {
    assertRefused(() => engine.explain(decode({ causal: true }), cell({ step: 0 })), unknown('causal', 'kv-cache'));
  });
});

describe('errors steps: explain with a step', () => {
  for (const [title, spec, c, text] of STEP_CASES)
    test(title, () => assertRefused(() => engine.explain(spec, c), text));
  test("accepted: step 3's cache row 2 is step 2's k_new", () => {
    const kNew = engine.run(KV).stages.find((s) => s.id === 'k_new' && s.head === 2 && s.step === 2);
    assert.equal(engine.explain(KV, cell({ head: 2, step: 3, row: 2, col: 1 })).value, kNew.values[1]);
  });
  test('accepted: step null is no step', () => {
    assert.equal(engine.explain(KV, cell({ stage: 'stacked', head: null, step: null })).terms, null);
  });
});

describe('errors steps: kvCacheBytes', () => {
  for (const [title, query, text] of KV_BYTES_CASES)
    test(title, () => assertRefused(() => engine.kvCacheBytes(query), text));
  test('accepted: the query used above, GPT-2 124M in fp16, 36 MiB', () => {
    assert.equal(engine.kvCacheBytes(fp16({})), 37748736);
  });
  test('accepted: 2^53 - 2^21 bytes, just under the edge', () => {
    const query = { seqLen: 2 ** 32 - 1, dHead: 2 ** 20, numKvHeads: 1, numLayers: 1, bytesPerValue: 1, batch: 1 };
    assert.equal(engine.kvCacheBytes(query), 2 ** 53 - 2 ** 21);
  });
});
