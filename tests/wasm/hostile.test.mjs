// The bad-input table's engine cases (tests/browser/hostile-cases.mjs), where the table's wording
// is asserted: each call throws a real Error with the table's message (hidden characters
// compared as \uXXXX, "…" ending a prefix), or for an accepted input returns a trace; after each
// the engine does not abort and gives the next preset exactly as before any error, and the heap
// does not grow.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { heapBytesOf } from '../../dist/engine-api.js';
import { API_CASES, escaped, sameMessage } from '../browser/hostile-cases.mjs';
import { assertRefused, servingCheck } from './support.mjs';

let engine;
let stillServes; // after each refusal: the next preset gives the trace it gave before any error
before(async () => {
  engine = await createEngine();
  stillServes = servingCheck(engine);
});

describe('hostile: the engine API', () => {
  API_CASES.forEach((c, i) => {
    test(`${i + 1}. ${c.where}: ${escaped(String(c.call)).slice(0, 90)}`, () => {
      if (c.accepted) {
        assert.ok(c.call(engine).stages.length > 0);
        stillServes();
        return;
      }
      const message = assertRefused(engine, () => c.call(engine), c.message.slice(0, c.message.indexOf(': ')));
      assert.ok(
        sameMessage(message, c.message),
        `message ${JSON.stringify(escaped(message))} should be ${JSON.stringify(escaped(c.message))}`,
      );
    });
  });

  test('a query left no key by validKeys, refused 2,000 times: the heap is flat and the engine serves', () => {
    // It trapped (memory access out of bounds), leaked 8.5 KB a call and died by the 1,500th.
    const spec = { seed: 3, seqLen: 5, dModel: 8, numHeads: 2, window: 1, validKeys: 1 };
    assertRefused(engine, () => engine.run(spec), 'validKeys');
    const inUse = heapBytesOf(engine).inUse;
    for (let i = 0; i < 2000; i += 1) assert.throws(() => engine.run(spec), /^Error: validKeys: 1 leaves query 1/);
    assert.ok(heapBytesOf(engine).inUse <= inUse + 4096, `heap in use ${inUse} → ${heapBytesOf(engine).inUse}`);
    stillServes();
  });

  test('the heap is flat over every case, run five times', () => {
    const run = () =>
      API_CASES.forEach((c) => {
        try {
          c.call(engine);
        } catch {
          // refused, as the cases above check
        }
      });
    run();
    const inUse = heapBytesOf(engine).inUse;
    for (let i = 0; i < 4; i += 1) run();
    assert.ok(heapBytesOf(engine).inUse <= inUse + 4096, `heap in use ${inUse} → ${heapBytesOf(engine).inUse}`);
    stillServes();
  });
});
