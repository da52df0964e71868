// Heap stability: after warm-up, thousands of runs of every kind (self, grouped-query, cross,
// encoder layer, KV-cache decoding, FlashAttention, the designed heads; with heads pruned and
// weights scaled), kvCacheBytes and pruneEach calls and refused calls must not grow the WASM
// heap (a C++ leak) nor keep JS memory alive (a leaked Embind handle or copy).
//
// How the WASM heap is measured: heapBytesOf(engine) (engine-api.js, for tests only; no part
// of the engine) reports inUse (malloc's bytes in use, mallinfo().uordblks), top (sbrk(0)) and
// memory (the WASM memory's size). inUse is exact: after a batch of calls it must come back to
// the very same number, and top and memory must not move.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { createEngine } from '../../dist/engine.js';
import { heapBytesOf } from '../../dist/engine-api.js';
import { I2, explicit, explicitCross } from './explicit-specs.mjs';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc'); // a full collection, so arrayBuffers counts only live data

let engine;
before(async () => {
  engine = await createEngine();
});

const PRESET = { preset: 'lesson-multi-head' };

const flat = (rows) => ({ shape: [rows.length, rows[0].length], values: Float64Array.from(rows.flat()) });

// kvCacheBytes queries refused for their type, an unknown field, a value, the product past 2⁵³.
const KV_REFUSED = [
  () => engine.kvCacheBytes(null),
  () => engine.kvCacheBytes({ seqLen: 1024, dHead: 64, numKvHeads: 12, numLayers: 12, bytesPerValue: 2, extra: 1 }),
  () => engine.kvCacheBytes({ seqLen: 1024, dHead: 64, numKvHeads: 12, numLayers: 12, bytesPerValue: 17 }),
  () => engine.kvCacheBytes({ seqLen: 2 ** 32 - 1, dHead: 2 ** 20 + 1, numKvHeads: 1, numLayers: 1, bytesPerValue: 1 }),
];

// pruneEach refused: kinds without W_O, a bad spec, a non-object.
const PRUNE_REFUSED = [
  () => engine.pruneEach({ preset: 'kv-cache-gqa' }),
  () => engine.pruneEach({ preset: 'lesson-self-attention' }),
  () => engine.pruneEach({ kind: 'designed', tokens: [''] }),
  () => engine.pruneEach(null),
];

// Calls that fail at different depths: in the bindings, in validation after matrices were
// copied, in explain after a whole trace was built, in randn; for every kind of spec.
const FAILING = [
  () => engine.run({ ...PRESET, extra: 1 }),
  () => engine.run({ seqLen: '5', dModel: 8 }),
  () => engine.run({ seqLen: 5, dModel: 16, numHeads: 3 }),
  () =>
    engine.run(
      explicit({
        X: [
          [1, 2],
          [3, 'x'],
        ],
      }),
    ),
  () => engine.run(explicit({ W_V: [[[1, 0], [0]]] })),
  () =>
    engine.run(
      explicit({
        W_O: [
          [1, 0, 0],
          [0, 1, 0],
        ],
      }),
    ),
  () => engine.run(explicit({ X: { shape: [2, 2], values: Float64Array.of(1, 2, NaN, 4) } })),
  () => engine.forward(explicit({ W_Q: [{ shape: [2, 3], values: new Float64Array(5) }] })),
  () => engine.run(explicit({ W_O: { shape: [3, 2], values: new Float64Array(6) } })),
  () => engine.forward(explicit({ W_K: [I2, I2] })),
  () => engine.explain(PRESET, { stage: 'q', head: 0, row: 9, col: 0 }),
  () => engine.explain(PRESET, { stage: 'nope', head: 0, row: 0, col: 0 }),
  () => engine.randn(-1, 2, 2),
  () => engine.run({ kind: 'x', seqLen: 2, dModel: 4 }),
  () => engine.run({ kind: 'cross', queryLen: 2, keyLen: 3, dModel: 4, causal: true }),
  () => engine.forward({ kind: 'cross', queryLen: 2, keyLen: 3, dModel: 4, validKeys: 4 }),
  () => engine.run({ seqLen: 3, dModel: 8, numHeads: 4, numKvHeads: 3 }),
  () => engine.run({ kind: 'encoder-layer', seqLen: 3, dModel: 8, dFF: 0 }),
  () =>
    engine.run(
      explicitCross({
        X_kv: [
          [1, 0, 0],
          [0, 1, 0],
        ],
      }),
    ),
  () => engine.forward(explicitCross({ W_K: [I2, I2, I2], W_V: [I2, I2, I2] })),
  () => engine.explain({ preset: 'gqa-4-2' }, { stage: 'k', head: 1, row: 0, col: 0 }),
  () => engine.explain({ preset: 'encoder-layer' }, { stage: 'norm1', head: null, row: 5, col: 0 }),
  () => engine.run({ kind: 'kv-cache', seqLen: 3, dModel: 8, numHeads: 2, causal: true }),
  () => engine.forward({ kind: 'kv-cache', seqLen: 3, dModel: 8, numHeads: 4, numKvHeads: 3 }),
  () => engine.run({ kind: 'flash', seqLen: 5, dModel: 8, numHeads: 2, blockRows: 2, blockCols: 2 }),
  () => engine.run({ kind: 'flash', seqLen: 5, dModel: 8, blockRows: 6, blockCols: 2 }),
  () => engine.forward({ kind: 'flash', seqLen: 5, dModel: 8, blockRows: 2 }),
  () => engine.explain({ preset: 'kv-cache-gqa' }, { stage: 'k_cache', head: 0, step: 5, row: 0, col: 0 }),
  () => engine.explain({ preset: 'kv-cache-gqa' }, { stage: 'k_cache', head: 0, step: 1.5, row: 0, col: 0 }),
  () => engine.explain({ preset: 'flash-causal' }, { stage: 'tile_out', head: 0, step: 5, row: 1, col: 0 }),
  () => engine.run({ kind: 'designed', tokens: ['the', 'cat', 7] }),
  () => engine.run({ kind: 'designed', tokens: ['the', 'x'.repeat(41)] }),
  () => engine.forward({ kind: 'designed', tokens: [] }),
  () => engine.run({ kind: 'designed', tokens: 'the cat' }),
  () => engine.run({ kind: 'designed', tokens: ['a', 'b'], prunedHeads: [0, 0] }),
  () => engine.run({ seqLen: 3, dModel: 8, numHeads: 4, prunedHeads: [1, '2'] }),
  () => engine.forward({ seqLen: 3, dModel: 8, numHeads: 4, prunedHeads: [4] }),
  () => engine.run({ seqLen: 3, dModel: 8, outputProjection: false, prunedHeads: [0] }),
  () => engine.run({ seqLen: 3, dModel: 8, weightScale: 11 }),
  () =>
    engine.explain(
      { seqLen: 3, dModel: 8, numHeads: 2, prunedHeads: [1] },
      { stage: 'pruned', head: null, row: 3, col: 0 },
    ),
  () => engine.explain(PRESET, { stage: 'scores', head: 0, row: 0, col: 0, colour: 1 }),
  () => engine.run({ kind: 'designed', tokens: ['the', '\uD800'] }),
  () => engine.run({ preset: `x${'\u202E😀'.repeat(40)}` }),
  () => engine.run({ seqLen: 2, dModel: 4, '\uDBFFx': 1 }),
  ...KV_REFUSED,
  ...PRUNE_REFUSED,
];

const failEach = () => FAILING.forEach((f) => assert.throws(f, Error));

// Runs body `repeats` times (each making `callsPer` engine calls) and checks the WASM heap;
// returns how much the JS array buffers grew, after full collections on both sides.
function assertStable(name, repeats, callsPer, body) {
  const calls = repeats * callsPer;
  gc();
  const before = heapBytesOf(engine);
  const jsBefore = process.memoryUsage().arrayBuffers;
  for (let i = 0; i < repeats; i += 1) body(i);
  gc();
  const jsGrowth = process.memoryUsage().arrayBuffers - jsBefore;
  const after = heapBytesOf(engine);
  assert.equal(after.memory, before.memory, `${name}: WASM memory grew from ${before.memory} to ${after.memory}`);
  assert.equal(
    after.inUse,
    before.inUse,
    `${name}: malloc's bytes in use went from ${before.inUse} to ${after.inUse} over ${calls} calls`,
  );
  assert.equal(after.top, before.top, `${name}: the heap top moved from ${before.top} to ${after.top}`);
  return jsGrowth;
}

describe('heap', () => {
  test('10,000 runs of lesson-multi-head do not grow the WASM heap or keep JS memory', () => {
    for (let i = 0; i < 200; i += 1) engine.run(PRESET); // warm-up: the allocator reaches its steady state
    const first = engine.run(PRESET).stages.at(-1).values;
    let last;
    const jsGrowth = assertStable('run', 10_000, 1, () => {
      last = engine.run(PRESET);
    });
    // Each run returns ~31 KB of Float64Arrays (3,864 doubles); 10,000 kept alive would
    // be ~300 MB. 16 MB is far below that and well above GC noise.
    assert.ok(jsGrowth < 16 * 1024 * 1024, `JS array buffers grew by ${jsGrowth} bytes`);
    assert.deepEqual(last.stages.at(-1).values, first, 'the 10,000th run still gives the same output');
  });

  test(`${FAILING.length},000 refused calls of ${FAILING.length} kinds do not grow the WASM heap`, () => {
    // Warm-up: a few rounds, for the allocator to reach its high-water mark for this mix of sizes
    // (one round left the heap's top a page short once decoding kept each key's position).
    for (let i = 0; i < 5; i += 1) failEach();
    assertStable('failing calls', 1_000, FAILING.length, failEach);
  });

  test('runs, forwards and explains of every preset do not grow the WASM heap', () => {
    const ids = engine.presets().map((p) => p.id);
    // One cell of a stage per preset explained in turn: the last stage that has a step (a decode
    // step or tile), else the last stage, whatever its rule.
    const cells = ids.map((preset) => {
      const { stages } = engine.run({ preset });
      const last = stages.findLast((s) => s.step !== null) ?? stages.at(-1);
      return { stage: last.id, head: last.head, step: last.step, row: 0, col: 0 };
    });
    const round = () =>
      ids.forEach((preset, i) => {
        engine.run({ preset });
        engine.forward({ preset });
        engine.explain({ preset }, cells[i]);
      });
    for (let i = 0; i < 20; i += 1) round(); // warm-up
    const jsGrowth = assertStable('every preset', 300, 3 * ids.length, round);
    assert.ok(jsGrowth < 16 * 1024 * 1024, `JS array buffers grew by ${jsGrowth} bytes`);
  });

  test('runs of every kind of explicit and generated spec do not grow the WASM heap', () => {
    const specs = [
      explicit({}),
      explicitCross({ validKeys: 2 }),
      { X: I2, W_Q: [I2, I2, I2, I2], W_K: [I2, I2], W_V: [I2, I2] },
      { kind: 'cross', queryLen: 3, keyLen: 5, dModel: 8, numHeads: 2, validKeys: 4 },
      { seqLen: 4, dModel: 8, numHeads: 4, numKvHeads: 1, causal: true },
      { kind: 'encoder-layer', seqLen: 4, dModel: 8, numHeads: 2, dFF: 12, causal: true },
      { kind: 'kv-cache', seqLen: 6, dModel: 8, numHeads: 4, numKvHeads: 1, outputProjection: false },
      { kind: 'kv-cache', seqLen: 3, dModel: 6, numHeads: 2, dK: 4, dV: 2 },
      { kind: 'flash', seqLen: 7, dModel: 8, dK: 3, dV: 2, blockRows: 3, blockCols: 2, causal: true },
      { kind: 'flash', seqLen: 6, dModel: 4, blockRows: 6, blockCols: 1, scaleScores: false },
      { kind: 'designed', tokens: ['The', 'dog', 'saw', 'the', 'dog'], causal: true, prunedHeads: [1] },
      { kind: 'designed', tokens: Array.from({ length: 40 }, (_, i) => `w${i % 7}`) },
      { seqLen: 5, dModel: 16, numHeads: 4, prunedHeads: [3, 1], weightScale: 1 },
      { kind: 'encoder-layer', seqLen: 4, dModel: 8, numHeads: 2, prunedHeads: [0], weightScale: 2.5 },
      { kind: 'cross', queryLen: 2, keyLen: 4, dModel: 8, numHeads: 2, validKeys: 3, prunedHeads: [1] },
      explicit({ prunedHeads: [0] }),
      explicit({
        X: flat([
          [1, 2],
          [3, 4],
        ]),
        W_Q: [flat(I2)],
        W_O: flat(I2),
        causal: true,
      }),
      explicitCross({
        X_kv: flat([
          [1, 0],
          [0, 1],
          [1, 1],
        ]),
        W_V: [flat(I2)],
        validKeys: 2,
      }),
    ];
    const round = () => specs.forEach((spec) => engine.run(spec));
    for (let i = 0; i < 50; i += 1) round(); // warm-up
    assertStable('every kind', 500, specs.length, round);
  });

  test('kvCacheBytes, accepted and refused, does not grow the WASM heap', () => {
    const models = engine.models().map((m) => ({
      seqLen: m.contextLength,
      dHead: m.dK,
      numKvHeads: m.numKvHeads,
      numLayers: m.numLayers,
      bytesPerValue: 2,
    }));
    const round = (i) => {
      for (const query of models) assert.ok(engine.kvCacheBytes(query) > 0);
      assert.throws(KV_REFUSED[i % KV_REFUSED.length], Error);
    };
    for (let i = 0; i < 100; i += 1) round(i); // warm-up
    const jsGrowth = assertStable('kvCacheBytes', 4_000, models.length + 1, round);
    assert.ok(jsGrowth < 16 * 1024 * 1024, `JS array buffers grew by ${jsGrowth} bytes`);
  });

  test('pruneEach, accepted and refused, does not grow the WASM heap', () => {
    const specs = [
      PRESET,
      { preset: 'designed-heads' },
      { preset: 'encoder-layer' },
      { preset: 'cross-padding' },
      { kind: 'designed', tokens: ['a', 'b', 'a'], causal: true },
    ];
    const round = (i) => {
      for (const spec of specs) assert.equal(engine.pruneEach(spec).length > 0, true);
      assert.throws(PRUNE_REFUSED[i % PRUNE_REFUSED.length], Error);
    };
    for (let i = 0; i < 100; i += 1) round(i); // warm-up
    const jsGrowth = assertStable('pruneEach', 2_000, specs.length + 1, round);
    assert.ok(jsGrowth < 16 * 1024 * 1024, `JS array buffers grew by ${jsGrowth} bytes`);
  });

  test('refused calls between good ones do not grow the WASM heap', () => {
    assertStable('failing calls between forwards', 4_000, 2, (i) => {
      engine.forward(PRESET);
      assert.throws(FAILING[i % FAILING.length], Error);
    });
  });

  test('a spec whose getter throws: the caller gets that Error and the heap does not grow', () => {
    // Last, as a leak here would hide one in a later test. The JS exception unwinds through
    // the C++ frames that were reading the spec; what they had allocated (the rows copied so
    // far, the partial spec) must not be lost with them.
    const trap = explicit({});
    Object.defineProperty(trap, 'W_V', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    const call = () => assert.throws(() => engine.run(trap), /getter/);
    call(); // warm-up
    assertStable('throwing getter', 10_000, 1, call);
  });
});
