// The page's first script (web/preload.js, dist/attention-stepper-preload.js), in headless
// Chromium under the strict CSP: over http it fetches and compiles the engine's core .wasm (which
// the engine then takes) and preloads its ES factory and the opening formulas' font faces, each
// fetched once (the page's own requests take the preloads: no "preloaded but not used" warning),
// the first faces loaded before the first stage is rendered; from file:// it adds nothing, and
// the page logs no error. A course page, without that script, has its element compile the core
// as the factory arrives (engine-split.js: prefetchCore), also fetched once, and load the first
// faces as soon as its KaTeX sheet is in (element/assets.js).
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { DIST } from '../../scripts/serve.mjs';
import { newPage, useEnv } from './harness.mjs';

const env = useEnv();

const preloads = (page) =>
  page.$$eval('head link[rel="preload"], head link[rel="modulepreload"]', (links) =>
    links.map((l) => [l.rel, l.as, new URL(l.href).pathname, l.crossOrigin]),
  );

const HTTP =
  'over http: the core .wasm compiled from <head>, the factory and the first faces preloaded, each fetched once';

test(HTTP, async () => {
  const { page, context } = await newPage(env);
  const asked = [];
  const warnings = [];
  page.on('request', (r) => asked.push(new URL(r.url()).pathname));
  page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
  await page.goto(env.server.url);
  await page.waitForSelector('body[data-ready="true"][data-stage="x"]');
  const links = await preloads(page);
  assert.deepEqual(
    links.find(([rel]) => rel === 'modulepreload'),
    ['modulepreload', '', '/attention-wasm.mjs', 'anonymous'],
  );
  assert.equal(await page.evaluate(() => 'attentionStepperCore' in globalThis), false, 'the engine took the core');
  const faces = links.filter(([, as]) => as === 'font').map(([, , href]) => href);
  assert.ok(faces.length > 0 && faces.every((f) => /^\/vendor\/katex\/fonts\/KaTeX_[\w-]+\.subset\.woff2$/.test(f)));
  for (const file of ['/attention-wasm.core.wasm', '/attention-wasm.mjs', ...new Set(faces)]) {
    assert.equal(asked.filter((p) => p === file).length, 1, `${file} fetched once`);
  }
  // The first faces are loaded as the page script starts, not KaTeX's whole fonts in their place.
  assert.deepEqual(
    asked.filter((p) => /KaTeX_(Main-Regular|Math-Italic|AMS-Regular)\.woff2$/.test(p)),
    [],
    'no whole KaTeX font',
  );
  assert.deepEqual(
    warnings.filter((w) => /preload/i.test(w)),
    [],
  );
  assert.deepEqual(page.problems, []);
  await context.close();
});

test('from file://: nothing is preloaded and the page logs no error', async () => {
  const { page, context } = await newPage(env);
  await page.goto(pathToFileURL(path.join(DIST, 'index.html')).href);
  await page.waitForSelector('body[data-ready="true"][data-stage="x"] #figure .is-result td.hm-cell');
  assert.deepEqual(await preloads(page), []);
  assert.equal(await page.evaluate(() => 'attentionStepperCore' in globalThis), false);
  assert.equal(await page.$$eval('head script[src$="attention-stepper-preload.js"]', (s) => s.length), 1);
  assert.deepEqual(page.problems, []);
  await context.close();
});

const COURSE =
  'the course page (no preload script): its elements compile the core as the factory arrives, fetched once';

test(COURSE, async () => {
  const { page, context } = await newPage(env);
  const asked = [];
  page.on('request', (r) => asked.push(new URL(r.url()).pathname));
  await page.goto(`${env.server.url}examples/course-page.html`);
  await page.waitForFunction(() =>
    [...document.querySelectorAll('attention-stepper')].every((s) => s.shadowRoot?.querySelector('td.hm-cell')),
  );
  assert.equal(asked.filter((p) => p === '/attention-wasm.core.wasm').length, 1);
  assert.deepEqual(page.problems, []);
  await context.close();
});

const FACES =
  'a course page: the element loads the first faces as soon as its KaTeX sheet is in, not at the first layout';

test(FACES, async () => {
  const { page, context } = await newPage(env);
  // Runs after the element's own load listener (added before the link is in the document).
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      const link = document.querySelector('link[data-attention-stepper="katex"]');
      if (!link) return;
      observer.disconnect();
      link.addEventListener('load', () => {
        window.facesAtSheetLoad = [...document.fonts]
          .filter((f) => /^KaTeX_/.test(f.family) && f.unicodeRange !== 'U+0-10FFFF' && f.status !== 'unloaded')
          .map((f) => f.family);
      });
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(`${env.server.url}examples/course-page.html`);
  await page.waitForFunction(() => window.facesAtSheetLoad !== undefined);
  const asked = await page.evaluate(() => window.facesAtSheetLoad);
  for (const family of ['KaTeX_Math', 'KaTeX_Main', 'KaTeX_AMS'])
    assert.ok(
      asked.includes(family),
      `${family} asked for when the sheet loaded (asked: ${asked.join(', ') || 'none'})`,
    );
  assert.deepEqual(page.problems, []);
  await context.close();
});
