// What the element's attributes (state/attributes.js) make the stepper show, through the
// stepper's actions and the built engine: a decode step, and a subset of stages that is
// renumbered and stepped within. The attributes' parsing alone: tests/model/attributes.test.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { applyWanted, editField, goToStep, switchChapter } from '../../web/app/actions.js';
import { buildSteps, filterSteps, progressView } from '../../web/model/navigation.js';
import { catalogFrom } from '../../web/model/presets.js';
import { readAttributes } from '../../web/state/attributes.js';

const engine = await createEngine();
const catalog = catalogFrom(engine);
const read = (attrs) => readAttributes(catalog, (name) => attrs[name] ?? null);
const EMPTY = { form: null, steps: [], step: 0, head: 0 };

test('step: the stepper opens at that decode step, on the head asked for', () => {
  const r = read({ chapter: 'kv-cache', stage: 'k_cache', head: '2', step: '3' });
  const s = { ...EMPTY, ...applyWanted(engine, catalog, EMPTY, r.wanted, null) };
  assert.deepEqual([s.steps[s.step].id, s.steps[s.step].head, s.steps[s.step].step], ['k_cache', 2, 3]);
});

test('stages: a subset is renumbered, starts the stepper, and steps within itself', () => {
  const r = read({ preset: 'lesson-causal', stages: 'scores, masked,weights' });
  const s = { ...EMPTY, ...applyWanted(engine, catalog, EMPTY, r.wanted, r.stages) };
  assert.deepEqual(
    s.steps.map((x) => [x.index, x.id]),
    [
      [0, 'scores'],
      [1, 'masked'],
      [2, 'weights'],
    ],
  );
  assert.equal(s.step, 0);
  assert.equal(goToStep(s, 2).step, 2);
  assert.deepEqual(goToStep({ ...s, step: 2 }, 3), {}, 'no step past the last');
  const all = buildSteps(engine.run({ preset: 'lesson-causal' }));
  assert.equal(filterSteps(all, null), all);
});

// Issue 35's path: a chapter opens at its first stage, not at the stage of the same id in another
// lesson, and where this reader left it on the way back; the last stage offers the next chapter.
test('chapters: another chapter opens at its first stage, and where it was left on the way back', () => {
  const r = read({ chapter: 'attention', stage: 'weights', head: '1' });
  let s = { ...EMPTY, places: {}, ...applyWanted(engine, catalog, EMPTY, r.wanted, null) };
  const left = s.step;
  assert.deepEqual([s.steps[left].id, s.head], ['weights', 1]);
  s = { ...s, ...switchChapter(engine, catalog, s, 'cross', null) };
  assert.deepEqual([s.form.chapter, s.step, s.head], ['cross', 0, 0], 'Cross-attention at stage 1');
  s = { ...s, ...goToStep(s, 5) };
  const crossAt = s.steps[5].id;
  s = { ...s, ...switchChapter(engine, catalog, s, 'attention', null) };
  assert.deepEqual([s.form.chapter, s.step, s.head], ['attention', left, 1], 'back where it was left');
  s = { ...s, ...switchChapter(engine, catalog, s, 'cross', null) };
  assert.deepEqual([s.step, s.steps[s.step].id], [5, crossAt], 'and Cross-attention where it was left');
  // At the last stage Next offers the chapter given; elsewhere nothing.
  const next = { id: 'gqa', title: 'Grouped-query attention' };
  assert.deepEqual(progressView(s.steps, s.steps.length - 1, 0, s.trace.config, next).nextChapter, next);
  assert.equal(progressView(s.steps, s.steps.length - 2, 0, s.trace.config, next).nextChapter, null);
});

// A reader's edit is part of where they left a chapter: the way back runs their form again, not
// the chapter's first example; a form still refused keeps the last one that ran.
test('chapters: the way back keeps the form the reader left, as it ran', () => {
  const r = read({ chapter: 'attention', stage: 'weights', head: '1' });
  let s = { ...EMPTY, places: {}, ...applyWanted(engine, catalog, EMPTY, r.wanted, null) };
  s = { ...s, ...editField(engine, catalog, s, 'seed', '43', null) };
  const edited = s.trace.stages.find((x) => x.id === 'weights' && x.head === 1).values;
  s = { ...s, ...switchChapter(engine, catalog, s, 'masks', null) };
  assert.equal(s.form.chapter, 'masks');
  s = { ...s, ...switchChapter(engine, catalog, s, 'attention', null) };
  assert.deepEqual([s.form.seed, s.steps[s.step].id, s.head], ['43', 'weights', 1]);
  const back = s.trace.stages.find((x) => x.id === 'weights' && x.head === 1).values;
  assert.deepEqual(Array.from(back), Array.from(edited), 'the trace of seed 43 again');
  const seeded = engine.run({ ...s.spec }).stages.find((x) => x.id === 'weights' && x.head === 1).values;
  assert.deepEqual(Array.from(back), Array.from(seeded), "the engine's for the form's spec");
  assert.equal(s.spec.seed, 43);
  // A refused edit is not what the way back opens.
  s = { ...s, ...editField(engine, catalog, s, 'dModel', '-3', null) };
  assert.ok(Object.keys(s.errors).length, 'd_model −3 refused');
  s = { ...s, ...switchChapter(engine, catalog, s, 'masks', null) };
  s = { ...s, ...switchChapter(engine, catalog, s, 'attention', null) };
  assert.deepEqual([s.form.seed, s.form.dModel, Object.keys(s.errors).length], ['43', '16', 0]);
});
