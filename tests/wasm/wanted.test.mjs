// What the element's attributes (state/attributes.js) make the stepper show, through the
// stepper's actions and the built engine: a decode step, and a subset of stages that is
// renumbered and stepped within. The attributes' parsing alone: tests/model/attributes.test.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { applyWanted, goToStep } from '../../web/app/actions.js';
import { buildSteps, filterSteps } from '../../web/model/navigation.js';
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
