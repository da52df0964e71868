// Each stage is declared once on each side, and the two sides agree: the page's stage table
// (web/model/stage-table.js) lists exactly the engine's stages (engine.stages(), from the C++
// table), every entry states every field, and every operand the engine may record for a stage
// has its caption in that stage's entry, and no other.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { ENTRY_FIELDS, STAGES } from '../../web/model/stage-table.js';

const engine = await createEngine();
const declared = engine.stages();

test('the page declares exactly the engine\u2019s stages, each once', () => {
  const ids = STAGES.map((s) => s.id);
  assert.equal(new Set(ids).size, ids.length, 'each id once');
  assert.deepEqual([...ids].sort(), declared.map((s) => s.id).sort());
});

test('every entry states every field', () => {
  for (const entry of STAGES)
    for (const field of ENTRY_FIELDS) assert.notEqual(entry[field], undefined, `${entry.id}: ${field}`);
});

test('every operand the engine records is captioned by its entry or named after a stage', () => {
  const stageIds = new Set(declared.map((s) => s.id));
  for (const { id, operands } of declared) {
    const entry = STAGES.find((s) => s.id === id);
    const names = operands.flatMap((o) => o.names);
    for (const name of names)
      assert.ok(name in entry.operands || stageIds.has(name), `${id}: operand ${name} has no caption`);
    for (const name of Object.keys(entry.operands))
      assert.ok(names.includes(name), `${id}: a caption for ${name}, which the engine does not record`);
  }
});

test('each entry\u2019s numpy path and quiz are functions of the right kind', () => {
  for (const entry of STAGES) {
    assert.equal(typeof entry.numpy, 'function', `${entry.id}: numpy`);
    assert.ok(Array.isArray(entry.quiz) && entry.quiz.every((q) => typeof q === 'function'), `${entry.id}: quiz`);
    assert.equal(typeof entry.nonNegative, 'boolean', `${entry.id}: nonNegative`);
    assert.equal(typeof entry.firstView, 'boolean', `${entry.id}: firstView`);
  }
});
