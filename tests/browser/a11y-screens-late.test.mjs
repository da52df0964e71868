// axe-core at every stage of the walks after the first six (light, 1280 px), with a screenshot of
// each (a11y-walk.mjs: the walk; a11y-screens.test.mjs: the first six).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setup } from './harness.mjs';
import { CHAPTER_WALKS, pass } from './a11y-walk.mjs';

let env;
before(async () => {
  env = await setup();
});
after(async () => {
  await env?.close();
});

const LATER =
  'axe finds no serious or critical violation at every stage of the later walks (light); screenshots at 1280 px';
test(LATER, async () => {
  const walks = CHAPTER_WALKS.slice(6);
  assert.deepEqual(
    await pass(env, { width: 1280, colorScheme: 'light', axe: 'all', shots: 'all', walks, extras: false }),
    [],
  );
});
