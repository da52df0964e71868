// What loads when, in headless Chromium under the strict CSP: the first stage (the page's and a
// course page element's) is painted, its formula typeset in its fonts, while everything meant for
// after the first paint is held back (the engine's rest, KaTeX, the later script, the later font
// faces); once they are let through, what they bring works: the export menu (also when it was
// opened before they arrived), explain-a-number, head pruning, and every view the later script
// brings keeps the contract its stand-in forwards. A first view beyond the opening stages waits
// for the later script and is whole when it is first painted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCell } from '../../web/model/format.js';
import { VIEW_METHODS } from '../../web/later/deferred-view.js';
import { watchFirstStage } from '../../scripts/bench/first-stage.js';
import { CSP, cellBands, downloadedText, newPage, useEnv, shownCells, watchShifts } from './harness.mjs';

const env = useEnv();

// Loaded after the first paint: held until release() (every request for them waits).
const LATER =
  /\/(attention-wasm\.rest\.wasm|attention-stepper-(katex|later)\.js|vendor\/katex\/fonts\/[^/]*\.later\.woff2)$/;

async function holdLater(context) {
  const held = [];
  const asked = new Set();
  let open = false;
  await context.route(LATER, (route) => {
    asked.add(new URL(route.request().url()).pathname);
    if (open) route.continue();
    else held.push(route);
  });
  return {
    asked,
    release() {
      open = true;
      for (const route of held.splice(0)) route.continue();
    },
  };
}

async function until(check, what, ms = 20_000) {
  for (const end = Date.now() + ms; !check(); await new Promise((done) => setTimeout(done, 50))) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
  }
}

const resultOf = (page, scope) => page.$$eval(`${scope} .figure-slot.is-result td.hm-cell`, shownCells);

// A course page with one element (#s, the lesson's self-attention at its scores), served under
// the strict CSP beside the examples; → its URL.
async function routeOneStepper(context) {
  const url = `${env.server.url}examples/one.html`;
  await context.route(url, (route) =>
    route.fulfill({
      status: 200,
      headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CSP },
      body:
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>one</title>' +
        '<link rel="stylesheet" href="course-page.css">' +
        '<script defer src="../attention-stepper.classic.js"></script></head><body><main>' +
        '<attention-stepper id="s" preset="lesson-self-attention" stage="scores" ' +
        'stages="scores,scaled,weights" controls="compact"></attention-stepper></main></body></html>',
    }),
  );
  return url;
}

// The KaTeX faces the document has loaded (family and range), as the first paint needs them.
const loadedFaces = (page) =>
  page.evaluate(async () => {
    await document.fonts.ready;
    return [...document.fonts].filter((f) => /KaTeX/.test(f.family) && f.status === 'loaded').map((f) => f.family);
  });

// Nothing moved: no shift but, now and then, a sub-pixel one (a score under 1e-4; a shift a
// reader sees scores 0.01 and more, and 0.1 is a poor page's whole life).
async function assertStill(page) {
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const shifted = await page.evaluate(() => window.shifted);
  const score = shifted.reduce((sum, s) => sum + s.value, 0);
  assert.ok(score < 1e-4, `layout shifts ${JSON.stringify(shifted)}`);
}

const INDEX =
  'index.html: its first stage is in the HTML, painted before any script or WebAssembly, typeset in its ' +
  'fonts; the page takes over once the later files are in, and nothing moves; then export, explain, pruning';

test(INDEX, async () => {
  const { page, context } = await newPage(env, { init: watchShifts });
  const later = await holdLater(context);
  await page.goto(env.server.url, { waitUntil: 'domcontentloaded' }); // a held script holds the load event
  // Prerendered (scripts/prerender-page.mjs): no live stepper marks the body yet.
  await page.waitForSelector('#figure .is-result td.hm-cell');
  const x = env.engine.run({ preset: 'lesson-multi-head' }).stages[0];
  assert.deepEqual(await resultOf(page, '#figure'), Array.from(x.values, formatCell));
  assert.equal(await page.textContent('#stage-title'), 'Input embeddings X');
  assert.equal(await page.$eval('.shape-eq', (p) => p.dataset.equation), '(5, 16)');
  assert.ok(await page.$('#formula .katex .katex-html'), 'the formula is typeset (the build\u2019s HTML), not TeX');
  assert.deepEqual(
    [...new Set(await loadedFaces(page))].sort(),
    ['KaTeX_AMS', 'KaTeX_Main', 'KaTeX_Math'],
    'the formula\u2019s faces are in',
  );
  // The page script and the engine's core are asked for after the first contentful paint (under
  // load the core's entry can reach the resource timeline a moment after the page is ready).
  const core = /attention-(stepper-page\.classic\.js|wasm\.core\.wasm)$/;
  await page
    .waitForFunction(
      (source) => performance.getEntriesByType('resource').filter((r) => new RegExp(source).test(r.name)).length >= 2,
      core.source,
      { timeout: 10_000 },
    )
    .catch(() => {}); // the count is asserted below
  const [paint, asked] = await page.evaluate(() => [
    performance.getEntriesByName('first-contentful-paint')[0].startTime,
    performance
      .getEntriesByType('resource')
      .filter((r) => /attention-(stepper-page\.classic\.js|wasm\.core\.wasm)$/.test(r.name))
      .map((r) => r.startTime),
  ]);
  assert.equal(asked.length, 2, 'the page script and the core');
  assert.ok(
    asked.every((t) => t > paint),
    `asked at ${asked} ms, painted at ${paint} ms`,
  );
  await until(
    () => later.asked.has('/attention-stepper-later.js'),
    'the page asks for the later script after its first paint',
  );
  assert.equal(await page.evaluate(() => document.body.dataset.stage), undefined, 'held: the prerendered stage stays');
  later.release();
  await page.waitForSelector('body[data-ready="true"][data-stage="x"]');
  assert.deepEqual(await resultOf(page, '#figure'), Array.from(x.values, formatCell));
  await assertStill(page); // the takeover included
  await page.click('.export-toggle');
  await page.waitForSelector('.export-panel:not([hidden]) .export-file[data-format="json"]');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('.export-file[data-format="json"]')]);
  const doc = JSON.parse(await downloadedText(download));
  assert.deepEqual(
    [doc.id, doc.shape, doc.values.flat()],
    ['x', [...x.shape], Array.from(x.values)],
    'the JSON is the engine\u2019s stage',
  );
  assert.match(
    await page.inputValue('#export-link'),
    /^http:\/\/127\.0\.0\.1:\d+\/#.*preset=lesson-multi-head&stage=x$/,
  );
  await page.keyboard.press('Escape');
  // Explain-a-number and head pruning come with the later script.
  await page.evaluate(() => {
    window.location.hash = '#preset=lesson-multi-head&stage=scores&head=0';
  });
  await page.waitForSelector('body[data-stage="scores"]');
  await page.click('#figure .is-result td.hm-cell');
  await page.waitForSelector('#explain .explain-panel:not([hidden])');
  await page.evaluate(() => {
    window.location.hash = '#preset=lesson-multi-head&stage=output';
  });
  await page.waitForSelector('body[data-stage="output"]');
  await page.waitForSelector('#pruning .pruning .head-button');
  await page.waitForSelector('#formula .formula-face:not(.is-kept) .katex .katex-html');
  assert.deepEqual(page.problems, []);
  await context.close();
});

// With JavaScript off the first stage is still there to read, in either scheme: the engine's
// numbers over the colours of the live page's fills.
test('index.html without JavaScript: the first stage readable, coloured as the live page colours it', async () => {
  const x = env.engine.run({ preset: 'lesson-multi-head' }).stages[0];
  const fills = {};
  for (const colorScheme of ['light', 'dark']) {
    const context = await env.browser.newContext({ javaScriptEnabled: false, colorScheme });
    const page = await context.newPage();
    await page.goto(env.server.url);
    assert.deepEqual(await resultOf(page, '#figure'), Array.from(x.values, formatCell));
    assert.equal(await page.textContent('#stage-title'), 'Input embeddings X');
    assert.equal(await page.inputValue('#field-tokens'), 'the cat sat on mats');
    fills[colorScheme] = await page.$$eval('#figure .is-result td.hm-cell', (cells) =>
      cells.map((c) => getComputedStyle(c).backgroundColor),
    );
    assert.equal(fills[colorScheme].length, x.values.length);
    await context.close();
  }
  const { page, context } = await newPage(env);
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    await page.goto(env.server.url);
    await page.waitForSelector(`body[data-ready="true"][data-stage="x"]`);
    const live = await page.$$eval('#figure .is-result td.hm-cell', cellBands);
    assert.deepEqual(fills[colorScheme], live, `${colorScheme}: the live page\u2019s colours`);
  }
  await context.close();
});

// embed.html, what course pages iframe: its element's first stage is in the HTML (a declarative
// shadow root), the engine's numbers; readable without JavaScript; the element keeps it until its
// live stage replaces it, and nothing moves.
test('embed.html: its element\u2019s first stage is in the HTML, readable without scripts, swapped', async () => {
  const x = env.engine.run({ preset: 'lesson-multi-head' }).stages[0];
  const cells = (page) => page.$$eval('attention-stepper >> .figure-slot.is-result td.hm-cell', shownCells);
  // In either scheme the element's own colours are that scheme's, as its fills' are.
  for (const [colorScheme, background] of [
    ['light', 'rgb(251, 250, 247)'],
    ['dark', 'rgb(24, 25, 27)'],
  ]) {
    const off = await env.browser.newContext({ javaScriptEnabled: false, colorScheme });
    const still = await off.newPage();
    await still.goto(`${env.server.url}embed.html`);
    assert.deepEqual(await cells(still), Array.from(x.values, formatCell));
    assert.equal(await still.textContent('attention-stepper >> #stage-title'), 'Input embeddings X');
    assert.equal(await still.$eval('attention-stepper', (e) => getComputedStyle(e).backgroundColor), background);
    await off.close();
  }
  const { page, context } = await newPage(env, { init: watchShifts });
  await page.goto(`${env.server.url}embed.html`);
  await page.waitForSelector('attention-stepper[data-ready="true"][data-stage="x"]');
  assert.deepEqual(await cells(page), Array.from(x.values, formatCell));
  await assertStill(page); // the takeover included
  await page.click('attention-stepper >> .step-next');
  await page.waitForSelector('attention-stepper[data-stage="q"]');
  assert.deepEqual(page.problems, []);
  await context.close();
});

const CONTRACT =
  'every view the later script hands the first bundles is exactly { update, destroy }, ' +
  'what their stand-ins forward (later/deferred-view.js)';

test(CONTRACT, async () => {
  const { page, context } = await newPage(env);
  await page.goto(env.server.url);
  await page.waitForSelector('body[data-ready="true"]');
  const made = await page.evaluate(() =>
    Object.entries(window.attentionStepperLater.views).map(([name, create]) => {
      const host = document.createElement('div');
      const view = create(host, {});
      const keys = Object.keys(view);
      view.destroy();
      return [name, keys];
    }),
  );
  assert.deepEqual(made.map(([name]) => name).sort(), [
    'createChapterPanel',
    'createExplainPanel',
    'createKvCalculator',
    'createNotation',
    'createPruning',
  ]);
  for (const [name, keys] of made) assert.deepEqual(keys.sort(), [...VIEW_METHODS].sort(), name);
  assert.deepEqual(page.problems, []);
  await context.close();
});

const DEEP =
  'a first view beyond the opening stages waits for the later script: ' +
  'its panels and formula are there when it is first painted';

test(DEEP, async () => {
  const { page, context } = await newPage(env);
  await context.addInitScript(() => {
    // At the first frame that shows a stage: is the later script in, is the formula typeset?
    const look = () => {
      if (!document.body?.dataset.stage) return requestAnimationFrame(look);
      window.firstLook = {
        later: typeof window.attentionStepperLater,
        katex: Boolean(document.querySelector('#formula .formula-face:not(.is-kept) .katex .katex-html')),
        pruning: document.querySelector('#pruning')?.textContent ?? '',
      };
      return undefined;
    };
    requestAnimationFrame(look);
  });
  await page.goto(`${env.server.url}#preset=lesson-multi-head&stage=output`);
  await page.waitForFunction(() => window.firstLook);
  const look = await page.evaluate(() => window.firstLook);
  assert.equal(look.later, 'object');
  assert.ok(look.katex, 'the formula typeset at the first paint');
  assert.match(look.pruning, /head 3/, 'the pruning switches at the first paint');
  await page.waitForSelector('body[data-ready="true"]');
  assert.deepEqual(page.problems, []);
  await context.close();
});

const COURSE =
  'a course page element paints its first stage with the later files held back; ' +
  'its export menu works once they are in';

test(COURSE, async () => {
  const { page, context } = await newPage(env);
  const later = await holdLater(context);
  await page.goto(await routeOneStepper(context));
  await page.waitForSelector('#s[data-ready="true"][data-stage="scores"]');
  await page.waitForSelector('#s .figure-slot.is-result td.hm-cell');
  const scores = env.engine.run({ preset: 'lesson-self-attention' }).stages.find((s) => s.id === 'scores');
  assert.deepEqual(await resultOf(page, '#s'), Array.from(scores.values, formatCell));
  assert.ok(await page.$('#s #formula .formula-face:not(.is-kept) .katex .katex-html'), 'typeset');
  // The opening stages' first faces, loaded as soon as the element's KaTeX sheet is in, as on
  // index.html (AMS too, though S = QKᵀ needs only Main and Math); no later face.
  assert.deepEqual([...new Set(await loadedFaces(page))].sort(), ['KaTeX_AMS', 'KaTeX_Main', 'KaTeX_Math']);
  assert.equal(await page.evaluate(() => typeof window.attentionStepperLater), 'undefined', 'the later script is held');
  later.release();
  await page.waitForFunction(() => typeof window.attentionStepperLater === 'object');
  await page.click('#s .export-toggle');
  await page.waitForSelector('#s .export-file[data-format="json"]');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click('#s .export-file[data-format="json"]'),
  ]);
  const doc = JSON.parse(await downloadedText(download));
  assert.deepEqual([doc.id, doc.values.flat()], ['scores', Array.from(scores.values)]);
  await page.click('#s .step-next');
  await page.waitForSelector('#s[data-stage="scaled"]');
  await page.waitForSelector('#s #formula .formula-face:not(.is-kept) .katex .katex-html');
  assert.deepEqual(page.problems, []);
  await context.close();
});

const SHOWN_FIRST =
  'index.html and a course page ask for the later files only once the first stage has been on ' +
  'screen for a whole frame, its fonts in (what the bench counts as painted)';

const LATER_FILES = ['attention-wasm.rest.wasm', 'attention-stepper-katex.js', 'attention-stepper-later.js'];

test(SHOWN_FIRST, async () => {
  for (const open of [async () => env.server.url, routeOneStepper]) {
    const { page, context } = await newPage(env);
    await context.addInitScript(watchFirstStage);
    await page.goto(await open(context));
    // Each is listed once its response is complete.
    await page.waitForFunction(
      (files) => files.every((f) => performance.getEntriesByType('resource').some((e) => e.name.endsWith(`/${f}`))),
      LATER_FILES,
    );
    await page.waitForFunction(() => window.firstStagePaintMs !== undefined);
    const { shownAt, asked } = await page.evaluate(() => ({
      shownAt: window.firstStagePaintMs,
      asked: performance.getEntriesByType('resource').map((e) => ({ url: e.name, start: e.startTime })),
    }));
    const later = asked.filter((r) => LATER.test(r.url));
    for (const r of later) assert.ok(r.start > shownAt, `${r.url} asked for at ${r.start} ms, shown at ${shownAt} ms`);
    assert.deepEqual(page.problems, []);
    await context.close();
  }
});
