// run(spec, { reuse: trace }): the new trace is written into the memory of an earlier one. It must
// hold the same bits as a fresh run; the earlier trace must read as empty afterwards (never as
// the new numbers under the old labels), stay whole when the spec is refused, and a bad option
// must be named.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { assertRefused, assertSameBits, assertSameTrace } from './support.mjs';

const engine = await createEngine();

const SMALL = { seed: 42, seqLen: 5, dModel: 8, numHeads: 2, causal: true };
const LARGE = { seed: 7, seqLen: 12, dModel: 16, numHeads: 4, causal: false };
const GQA = { seed: 3, seqLen: 6, dModel: 16, numHeads: 4, numKvHeads: 2, causal: true };

// Every array of a trace: stage values, row totals and operands.
const arraysOf = (trace) =>
  trace.stages.flatMap((s) => [s.values, ...(s.totals ? [s.totals] : []), ...s.operands.map((o) => o.values)]);

// assertSameTrace, and the row totals' bits, every array and each stage's shape and equation too.
function assertSameWhole(got, want) {
  assertSameTrace(got, want);
  const [a, b] = [arraysOf(got), arraysOf(want)];
  assert.equal(a.length, b.length);
  a.forEach((values, i) => assertSameBits(`array ${i}`, values, b[i]));
  assert.deepEqual(
    got.stages.map((s) => [s.id, s.head, s.shape, s.equation]),
    want.stages.map((s) => [s.id, s.head, s.shape, s.equation]),
  );
}

describe('run(spec, { reuse })', () => {
  for (const [name, from, to] of [
    ['the same spec', SMALL, SMALL],
    ['a smaller trace into a larger one', LARGE, SMALL],
    ['a larger trace into a smaller one (fresh memory)', SMALL, LARGE],
    ['another kind', SMALL, GQA],
  ]) {
    test(`${name}: the same bits as a fresh run, and the reused trace reads as empty`, () => {
      const old = engine.run(from);
      const oldBytes = old.stages[0].values.buffer.byteLength;
      const reused = engine.run(to, { reuse: old });
      assertSameWhole(reused, engine.run(to));
      assert.ok(
        arraysOf(old).every((values) => values.length === 0),
        'every array of the reused trace is empty',
      );
      const fits = oldBytes >= arraysOf(reused).reduce((n, v) => Math.max(n, v.byteOffset + v.byteLength), 0);
      assert.equal(reused.stages[0].values.buffer.byteLength === oldBytes, fits, 'its memory is used when it fits');
    });
  }

  test('a refused spec leaves the trace to reuse whole, and it can be reused afterwards', () => {
    const old = engine.run(SMALL);
    const copy = arraysOf(old).map((values) => Float64Array.from(values));
    assertRefused(engine, () => engine.run({ ...SMALL, numHeads: 3 }, { reuse: old }), 'numHeads');
    arraysOf(old).forEach((values, i) => assert.deepEqual(values, copy[i]));
    assertSameWhole(engine.run(LARGE, { reuse: old }), engine.run(LARGE));
  });

  test('a trace already reused gives no memory, and the run still succeeds', () => {
    const old = engine.run(SMALL);
    engine.run(SMALL, { reuse: old });
    assertSameWhole(engine.run(SMALL, { reuse: old }), engine.run(SMALL));
  });

  test('run(spec) and run(spec, {}) and run(spec, { reuse: undefined }) are the plain run', () => {
    const want = engine.run(SMALL);
    assertSameWhole(engine.run(SMALL, {}), want);
    assertSameWhole(engine.run(SMALL, { reuse: undefined }), want);
  });

  // Their wording: the hostile table (tests/browser/hostile-cases.mjs).
  for (const [options, field] of [
    [null, 'options'],
    [5, 'options'],
    [[], 'options'],
    [{ reuse: {} }, 'options.reuse'],
    [{ reuse: { config: {}, stages: [] } }, 'options.reuse'],
    [{ reuse: engine.forward(SMALL) }, 'options.reuse'],
    [{ reuses: 1 }, 'options'],
  ]) {
    test(`options ${JSON.stringify(options)} is refused by name, and the engine serves the next call`, () => {
      assertRefused(engine, () => engine.run(SMALL, options), field);
      assertSameWhole(engine.run(SMALL), engine.run(SMALL));
    });
  }

  test('a copy of a trace is not the trace: its memory is not taken', () => {
    const old = engine.run(SMALL);
    assertRefused(engine, () => engine.run(SMALL, { reuse: { ...old } }), 'options.reuse');
    assert.ok(arraysOf(old).every((values) => values.length > 0));
  });
});
