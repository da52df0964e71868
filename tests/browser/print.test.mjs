// A stage on paper (web/styles/print.css), under print emulation: its title, shape equation,
// formula, whole explanation and whole matrix, with the engine's numbers, and none of the
// controls; Chromium's own PDF of it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCell } from '../../web/model/format.js';
import { openPage, shownCells, useEnv } from './harness.mjs';

const env = useEnv();

test('print: the stage, its formula and its whole matrix with the engine\u2019s numbers; no controls', async () => {
  const { page, context } = await openPage(env, '#chapter=attention&preset=lesson-multi-head&stage=weights&head=1');
  await page.waitForSelector('body[data-stage="weights"][data-head="1"]');
  await page.emulateMedia({ media: 'print' });
  for (const hidden of ['.sidebar', '.stage-bar', '#quiz', '#export-menu', '#chapter-picker-area', '.more-toggle'])
    assert.equal(await page.isVisible(hidden), false, `${hidden} is not printed`);
  assert.equal(await page.textContent('#stage-title'), 'Attention weights');
  assert.ok(await page.isVisible('#shape-eq'));
  assert.ok(await page.isVisible('#formula .katex'));
  assert.ok(await page.isVisible('#explanation .explanation-rest'), 'the explanation whole');
  const weights = env.engine
    .run({ preset: 'lesson-multi-head' })
    .stages.find((s) => s.id === 'weights' && s.head === 1);
  const result = '#figure .is-result';
  assert.deepEqual(await page.$$eval(`${result} td.hm-cell`, shownCells), Array.from(weights.values, formatCell));
  const clipped = await page.$eval(`${result} .hm-scroll`, (s) => s.scrollHeight - s.clientHeight);
  assert.ok(clipped <= 1, `the matrix is not cut (${clipped} px hidden)`);
  const pdf = await page.pdf({ format: 'A4' });
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  await page.emulateMedia({ media: 'screen' });
  assert.equal(await page.isVisible('.sidebar'), true, 'the screen keeps its controls');
  assert.deepEqual(page.problems, []);
  await context.close();
});
