// axe-core at every stage of the first walks (the multi-head example, its causal stages, padded
// cross-attention; light, 1280 px) with a screenshot of the sample (of every stage under `npm run
// screenshots`), the explain panel's views, and a large configuration. The walk (a11y-walk.mjs) is
// split over the a11y-screens*.test.mjs files, in parts of about the same cost, so that node's
// runner spreads it over the cores: a11y-screens-gqa, -kv-cache, -late and -later walk the rest at
// 1280 px, a11y-screens-375 every stage at 375 px, a11y-screens-dark the dark passes.
import path from 'node:path';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPage, waitForStage, SHOTS } from './harness.mjs';
import { CHAPTER_WALKS, stageViolations, walkTest } from './a11y-walk.mjs';

const FIRST =
  'axe finds no serious or critical violation at every stage of the first three walks (light), ' +
  'nor with the explain panel open; screenshots at 1280 px';
const envOf = walkTest(FIRST, [
  { width: 1280, colorScheme: 'light', axe: 'all', shots: 'all', walks: CHAPTER_WALKS.slice(0, 3) },
]);

test('a large configuration stays legible: T = 64 scrolls inside its matrix', async () => {
  const env = envOf();
  const tokens = Array.from({ length: 64 }, (_, i) => `w${i}`).join('+');
  const { page, context } = await openPage(
    env,
    `#tokens=${tokens}&dModel=32&heads=2&dK=16&dV=16&causal=1&seed=3&scale=1&wo=1&stage=weights&head=1`,
    { width: 1280 },
  );
  await waitForStage(page, 'weights', 1);
  assert.equal(await page.$$eval('#figure .is-result td.hm-cell', (t) => t.length), 64 * 64);
  const fontPx = await page.$eval('#figure .is-result td.hm-cell', (td) => parseFloat(getComputedStyle(td).fontSize));
  assert.ok(fontPx >= 11, `cell text is ${fontPx}px`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, 'the matrix scrolls, not the page');
  // It fades out at each side it continues on, as it is scrolled (its scroll bar is a screen below).
  const sides = [];
  for (const to of [0, 0.5, 1]) {
    sides.push(
      await page.$eval(
        '#figure .is-result .hm-scroll',
        (box, at) => {
          box.scrollLeft = at * (box.scrollWidth - box.clientWidth);
          return new Promise((done) => requestAnimationFrame(() => done(box.dataset.more)));
        },
        to,
      ),
    );
  }
  assert.deepEqual(sides, ['right', 'left right', 'left']);
  assert.notEqual(await page.$eval('#figure .is-result .hm-scroll', (b) => getComputedStyle(b).maskImage), 'none');
  await page.screenshot({ path: path.join(SHOTS, 'large-t64-weights-1280.png') });
  assert.deepEqual(page.problems, []);
  await context.close();
});

// The walk's axe leaves out the parts of the page it has checked as they are: a part that changes
// afterwards, even by one attribute, is checked again, and what it breaks is found.
test('the walk\u2019s axe finds what a stage changes in a part it had checked (light grey on white)', async () => {
  const env = envOf();
  const { page, context } = await openPage(env, '#preset=lesson-multi-head&stage=scores', { width: 1280 });
  await waitForStage(page, 'scores');
  assert.deepEqual(await stageViolations(page, 'first'), []);
  assert.deepEqual(await stageViolations(page, 'unchanged'), []);
  await page.evaluate(() => {
    const p = document.createElement('p');
    p.textContent = 'barely legible';
    p.style.color = '#eeeeee';
    document.querySelector('.sidebar > *').append(p);
  });
  assert.match((await stageViolations(page, 'changed')).join('\n'), /^changed: color-contrast \(serious\)/);
  await page.evaluate(() => {
    document.querySelector('.sidebar p:last-child').remove();
    document.querySelector('.masthead').setAttribute('role', 'banana');
  });
  assert.match((await stageViolations(page, 'attribute')).join('\n'), /^attribute: aria-roles \((serious|critical)\)/);
  // The sidebar's own parts unchanged, the sidebar itself greyed: an ancestor's style reaches them.
  await page.evaluate(() => {
    document.querySelector('.masthead').removeAttribute('role');
    document.querySelector('.sidebar').style.color = '#eeeeee';
  });
  assert.match(
    (await stageViolations(page, 'ancestor')).join('\n'),
    /^ancestor: color-contrast \(serious\) at .*\.stage-group-title/m,
  );
  await context.close();
});
