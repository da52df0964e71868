// The first bundles' one swap (scripts/bundle.mjs LATER_SWAP): mount-stepper.js takes what no
// first view needs from web/app/later-views.js alone, which the bundles that paint the first
// stage swap for web/later/stand-ins.js; both export the same names, every deferred view is one
// the later script (web/later-script.js) hands over, and a view that breaks the contract the
// stand-ins forward is refused by name. Read from the files' text: nothing is built.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { LATER_SWAP } from '../../scripts/bundle.mjs';
import { VIEW_METHODS, checkedView } from '../../web/later/deferred-view.js';
import { exportedNames, filesUnder, importsOf, textOf } from './modules.mjs';

const REAL = `web/${LATER_SWAP.from}`;
const STAND_INS = `web/${LATER_SWAP.to}`;

test('the swap: app/later-views.js for later/stand-ins.js, both exporting the same names', () => {
  assert.deepEqual([REAL, STAND_INS], ['web/app/later-views.js', 'web/later/stand-ins.js']);
  assert.deepEqual(exportedNames(textOf(STAND_INS)), exportedNames(textOf(REAL)));
  assert.match(textOf(REAL).split('\n').slice(0, 6).join('\n'), /swap/, 'its header says it is swapped');
});

test('only the bundles without the swap and mount-stepper.js import what it replaces; no one the stand-ins', () => {
  const importers = (target) => filesUnder('web', /\.js$/).filter((f) => importsOf(f).includes(target));
  // training.html's bundle takes the real views too: it paints no stepper and has no swap.
  assert.deepEqual(importers(REAL), ['web/app/mount-stepper.js', 'web/later-script.js', 'web/training/main.js']);
  assert.deepEqual(importers(STAND_INS), []);
  // The real modules behind the swap reach the first bundles through it alone.
  for (const real of importsOf(REAL)) {
    const others = importers(real).filter((f) => f !== REAL && !f.startsWith('web/later/'));
    assert.deepEqual(others, [], `${real}: imported beside the swap`);
  }
});

test('the stand-ins defer exactly the views the later script hands over, each under its own name', () => {
  const deferred = [...textOf(STAND_INS).matchAll(/export const (\w+) = deferredView\('(\w+)'\)/g)];
  const views = /const VIEWS = \{([^}]*)\}/
    .exec(textOf('web/later-script.js'))[1]
    .split(',')
    .map((s) => s.trim());
  for (const [, exported, name] of deferred) assert.equal(exported, name);
  assert.deepEqual(deferred.map(([, , name]) => name).sort(), [...views].sort());
});

test('the view contract: exactly { update, destroy }; more or less is refused, naming the view', () => {
  const view = { update() {}, destroy() {} };
  assert.deepEqual(VIEW_METHODS, ['update', 'destroy']);
  assert.equal(checkedView('createPruning', view), view);
  assert.throws(() => checkedView('createPruning', { ...view, focus() {} }), {
    message:
      'createPruning: a later view must be { update, destroy } (later/deferred-view.js), not { update,destroy,focus }',
  });
  assert.throws(() => checkedView('createPruning', { update() {} }), /createPruning: .* not \{ update \}$/);
  assert.throws(() => checkedView('createPruning', { update() {}, destroy: 1 }), /createPruning/);
  assert.throws(() => checkedView('createPruning', undefined), /createPruning: .* not \{  \}$/);
});
