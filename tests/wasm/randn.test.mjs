// randn through the WASM engine: numpy's legacy generator, bit for bit.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { fixture } from './support.mjs';

let engine;
before(async () => {
  engine = await createEngine();
});

describe('randn', () => {
  test('seed 42 starts with the five values quoted in the issue', () => {
    // np.random.seed(42); np.random.randn(5)
    const want = [
      0.4967141530112327, -0.13826430117118466, 0.6476885381006925, 1.5230298564080254, -0.23415337472333597,
    ];
    assert.deepEqual(Array.from(engine.randn(42, 1, 5)), want);
  });

  for (const [seed, rows, cols] of [
    [42, 2, 5],
    [0, 3, 3],
    [1, 1, 7],
    [4294967295, 4, 2],
  ]) {
    test(`randn(${seed}, ${rows}, ${cols}) equals numpy's fixture exactly`, () => {
      const got = engine.randn(seed, rows, cols);
      assert.ok(got instanceof Float64Array, 'randn returns a Float64Array');
      assert.deepEqual(Array.from(got), Array.from(fixture(`randn/${seed}/${rows}x${cols}`).values));
    });
  }

  test('the values are row-major: randn(42, 2, 5) is randn(42, 1, 10) cut in two', () => {
    assert.deepEqual(Array.from(engine.randn(42, 2, 5)), Array.from(engine.randn(42, 1, 10)));
  });

  test('each call starts from its seed again (no state between calls)', () => {
    assert.deepEqual(Array.from(engine.randn(7, 3, 3)), Array.from(engine.randn(7, 3, 3)));
  });
});
