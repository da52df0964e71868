// The hostile review's rows D and E (budget-cases.mjs): an argument, an explain list or a training
// call within every field's own limit but past what a call may take together is refused by name
// before the work (or the rest of the reading) is done, and the engine answers the next call as
// before.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { heapBytesOf } from '../../dist/engine-api.js';
import { BUDGET_CASES } from './budget-cases.mjs';

let engine;
before(async () => {
  engine = await createEngine();
});

function refused(call) {
  try {
    call();
  } catch (e) {
    assert.ok(e instanceof Error, `${e} is an Error`);
    return e.message;
  }
  assert.fail('accepted');
}

// After a refusal the engine still gives the same first weights of the causal example.
function stillAnswers() {
  const weights = engine.run({ preset: 'lesson-causal' }).stages.find((s) => s.id === 'weights');
  assert.equal(weights.values[0], 1);
}

for (const [row, call, message] of BUDGET_CASES)
  test(`${row}: ${message.slice(0, 60)}`, () => {
    const said = refused(() => call(engine));
    if (message.endsWith('\u2026')) assert.ok(said.startsWith(message.slice(0, -1)), said);
    else assert.equal(said, message);
    stillAnswers();
  });

test('D29: the refused matrices were not read to the end into WebAssembly\u2019s memory', () => {
  // Read to the end, W_Q, W_K and W_V would be 192 copies of 8 MiB (1.5 GiB).
  const { memory } = heapBytesOf(engine);
  assert.ok(memory < 600 * 2 ** 20, `WebAssembly's memory grew to ${memory} bytes`);
});

test('D28: the documented 65,536 cells of a stage whose cells have few parts are explained, all of them', () => {
  const small = Array.from({ length: 65536 }, (_, i) => ({ stage: 'weights', head: 0, row: i % 4, col: (i >> 2) % 4 }));
  const explained = engine.explain({ preset: 'lesson-causal' }, small);
  assert.equal(explained.length, 65536);
  assert.equal(explained[65535].value, engine.explain({ preset: 'lesson-causal' }, small[65535]).value);
});
