// Each stage is declared once on each side, and the two sides agree: the page's stage table
// (web/model/stage-table.js) lists exactly the engine's stages (engine.stages(), from the C++
// table), every entry states the fields it must and entry() fills the rest (no entry restates
// their defaults), and every operand the engine may record for a stage has its caption in that
// stage's entry, and no other.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { ENTRY_FIELDS, STAGES } from '../../web/model/stage-table.js';
import { entry } from '../../web/model/stages/entry.js';

const engine = await createEngine();
const declared = engine.stages();

test('the page declares exactly the engine\u2019s stages, each once, and the stages it composes', () => {
  const ids = STAGES.map((s) => s.id);
  assert.equal(new Set(ids).size, ids.length, 'each id once');
  const traced = STAGES.filter((s) => !s.composed).map((s) => s.id);
  assert.deepEqual([...traced].sort(), declared.map((s) => s.id).sort());
  assert.deepEqual(
    STAGES.filter((s) => s.composed).map((s) => s.id),
    ['all_heads'],
    'composed of the trace\u2019s own stages',
  );
});

// A term the engine may report is rendered by its stage's entry, and the entry renders no other:
// adding a term means declaring it in the C++ table and writing its renderer once.
test('every term the engine declares for a stage, its entry renders, and no other', () => {
  for (const { id, terms } of declared) {
    const own = STAGES.find((s) => s.id === id);
    assert.deepEqual([...own.terms].sort(), [...terms].sort(), `${id}: terms`);
  }
  assert.deepEqual(declared.find((s) => s.id === 'masked').terms, [
    'causal',
    'prefix',
    'window',
    'sink-tokens',
    'documents',
    'padding',
  ]);
});

test('every entry states every field it must', () => {
  for (const stage of STAGES)
    for (const field of ENTRY_FIELDS) assert.notEqual(stage[field], undefined, `${stage.id}: ${field}`);
});

test('no entry restates a default entry() fills', () => {
  const folder = new URL('../../web/model/stages/', import.meta.url);
  const defaults = Object.entries(entry({})).map(([field, value]) => `${field}: ${JSON.stringify(value)},`);
  for (const file of readdirSync(folder).filter((name) => name !== 'entry.js')) {
    const text = readFileSync(new URL(file, folder), 'utf8');
    for (const line of defaults) assert.ok(!text.includes(line), `${file}: ${line} (entry() fills it)`);
  }
});

test('every operand the engine records is captioned by its entry or named after a stage', () => {
  const stageIds = new Set(declared.map((s) => s.id));
  for (const { id, operands } of declared) {
    const own = STAGES.find((s) => s.id === id);
    const names = operands.flatMap((o) => o.names);
    for (const name of names)
      assert.ok(name in own.operands || stageIds.has(name), `${id}: operand ${name} has no caption`);
    for (const name of Object.keys(own.operands))
      assert.ok(names.includes(name), `${id}: a caption for ${name}, which the engine does not record`);
  }
});

test('every entry is complete: its numpy path, and the fields entry() fills, of the right kind', () => {
  for (const stage of STAGES) {
    assert.equal(typeof stage.numpy, 'function', `${stage.id}: numpy`);
    assert.ok(Array.isArray(stage.quiz) && stage.quiz.every((q) => typeof q === 'function'), `${stage.id}: quiz`);
    assert.equal(typeof stage.nonNegative, 'boolean', `${stage.id}: nonNegative`);
    assert.equal(typeof stage.firstView, 'boolean', `${stage.id}: firstView`);
    assert.equal(Object.getPrototypeOf(stage.operands), Object.prototype, `${stage.id}: operands`);
    assert.ok(Array.isArray(stage.terms) && stage.terms.every((t) => typeof t === 'string'), `${stage.id}: terms`);
  }
  const filled = Object.keys(entry({}));
  assert.deepEqual(
    filled.sort(),
    ['firstView', 'nonNegative', 'operands', 'quiz', 'terms'],
    'the fields checked above',
  );
});
