// The page on a phone (375 × 812), in headless Chromium: the stage's title, shape and formula on
// the first screen; the chapters one row that keeps the current one in view; the stage list one
// tap away (the Stages sheet: opened, chosen from, closed by Escape and by a tap elsewhere); a
// swipe steps like ← and →, but not where a matrix scrolls sideways. At 1280 px the list is beside
// the stage and the Stages button is not shown. And on a projector: large type, by link or attribute.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { useEnv, pagePerTest, waitForStage, goToHash, SHOTS } from './harness.mjs';

const env = useEnv();
let page;
let context;

pagePerTest(
  () => env,
  '#chapter=masks&preset=masks-documents&stage=scores',
  (opened) => ({ page, context } = opened),
  { width: 375, height: 812 },
);

const box = (sel) => page.$eval(sel, (e) => e.getBoundingClientRect().toJSON());

test('375 px: the stage title, shape and formula are on the first screen; the chapters are one row', async () => {
  await waitForStage(page, 'scores', 0);
  // Read from the top of the page, as a reader who has just opened the link sees it.
  await page.evaluate(() => window.scrollTo(0, 0));
  for (const sel of ['#stage-title', '#shape-eq', '#formula'])
    assert.ok((await box(sel)).bottom <= 812, `${sel} on the first screen: ${(await box(sel)).bottom}`);
  const list = await box('.chapter-list');
  const first = await box('.chapter-button');
  assert.ok(list.height < 2 * first.height, `one row of chapters: ${list.height} px`);
  // The current chapter's tab is within the row, which says it continues on both sides.
  const current = await box('.chapter-button[aria-pressed="true"]');
  assert.ok(current.left >= list.left && current.right <= list.right, 'the current chapter is in view');
  assert.equal(await page.$eval('.chapter-list', (l) => l.dataset.more), 'left right');
  // The chapter's own panel follows the stage on a phone.
  const [panel, title] = [await box('#chapter-panel-area'), await box('#stage-title')];
  assert.ok(panel.top > title.bottom, 'the chapter panel after the stage');
  await page.screenshot({ path: path.join(SHOTS, 'phone-first-screen-375.png') });
  assert.deepEqual(page.problems, []);
});

test('375 px: the Stages sheet opens over the stage, closes on a choice, on Escape, on a tap elsewhere', async () => {
  await goToHash(page, '#preset=lesson-multi-head&stage=scores&head=1');
  await waitForStage(page, 'scores', 1);
  const toggle = page.locator('#stages-toggle');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  const sheet = await box('#stage-nav');
  assert.equal(sheet.bottom, 812, 'at the foot of the screen');
  assert.ok(sheet.top > 0 && sheet.top < 812, 'over the stage');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-current')), 'step');
  await page.screenshot({ path: path.join(SHOTS, 'phone-stages-sheet-375.png') });
  await page.click('#stage-nav .stage-item:text-is("Attention weights")');
  await waitForStage(page, 'weights', 1);
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'stages-toggle');
  assert.ok((await box('#stage-nav')).top > 812, 'back below the stage');
  await toggle.click();
  await page.keyboard.press('Escape');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'stages-toggle');
  await toggle.click();
  await page.mouse.click(200, 60); // the head picker's row, outside the sheet
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await page.getAttribute('body', 'data-stage'), 'weights', 'the tap did not step');
  // Beside the stage at 1280 px: no button.
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.equal(await toggle.isVisible(), false);
  assert.deepEqual(page.problems, []);
});

// A one-finger swipe from (x0, y) to (x1, y), as a touch screen sends it.
async function swipe(cdp, x0, x1, y) {
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: x0, y }] });
  for (const x of [x0 + (x1 - x0) / 2, x1])
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y }] });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

test('375 px: a swipe to the left shows the next stage, to the right the one before; not over a matrix', async () => {
  await goToHash(page, '#preset=lesson-multi-head&stage=scores&head=0');
  await waitForStage(page, 'scores', 0);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 1 });
  try {
    await page.evaluate(() => window.scrollTo(0, 0));
    const { top, bottom } = await box('#stage-title');
    const y = (top + bottom) / 2;
    await swipe(cdp, 300, 100, y);
    await waitForStage(page, 'scaled', 0);
    await swipe(cdp, 100, 300, y);
    await waitForStage(page, 'scores', 0);
    await swipe(cdp, 100, 120, y); // too short: a tap or a scroll
    // Over the result's matrix a swipe scrolls the matrix, not the stage.
    await page.$eval('#figure .is-result .hm-scroll', (e) => e.scrollIntoView({ block: 'center' }));
    const grid = await box('#figure .is-result .hm-scroll');
    await swipe(cdp, grid.left + grid.width - 10, grid.left + 10, grid.top + grid.height / 2);
    assert.equal(await page.getAttribute('body', 'data-stage'), 'scores');
  } finally {
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: false });
    await cdp.detach();
  }
  assert.deepEqual(page.problems, []);
});

test('a projector: large=1 (a link) and large (the element) draw the stepper 1.4 times larger', async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const cellHeight = () => page.$eval('#figure .is-result td.hm-cell', (td) => td.getBoundingClientRect().height);
  await goToHash(page, '#preset=lesson-multi-head&stage=weights&head=1');
  await waitForStage(page, 'weights', 1);
  const normal = await cellHeight();
  await goToHash(page, '#preset=lesson-multi-head&stage=weights&head=1&large=1');
  await page.waitForSelector('.layout.is-large');
  assert.ok(Math.abs((await cellHeight()) / normal - 1.4) < 0.05, `${await cellHeight()} against ${normal}`);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0);
  await page.screenshot({ path: path.join(SHOTS, 'projector-large-1280.png') });
  // The embed page passes the attribute to its element.
  await page.goto(`${env.server.url}embed.html?preset=lesson-causal&stage=weights&large`);
  await page.waitForSelector('attention-stepper[data-ready="true"]');
  assert.equal(
    await page.$eval('attention-stepper', (e) => getComputedStyle(e.shadowRoot.querySelector('.layout')).zoom),
    '1.4',
  );
  assert.deepEqual(page.problems, []);
});

test('375 px: a number explained opens its account as a sheet, and the cell stays in view above it', async () => {
  await goToHash(page, '#preset=lesson-multi-head&stage=weights&head=0');
  await waitForStage(page, 'weights', 0);
  const cell = '#figure .is-result td.hm-cell[data-r="4"][data-c="1"]';
  await page.$eval(cell, (td) => td.scrollIntoView({ block: 'end' })); // at the foot of the screen
  await page.click(cell);
  await page.waitForSelector('.explain-panel .katex');
  await page.waitForFunction(
    (sel) =>
      document.querySelector(sel).getBoundingClientRect().bottom <=
      document.querySelector('.explain-panel').getBoundingClientRect().top,
    cell,
  );
  const sheet = await box('.explain-panel');
  assert.equal(sheet.bottom, 812, 'at the foot of the screen');
  assert.ok(sheet.height <= 0.45 * 812 + 1, `at most 45 % of it: ${sheet.height}`);
  assert.ok((await box(cell)).top >= 0, 'the cell on the screen');
  await page.screenshot({ path: path.join(SHOTS, 'phone-explain-sheet-375.png') });
  assert.deepEqual(page.problems, []);
});
