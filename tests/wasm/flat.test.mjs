// Explicit matrices given flat, { shape: [rows, cols], values: Float64Array }: the same trace as
// the same matrices given as arrays of rows, bit for bit, for every explicit case numpy computed
// (self, grouped-query, multi-query, cross with padding, causal, pruned) and with both forms
// mixed in one spec; every wrong shape, count, type and value refused with a message that names
// the field (X.shape[0], X.values, W_Q[1].values[5] …), after which the engine still serves.
// A spec crosses into WASM once, refused or not; engine-api.js's numbersOf hands the bindings each
// array of numbers as one Float64Array, and the bindings without it read the same bits.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, describe, test } from 'node:test';

import createAttentionModule from '../../dist/attention-wasm.mjs';
import { createEngine } from '../../dist/engine.js';
import { wrapEngine } from '../../dist/engine-api.js';
import { CASES, assertRefused, assertSameBits, assertSameTrace, sizesOf, explicitSpecFor } from './support.mjs';

let engine;
let bindings; // the module itself: arrays of rows reach the C++ reader as given
before(async () => {
  engine = await createEngine();
  bindings = await createAttentionModule({
    wasmBinary: await readFile(new URL('../../dist/attention-wasm.wasm', import.meta.url)),
  });
});

const flat = (rows) => ({ shape: [rows.length, rows[0].length], values: Float64Array.from(rows.flat()) });

// The spec with every matrix (X, X_q, X_kv, W_O and each W_Q, W_K, W_V) given flat.
function flatSpec(spec) {
  const out = { ...spec };
  for (const key of ['X', 'X_q', 'X_kv', 'W_O']) if (out[key]) out[key] = flat(out[key]);
  for (const key of ['W_Q', 'W_K', 'W_V']) out[key] = out[key].map(flat);
  return out;
}

const EXPLICIT = CASES.filter(([name]) => ['self', 'cross'].includes(sizesOf(name).kind)).map(([name]) => name);

describe('flat matrices: the same numbers as arrays of rows', () => {
  for (const name of EXPLICIT) {
    test(name, () => {
      const rows = explicitSpecFor(name);
      assertSameTrace(engine.run(flatSpec(rows)), engine.run(rows));
      assertSameBits('forward', engine.forward(flatSpec(rows)).values, engine.forward(rows).values);
    });
  }

  test('both forms in one spec, and a view into a larger buffer', () => {
    const rows = explicitSpecFor('gqa-4-2');
    const mixed = { ...rows, X: flat(rows.X), W_K: [flat(rows.W_K[0]), rows.W_K[1]] };
    const { shape, values } = flat(rows.W_O);
    const padded = new Float64Array(values.length + 10);
    padded.set(values, 7);
    mixed.W_O = { shape, values: padded.subarray(7, 7 + values.length) };
    assertSameTrace(engine.run(mixed), engine.run(rows));
  });

  test('explain and pruneEach read flat matrices too', () => {
    const rows = explicitSpecFor('lesson-multi-head');
    const cell = { stage: 'scores', head: 1, row: 2, col: 3 };
    assert.deepEqual(engine.explain(flatSpec(rows), cell), engine.explain(rows, cell));
    assert.deepEqual(engine.pruneEach(flatSpec(rows)), engine.pruneEach(rows));
  });

  test("the caller's arrays are left as they were", () => {
    const spec = flatSpec(explicitSpecFor('lesson-self-attention'));
    const before = Float64Array.from(spec.X.values);
    engine.run(spec);
    assertSameBits('X.values', spec.X.values, before);
  });
});

const I2 = [
  [1, 0],
  [0, 1],
];
const good = () => ({
  X: flat([
    [1, 2],
    [3, 4],
  ]),
  W_Q: [flat(I2)],
  W_K: [flat(I2)],
  W_V: [flat(I2)],
  W_O: flat(I2),
});
const of = (shape, values) => ({ shape, values: Float64Array.from(values) });

// [title, fields replacing good()'s, the message]
const REFUSED = [
  ['too few values', { X: of([3, 4], new Array(11).fill(0)) }, 'X.values'],
  ['too many values', { W_O: of([2, 2], [1, 0, 0, 1, 5]) }, 'W_O.values'],
  ['a fractional row count', { X: of([2.5, 4], new Array(10).fill(0)) }, 'X.shape[0]'],
  ['no rows', { X: of([0, 2], []) }, 'X.shape[0]'],
  ['negative columns', { X: of([2, -2], []) }, 'X.shape[1]'],
  ['NaN columns', { X: of([2, NaN], []) }, 'X.shape[1]'],
  ['too many rows', { X: of([1025, 1], new Array(1025).fill(0)) }, 'X.shape[0]'],
  ['a shape of one number', { X: of([4], [1, 2, 3, 4]) }, 'X.shape'],
  ['a shape that is a string', { X: { shape: '2x2', values: Float64Array.of(1, 2, 3, 4) } }, 'X.shape'],
  ['no shape', { X: { values: Float64Array.of(1, 2, 3, 4) } }, 'X.shape'],
  ['a size that is a string', { X: { shape: [2, '2'], values: Float64Array.of(1, 2, 3, 4) } }, 'X.shape[1]'],
  ['values as a plain array', { X: { shape: [2, 2], values: [1, 2, 3, 4] } }, 'X.values'],
  ['values as a Float32Array', { X: { shape: [2, 2], values: new Float32Array(4) } }, 'X.values'],
  ['no values', { X: { shape: [2, 2] } }, 'X.values'],
  ['a NaN', { X: of([2, 2], [1, 2, NaN, 4]) }, 'X.values[2]'],
  ['an infinity in a head', { W_Q: [of([2, 2], [1, 0, 0, -Infinity])] }, 'W_Q[0].values[3]'],
  ['a value past 1e6', { W_V: [of([2, 2], [1, 2e6, 0, 1])] }, 'W_V[0].values[1]'],
  ['an unknown field', { X: { ...of([2, 2], [1, 2, 3, 4]), rows: 2 } }, 'X'],
  ['a shape that does not fit the others', { W_K: [of([3, 2], [1, 0, 0, 1, 0, 0])] }, 'W_K[0]'],
  ['an empty object is still no matrix', { W_O: {} }, 'W_O'],
];

// An engine over a stand-in module whose forward records each spec it is handed and refuses it.
function recording() {
  const module = { seen: [], forward: (spec) => (module.seen.push(spec), { error: 'X[1][1]: refused' }) };
  return { module, engine: wrapEngine(module) };
}

describe('arrays of rows: one crossing, each array of numbers as one Float64Array', () => {
  test('a refused spec crosses once, as the caller gave it (a plain copy)', () => {
    const { module, engine: spy } = recording();
    const spec = { X: I2, W_Q: [I2], W_K: [I2], W_V: [I2] };
    assert.throws(() => spy.forward(spec), /^Error: X\[1\]\[1\]: refused$/);
    assert.equal(module.seen.length, 1);
    assert.deepEqual(module.seen[0], spec);
    assert.notEqual(module.seen[0], spec, 'a copy: no getter of the caller\u2019s runs in C++');
  });

  test('numbersOf, on the module: the numbers of an array of numbers, else null', () => {
    const { module } = recording();
    assert.deepEqual(module.numbersOf([1, -0, 2.5, NaN, Infinity]), Float64Array.of(1, -0, 2.5, NaN, Infinity));
    assert.ok(Object.is(module.numbersOf([-0])[0], -0));
    assert.deepEqual(module.numbersOf([]), new Float64Array(0));
    for (const mixed of [[1, '2'], [1, null], [[1]], [1, , 2], [1, undefined], [1n], [Float64Array.of(1)]])
      assert.equal(
        module.numbersOf(mixed),
        null,
        JSON.stringify(mixed, (k, v) => (typeof v === 'bigint' ? 'n' : v)),
      );
  });

  test('a bad value in an array of rows is named by its row and column', () => {
    const spec = (x) => ({ X: x, W_Q: [I2], W_K: [I2], W_V: [I2] });
    for (const [x, field] of [
      [
        [
          [1, 0],
          [0, NaN],
        ],
        'X[1][1]',
      ],
      [
        [
          [1, 0],
          [0, '1'],
        ],
        'X[1][1]',
      ],
      [[[1, 0], [1]], 'X'],
    ])
      assertRefused(engine, () => engine.forward(spec(x)), field);
  });

  test('a spec that cannot be read is left to plain(): its message as before', () => {
    const spec = {
      X: I2,
      W_Q: [I2],
      W_K: [I2],
      W_V: [I2],
      get causal() {
        throw new Error('boom');
      },
    };
    // Its wording: the hostile table (tests/browser/hostile-cases.mjs).
    const message = assertRefused(engine, () => engine.forward(spec), 'spec');
    assert.ok(message.endsWith('(boom)'), message);
  });

  test('the bindings without numbersOf read arrays of rows value by value: the same bits', () => {
    for (const name of EXPLICIT) {
      const rows = explicitSpecFor(name);
      const given = bindings.forward(rows);
      assert.ok('value' in given, `${name}: ${given.error}`);
      assertSameBits(name, engine.forward(rows).values, given.value.values);
    }
  });
});

describe('flat matrices: refused by name', () => {
  const baseline = sameOutputEachTime();
  for (const [title, fields, field] of REFUSED) {
    for (const call of ['run', 'forward']) {
      test(`${call}: ${title}`, () => {
        assertRefused(engine, () => engine[call]({ ...good(), ...fields }), field);
        baseline.check();
      });
    }
  }
  test('the spec these cases change is accepted', () => {
    assert.equal(engine.run(good()).stages.at(-1).id, 'output');
  });
});

// After each refusal the engine still gives the very trace it gave before any error.
function sameOutputEachTime() {
  let first = null;
  return {
    check() {
      const now = engine.run(good()).stages.at(-1).values;
      first ??= now;
      assertSameBits('output after an error', now, first);
    },
  };
}
