// Dark differs only in its palette: axe on a sample of every chapter's views and on the explain
// panel's; then screenshots at 375 px of every stage (light) and of the sample (dark), none of
// which may scroll sideways (a11y-walk.mjs: the walk).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setup } from './harness.mjs';
import { pass } from './a11y-walk.mjs';

let env;
before(async () => {
  env = await setup();
});
after(async () => {
  await env?.close();
});

const DARK_AND_NARROW =
  'axe finds no serious or critical violation on a sample of every chapter (dark); ' +
  'no stage scrolls sideways at 375 px; screenshots in both';
test(DARK_AND_NARROW, async () => {
  const found = [];
  found.push(...(await pass(env, { width: 1280, colorScheme: 'dark', axe: 'some', shots: 'some' })));
  found.push(...(await pass(env, { width: 375, colorScheme: 'light', axe: false, shots: 'all' })));
  found.push(...(await pass(env, { width: 375, colorScheme: 'dark', axe: false, shots: 'some' })));
  assert.deepEqual(found, []);
});
