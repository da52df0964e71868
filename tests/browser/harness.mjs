// Shared by the browser tests: one headless Chromium, the dist/ server under the page's CSP,
// the engine in node for reference traces, and small readers of what the page shows.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, beforeEach } from 'node:test';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { STRICT_CSP, connectChromium } from '../../scripts/chromium.mjs';
import { startServer, DIST } from '../../scripts/serve.mjs';
import { formatCell } from '../../web/model/format.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '..', '..');
export const SHOTS = path.join(ROOT, 'build', 'screenshots');

export const CSP = STRICT_CSP;

export function requireDist() {
  for (const f of [
    'index.html',
    'embed.html',
    'engine.js',
    'attention-wasm.wasm',
    'attention-wasm.classic.js',
    'attention-stepper-page.classic.js',
    'attention-stepper.js',
    'vendor/katex/katex.min.css',
  ]) {
    if (!existsSync(path.join(DIST, f)))
      throw new Error(`dist/${f} is missing: run node scripts/build-page.mjs after the engine build`);
  }
}

// → { browser, server, engine, close() }
export async function setup() {
  requireDist();
  const { createEngine } = await import(path.join(DIST, 'engine.js'));
  const [browser, server, engine] = await Promise.all([
    connectChromium(),
    startServer({ root: DIST, csp: CSP }),
    createEngine(),
  ]);
  mkdirSync(SHOTS, { recursive: true });
  return { browser, server, engine, close: async () => Promise.all([browser.close(), server.close()]) };
}

// A test file's prelude: const env = useEnv(), setup()'s env, filled in before the file's tests
// and closed after them.
export function useEnv() {
  const env = {};
  before(async () => Object.assign(env, await setup()));
  after(async () => env.close?.());
  return env;
}

// axe-core on a page and its frames, AxeBuilder's legacy mode: axe.run in the page, the same rules
// and results as AxeBuilder's default (runPartial in the page, then finishRun in a second, blank
// page that axe is injected into again: 2.5-3 times slower, over a minute on training.html).
// Violations come in full; of the other result types, that nothing reads, one node a rule.
export const axeBuilder = (page) => new AxeBuilder({ page }).setLegacyMode().options({ resultTypes: ['violations'] });

// A download's bytes, read through Playwright (its path() exists only where the browser was
// launched by this process), and its text.
export async function downloadedBytes(download) {
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  return Buffer.concat(chunks);
}
export const downloadedText = async (download) => (await downloadedBytes(download)).toString('utf8');

// Every CSP violation in the context's pages (and their frames) becomes a console error.
export function reportViolations(context) {
  return context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`),
    );
  });
}

// Records console errors, page errors, CSP violations, failed and off-site requests in
// page.problems (file:// pages are not off-site).
export function watchProblems(page, env) {
  page.problems = [];
  page.on('console', (m) => m.type() === 'error' && page.problems.push(`console.error: ${m.text()}`));
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  // The page may load only what the build put in dist/, from its own origin.
  page.on('response', (r) => r.status() >= 400 && page.problems.push(`HTTP ${r.status()}: ${r.url()}`));
  const local = (url) => url.startsWith(env.server.url) || url.startsWith('data:') || url.startsWith('file:');
  page.on('request', (r) => !local(r.url()) && page.problems.push(`off-site request: ${r.url()}`));
  return page;
}

// A new context and page (see watchProblems) under the CSP reporter; init, if given, runs in
// each of the context's pages before their own scripts (context.addInitScript).
export async function newPage(env, { width = 1280, height = 900, colorScheme = 'light', init = null } = {}) {
  const context = await env.browser.newContext({ viewport: { width, height }, colorScheme });
  await reportViolations(context);
  if (init) await context.addInitScript(init);
  const page = watchProblems(await context.newPage(), env);
  return { page, context };
}

// The full page at this hash (or at a page of dist/ and its query: 'embed.html?…'), once it is
// ready. options: newPage's.
export async function openPage(env, hash = '', options = {}) {
  const { page, context } = await newPage(env, options);
  await page.goto(env.server.url + hash);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, context };
}

// A fresh document at `hash` (openPage's) for every test, so that no test leans on where another
// left the page: use({ page, context }) receives it (and may wait for more, if async); after the
// test it must have had no console error, page error, CSP violation or failed request. envOf()
// gives setup()'s env; options are openPage's. Called inside a describe, it opens the pages of
// that describe's tests.
// The tests of a file (or describe) share one context and page, which each test's document is
// loaded in anew (through about:blank): a context and page of its own cost a test a new renderer
// process and a cold start of the engine, about 2 s of CPU. Between tests the page's viewport is
// set back to the options' and its routes and its context's are removed; the problems it records
// are each test's own.
export function pagePerTest(envOf, hash, use, options = {}) {
  let opened = null;
  beforeEach(async () => {
    const env = envOf();
    opened ??= await newPage(env, options);
    const { page } = opened;
    await page.goto('about:blank');
    await page.setViewportSize({ width: options.width ?? 1280, height: options.height ?? 900 });
    page.problems.length = 0;
    await page.goto(env.server.url + hash);
    await page.waitForSelector('body[data-ready="true"]');
    await use(opened);
  });
  afterEach(async () => {
    const { page, context } = opened;
    const problems = [...page.problems];
    await Promise.all([page.unrouteAll(), context.unrouteAll()]);
    assert.deepEqual(problems, []);
  });
  after(async () => {
    await opened?.context.close().catch(() => {}); // the browser may have closed it already
    opened = null;
  });
}

// Waits until no configuration is computing in the stepper's worker (its layout's .is-pending),
// in the page or in the shadow root of the element at host (a selector): what it shows is then
// the last change's.
export function settled(page, host = null) {
  return page.waitForFunction(
    (h) => !(h ? document.querySelector(h)?.shadowRoot : document)?.querySelector('.is-pending'),
    host,
  );
}

// Waits until the page shows this stage (and head, for per-head stages), with nothing computing.
export async function waitForStage(page, id, head = null) {
  const sel = head === null ? `body[data-stage="${id}"]` : `body[data-stage="${id}"][data-head="${head}"]`;
  await settled(page);
  await page.waitForSelector(sel);
}

// Sets the hash; resolves once the page's hashchange handler has run (a trace it asks of the
// worker may still be computing: waitForStage and settled wait for that).
export async function goToHash(page, hash) {
  await page.evaluate(
    (h) =>
      new Promise((resolve) => {
        window.addEventListener('hashchange', () => setTimeout(resolve, 0), { once: true });
        setTimeout(resolve, 2000); // the same hash: no hashchange
        window.location.hash = h;
      }),
    hash,
  );
}

// The page's URL once it matches re: the page writes its hash after the frame that shows the
// view, at most once every 300 ms (main.js), so a URL read at once may still be the previous
// one. Fails naming the URL it has.
export async function urlMatching(page, re) {
  await page
    .waitForFunction((source) => new RegExp(source).test(window.location.href), re.source, { timeout: 5000 })
    .catch(() => {});
  assert.match(page.url(), re);
  return page.url();
}

// For page.$$eval over heatmap cells (td.hm-cell): the number each shows. A windowed cell holds
// its number; a cell of a heatmap with strips is empty, and shows the field of its row's text
// strip that lies over it (--chars characters a cell). Its aria-label must say the same: where it
// does not, the text names both, so that no comparison passes.
export const shownCells = (tds) =>
  tds.map((td) => {
    const table = td.closest('table');
    if (!table.classList.contains('has-strips')) return td.textContent;
    const chars = Number(getComputedStyle(table).getPropertyValue('--chars')); // a class's in prerendered markup
    const c = Number(td.dataset.c);
    const shown = td.parentNode
      .querySelector('.hm-text')
      .textContent.slice(c * chars, (c + 1) * chars)
      .trim();
    const label = td.getAttribute('aria-label');
    return label === shown ? shown : `${shown} (aria-label: ${label})`;
  });

// For page.$$eval over heatmap cells: the colour each is filled with, as rgb(…), or
// 'transparent' where none is (a masked cell: a windowed one's class draws it; in a heatmap with
// strips, a −∞ shows the row's hatching beneath).
export const cellBands = (tds) => tds.map((td) => td.style.backgroundColor || 'transparent');

// The colours (cellBands) of the cells sel matches, once ok(colours) holds (no selector waits for
// an inline colour). Fails naming the last colours after 5 s.
export async function bandsWhen(page, sel, ok) {
  const until = Date.now() + 5000;
  for (;;) {
    const bands = await page.$$eval(sel, cellBands);
    if (ok(bands)) return bands;
    assert.ok(Date.now() < until, `${sel}: colours ${bands.join(' | ')}`);
    await page.waitForTimeout(20);
  }
}

// A colour #rrggbb as the rgb(…) the CSSOM gives back.
export const rgbOf = (hex) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

// For page.$$eval over heatmap cells: each one's full-precision number.
export const cellFulls = (tds) => tds.map((td) => td.shownCell.full);

// A weights stage as the page writes it: a weight the mask removed (−∞ in its logits) reads 0.
export const weightTexts = (stage) =>
  Array.from(stage.values, (v, i) => (stage.operands[0].values[i] === -Infinity ? '0' : formatCell(v)));

// The numbers the result heatmap's cells show, row-major.
export function resultTexts(page) {
  return page.$$eval('#figure .figure-slot.is-result td.hm-cell', shownCells);
}

export function resultFulls(page) {
  return page.$$eval('#figure .figure-slot.is-result td.hm-cell', cellFulls);
}

// The rows of the Modern and Latent chapters' panel table "In this run, by the engine", as text.
export function measuredRows(page) {
  return page.$$eval('.modern-measured tbody tr', (trs) =>
    trs.map((tr) => [...tr.children].map((td) => td.textContent)),
  );
}

export function shownEquation(page) {
  return page.$eval('.shape-eq', (p) => p.dataset.equation);
}

export function currentView(page) {
  return page.evaluate(() => ({ stage: document.body.dataset.stage, head: document.body.dataset.head }));
}

// Stage file names: multi-head-07-scores-h0.
export function stageSlug(prefix, index, stage) {
  const head = stage.head === null ? '' : `-h${stage.head}`;
  const step = stage.step === null || stage.step === undefined ? '' : `-t${stage.step}`;
  return `${prefix}-${String(index + 1).padStart(3, '0')}-${stage.id}${head}${step}`;
}

export function stageHash(preset, stage) {
  return `#preset=${preset}&stage=${stage.id}${stage.head === null ? '' : `&head=${stage.head}`}`;
}

// The layout shifts of the page's life (Layout Instability API), as an init script (newPage's
// init): window.shifted, each one's score and what moved (a node in a shadow root is not named).
export function watchShifts() {
  window.shifted = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (!e.hadRecentInput)
        window.shifted.push({ value: e.value, moved: e.sources.map((s) => s.node?.className ?? s.node?.nodeName) });
  }).observe({ type: 'layout-shift', buffered: true });
}
