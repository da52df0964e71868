// Embedding, in headless Chromium: dist/index.html and the course page from file://, the
// <attention-stepper> element (classic and ES bundles) under the strict CSP with no violation,
// independent elements sharing one engine, events and methods, messages for bad attributes and
// for a browser without WebAssembly, and embed.html's height messages to its parent.
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { formatCell } from '../../web/model/format.js';
import { axeBuilder, CSP, SHOTS, newPage, useEnv, shownCells } from './harness.mjs';
import { DIST } from '../../scripts/serve.mjs';

const env = useEnv();

// Serves a test page (and its helper files) at server.url + name, with the page's CSP.
async function routeFiles(context, files) {
  for (const [name, body] of Object.entries(files)) {
    const type = name.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8';
    await context.route(env.server.url + name, (route) =>
      route.fulfill({ status: 200, body, headers: { 'Content-Type': type, 'Content-Security-Policy': CSP } }),
    );
  }
}

const CLASSIC_SCRIPTS =
  '<script defer src="attention-wasm.classic.js"></script><script defer src="attention-stepper.classic.js"></script>';
const html = (head, body) =>
  `<!doctype html><html lang="en"><head><meta ` +
  `charset="utf-8"><title>test</title>${head}</head><body>${body}</body></html>`;

const stageOf = (page, sel) => page.$eval(sel, (e) => [e.dataset.stage, e.dataset.head]);
const resultOf = (page, sel) => page.$$eval(`${sel} .figure-slot.is-result td.hm-cell`, shownCells);

test('dist/index.html opened from file:// renders the first stage, with KaTeX and its fonts', async () => {
  const { page, context } = await newPage(env);
  await page.goto(pathToFileURL(path.join(DIST, 'index.html')).href);
  await page.waitForSelector('body[data-ready="true"][data-stage="x"]');
  const x = env.engine.run({ preset: 'lesson-multi-head' }).stages[0];
  assert.deepEqual(await page.$$eval('#figure .is-result td.hm-cell', shownCells), Array.from(x.values, formatCell));
  assert.ok(await page.$('#formula .formula-face:not(.is-kept) .katex'), 'formula typeset');
  await page.click('.step-next');
  await page.waitForSelector('body[data-stage="q"][data-head="0"]');
  // The formulas' glyphs come from a small KaTeX_Main face (scripts/subset-fonts.mjs), the whole
  // font only for characters outside it: some KaTeX_Main face must have loaded.
  const fonts = await page.evaluate(async () => {
    await document.fonts.ready;
    return [...document.fonts].some((f) => f.family === 'KaTeX_Main' && f.status === 'loaded');
  });
  assert.ok(fonts, 'KaTeX_Main loaded from file://');
  assert.deepEqual(page.problems, []);
  await context.close();
});

test('the course page from file://: four steppers at their stages and chapters', async () => {
  const { page, context } = await newPage(env);
  await page.goto(pathToFileURL(path.join(DIST, 'examples', 'course-page.html')).href);
  await page.waitForSelector('attention-stepper#multi[data-ready="true"]');
  assert.deepEqual(await stageOf(page, '#scores'), ['scores', '0']);
  assert.deepEqual(await stageOf(page, '#causal'), ['masked', '0']);
  assert.deepEqual(await stageOf(page, '#multi'), ['weights', '2']);
  await page.waitForSelector('attention-stepper#cross[data-ready="true"]');
  assert.deepEqual(await stageOf(page, '#cross'), ['weights', '0']);
  assert.equal(await page.$eval('#cross', (e) => e.dataset.chapter), 'cross');
  const weights = env.engine
    .run({ preset: 'cross-translation' })
    .stages.find((st) => st.id === 'weights' && st.head === 0);
  assert.deepEqual(
    await resultOf(page, '#cross'),
    Array.from(weights.values, formatCell),
    'a 2 × 3 weight matrix from the engine',
  );
  assert.deepEqual(page.problems, []);
  await context.close();
});

test('course page under the CSP: no violation; two elements step independently; events and methods', async () => {
  const { page, context } = await newPage(env, { width: 1280, height: 900 });
  await context.addInitScript(() => {
    window.stageEvents = [];
    window.instances = 0;
    // The engine's core arrives through instantiateStreaming (its rest joins that instance).
    for (const name of ['instantiate', 'instantiateStreaming']) {
      const original = WebAssembly[name];
      WebAssembly[name] = (...args) => {
        window.instances += 1;
        return original(...args);
      };
    }
    document.addEventListener('stagechange', (e) =>
      window.stageEvents.push([e.target.id, e.detail.stage, e.detail.head]),
    );
  });
  await page.goto(`${env.server.url}examples/course-page.html`);
  for (const id of ['scores', 'causal', 'multi', 'cross'])
    await page.waitForSelector(`attention-stepper#${id}[data-ready="true"]`);
  const trace = env.engine.run({ preset: 'lesson-self-attention' });
  const pick = (id, head = 0) =>
    Array.from(trace.stages.find((s) => s.id === id && s.head === head).values, formatCell);
  assert.deepEqual(await resultOf(page, '#scores'), pick('scores'));
  assert.equal(
    await page.$$eval('#scores .step-text', (t) => t[0].textContent),
    'Stage 1 of 3',
    'stages="scores,scaled,weights" shows three steps',
  );
  await page.click('#scores .step-next');
  await page.waitForSelector('#scores[data-stage="scaled"]');
  assert.deepEqual(await resultOf(page, '#scores'), pick('scaled'));
  assert.deepEqual(await stageOf(page, '#causal'), ['masked', '0'], 'the other element did not move');
  await page.$eval('#causal', (e) => e.next());
  await page.waitForSelector('#causal[data-stage="weights"]');
  assert.deepEqual(await stageOf(page, '#scores'), ['scaled', '0']);
  await page.$eval('#multi', (e) => e.goTo('head', 3));
  await page.waitForSelector('#multi[data-stage="head"][data-head="3"]');
  await page.$eval('#scores', (e) => e.prev());
  await page.waitForSelector('#scores[data-stage="scores"]');
  assert.equal(await page.evaluate(() => window.instances), 1, 'four elements, one WASM instance');
  // Keys: ArrowRight inside an element steps it and does not reach the page (a slide deck).
  await page.evaluate(() => {
    window.pageKeys = 0;
    document.addEventListener('keydown', () => {
      window.pageKeys += 1;
    });
  });
  await page.focus('#causal .step-prev');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('#causal[data-stage="masked"]');
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('#causal[data-stage="weights"]');
  assert.equal(await page.evaluate(() => window.pageKeys), 0, 'the stepper kept its keys');
  await page.$eval('#multi', (e) => e.setAttribute('stage', 'scores'));
  await page.waitForSelector('#multi[data-stage="scores"][data-head="2"]');
  assert.deepEqual((await page.evaluate(() => window.stageEvents)).slice(0, 4), [
    ['scores', 'scaled', 0],
    ['causal', 'weights', 0],
    ['multi', 'head', 3],
    ['scores', 'scores', 0],
  ]);
  assert.equal(
    await page.$$eval('attention-stepper', (els) =>
      els.map((e) => e.shadowRoot.querySelectorAll('.katex').length > 0).join(),
    ),
    'true,true,true,true',
  );
  assert.equal(
    await page.evaluate(() => document.querySelectorAll('link[data-attention-stepper="katex"]').length),
    1,
    'KaTeX fonts declared once',
  );
  await page.screenshot({ path: path.join(SHOTS, 'embed-course-page-1280.png'), fullPage: true });
  assert.deepEqual(page.problems, []);
  // Last: axe itself adds <style> elements inside shadow roots, which the CSP blocks and reports.
  const { violations } = await axeBuilder(page).analyze();
  const serious = violations.filter((v) => ['serious', 'critical'].includes(v.impact));
  assert.deepEqual(
    serious.map(
      (v) =>
        `${v.id} at ${v.nodes
          .slice(0, 3)
          .map((n) => JSON.stringify(n.target))
          .join(' | ')}`,
    ),
    [],
    'axe: no serious or critical violation',
  );
  await context.close();
});

test('bad attributes show their message inside the element; so does a browser without WebAssembly', async () => {
  const { page, context } = await newPage(env, { width: 900, height: 700 });
  await routeFiles(context, {
    'bad.html': html(
      CLASSIC_SCRIPTS,
      `
      <attention-stepper id="bad" preset="lesson-nope" heads="3" stage="weigths" controls="tiny" ` +
        `theme="purple"></attention-stepper>
      <attention-stepper id="nostage" preset="lesson-self-attention" ` +
        `stages="masked"></attention-stepper>
      <attention-stepper id="heads" preset="lesson-multi-head" heads="3"></attention-stepper>
      <attention-stepper id="good" preset="lesson-causal" stage="masked"></attention-stepper>`,
    ),
  });
  await page.goto(`${env.server.url}bad.html`);
  await page.waitForSelector('#good[data-ready="true"]');
  await page.waitForSelector('#nostage[data-error="true"]');
  await page.waitForSelector('#heads[data-error="true"]');
  assert.deepEqual(
    await page.$$eval('#heads .as-message li', (li) => li.map((l) => l.textContent)),
    ['numHeads: 3 does not divide dModel 16; give dK and dV to choose the head sizes yourself'],
    'a rule between attributes: the engine\u2019s message',
  );
  const lines = await page.$$eval('#bad .as-message li', (li) => li.map((l) => l.textContent));
  for (const start of ['preset: "lesson-nope"', 'stage: "weigths"', 'controls: "tiny"', 'theme: "purple"']) {
    assert.ok(
      lines.some((l) => l.startsWith(start)),
      `a line starts with ${start}: ${lines.join(' | ')}`,
    );
  }
  assert.match(await page.$eval('#nostage .as-message', (m) => m.textContent), /masked is part of this configuration/);
  assert.equal(await page.$eval('#bad .as-message', (m) => m.getAttribute('role')), 'alert');
  await page.locator('#bad').screenshot({ path: path.join(SHOTS, 'embed-bad-attributes.png') });
  await page.$eval('#bad', (e) => {
    e.setAttribute('preset', 'lesson-self-attention');
    e.removeAttribute('heads');
    e.setAttribute('stage', 'weights');
    e.setAttribute('controls', 'none');
    e.setAttribute('theme', 'dark');
  });
  await page.waitForSelector('#bad[data-ready="true"][data-stage="weights"]');
  assert.equal(await page.$$eval('#bad .step-next', (b) => b.length), 0, 'controls="none" has no buttons');
  // The arcs take the element's theme: the dark --arc at their most opaque pixel.
  await page.waitForFunction(
    () => document.querySelector('#bad').shadowRoot.querySelector('canvas.arc-lines')?.dataset.lines,
  );
  const ink = await page.$eval('#bad', (e) => {
    const c = e.shadowRoot.querySelector('canvas.arc-lines');
    const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    let at = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > data[at + 3]) at = i - 3;
    return [...data.slice(at, at + 3)];
  });
  const want = [0x8c, 0xc4, 0xf5]; // (the light theme's is #1d5b9e)
  assert.ok(
    ink.every((v, i) => Math.abs(v - want[i]) <= 4),
    `arc colour ${ink}, want ${want} (± 4: alpha is rounded)`,
  );
  assert.deepEqual(page.problems, []);

  const bare = await env.browser.newContext();
  await bare.addInitScript(() => {
    delete window.WebAssembly;
  });
  await routeFiles(bare, {
    'bad.html': html(CLASSIC_SCRIPTS, '<attention-stepper id="w" preset="lesson-causal"></attention-stepper>'),
  });
  const p2 = await bare.newPage();
  await p2.goto(`${env.server.url}bad.html`);
  await p2.waitForSelector('#w[data-error="true"]');
  assert.match(await p2.$eval('#w .as-message', (m) => m.textContent), /no WebAssembly/);
  await bare.close();
  await context.close();
});

test('embed.html in an iframe posts its height, also as lti.frameResize; compact controls from the query', async () => {
  const { page, context } = await newPage(env, { width: 1000, height: 800 });
  await routeFiles(context, {
    'parent.html': html(
      '<script defer src="parent.js"></script>',
      '<iframe id="f" title="stepper" src="embed.html?preset=lesson-causal&stage=masked&controls=compact"></iframe>',
    ),
    'parent.js':
      `window.heights = [];
      window.lti = [];
      document.addEventListener('DOMContentLoaded', () => ` +
      `Object.assign(document.getElementById('f').style, { width: '100%', border: '0' }));
      window.addEventListener('message', (event) => {
        const frame = document.getElementById('f');
        if (event.source !== frame.contentWindow) return;
        if (event.data?.subject === 'lti.frameResize') window.lti.push(event.data.height); // an LMS's
        if (event.data?.type === 'attention-stepper:stagechange') window.moved = event.data.detail;
        if (event.data?.type !== 'attention-stepper:height') return;
        window.heights.push(event.data.height);
        frame.height = event.data.height; // as in docs/embedding.md
      });`,
  });
  await page.goto(`${env.server.url}parent.html`);
  const frame = page.frameLocator('#f');
  await frame.locator('attention-stepper[data-ready="true"][data-stage="masked"]').waitFor();
  await page.waitForFunction(() => window.heights.length > 0 && Math.max(...window.heights) > 300);
  const inner = await page
    .frames()[1]
    .evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
  await page.waitForFunction((h) => window.heights.at(-1) === h, inner);
  // Each height also as LTI's frameResize, which Canvas, Brightspace and Sakai act on.
  await page.waitForFunction((h) => window.lti.at(-1) === h, inner);
  assert.deepEqual(...(await page.evaluate(() => [window.lti, window.heights])));
  assert.equal(await frame.locator('.step-next').count(), 1, 'compact: Prev/Next');
  // The element's events reach the parent page as messages.
  await frame.locator('.step-next').click();
  await page.waitForFunction(() => window.moved?.stage === 'weights');
  assert.deepEqual(await page.evaluate(() => window.moved), {
    stage: 'weights',
    head: 0,
    step: null,
    index: 7,
    total: 9,
    chapter: 'attention',
    preset: 'lesson-causal',
  });
  assert.equal(await frame.locator('.stage-nav').count(), 0, 'compact: no stage list');
  assert.equal(await frame.locator('#field-causal').count(), 0, 'compact: no configuration');
  await page.locator('#f').screenshot({ path: path.join(SHOTS, 'embed-compact.png') });
  assert.deepEqual(page.problems, []);
  await context.close();
});

// The usability review: embeds changed height at every stage (655–984 px), so the course text
// below jumped; and stages with full controls let a chapter tab mix two chapters.
test('embeds sit still: in a configuration the element and the iframe only grow; stages keep one chapter', async () => {
  const { page, context } = await newPage(env, { width: 760, height: 900 });
  await routeFiles(context, {
    'still.html': html(
      `${CLASSIC_SCRIPTS}<script defer src="still.js"></script>`,
      '<attention-stepper id="e" preset="lesson-multi-head" stages="x,q,scores,weights,all_heads,concat,output" ' +
        'controls="full"></attention-stepper>' +
        '<iframe id="f" title="stepper" src="embed.html?preset=lesson-multi-head&controls=compact"></iframe>',
    ),
    'still.js': `window.heights = [];
      window.addEventListener('message', (event) => {
        const frame = document.getElementById('f');
        if (event.source !== frame.contentWindow || event.data?.type !== 'attention-stepper:height') return;
        window.heights.push(event.data.height);
        frame.height = event.data.height;
      });`,
  });
  await page.goto(`${env.server.url}still.html`);
  await page.waitForSelector('#e[data-ready="true"]');
  assert.equal(await page.locator('#e .chapter-button').count(), 0, 'stages: no chapter tabs');
  // Each stage's own height (the layout's) and the element's, stage by stage.
  const heights = async () =>
    page.$eval('#e', (e) => [e.shadowRoot.querySelector('.layout').offsetHeight, e.offsetHeight]);
  // Settled: the element holds its stage's height (it holds a height once it has lasted a moment).
  const settled = () =>
    page.waitForFunction(() => {
      const root = document.getElementById('e').shadowRoot.querySelector('.as-root');
      return parseFloat(root.style.minHeight || '0') >= root.querySelector('.layout').offsetHeight;
    });
  await settled();
  const seen = [await heights()];
  const { total } = await page.$eval('#e', (e) => e.current);
  assert.equal(total, 7, 'x, head 0\u2019s q, scores and weights, all heads side by side, concat and output');
  for (let i = 1; i < total; i += 1) {
    await page.$eval('#e', (e) => e.next());
    await page.waitForFunction((n) => document.getElementById('e').current.index === n, i);
    await settled();
    seen.push(await heights());
  }
  const own = seen.map(([layout]) => layout);
  const shown = seen.map(([, element]) => element);
  assert.ok(
    own.some((h, i) => i > 0 && h < own[i - 1]),
    `some stage is shorter than the one before: ${own}`,
  );
  assert.ok(
    shown.every((h, i) => i === 0 || h >= shown[i - 1]),
    `the element only grows: ${shown}`,
  );
  assert.ok(shown.at(-1) >= Math.max(...own), 'at least as tall as the tallest stage seen');
  assert.equal(await page.locator('#e .step-next').textContent(), 'Next \u2192');
  assert.ok(await page.locator('#e .step-next').isDisabled(), 'the last chosen stage: no next chapter');
  // Another example is another configuration: the element starts from its own height again.
  await page.locator('#e #field-preset').selectOption('lesson-self-attention');
  await page.waitForFunction((t) => document.getElementById('e').current.total !== t, total);
  await settled();
  const [layout, element] = await heights();
  const frameOf = seen[0][1] - seen[0][0]; // the element's own border and padding around its layout
  assert.ok(Math.abs(element - layout - frameOf) <= 1, `a new configuration: its own height, ${element}, ${layout}`);
  // The iframe: the heights it posts while the reader steps never shrink.
  const frame = page.frameLocator('#f');
  await frame.locator('attention-stepper[data-ready="true"]').waitFor();
  const inside = page.frames().find((f) => f.url().includes('embed.html'));
  const held = () =>
    inside.waitForFunction(() => {
      const root = document.querySelector('attention-stepper').shadowRoot.querySelector('.as-root');
      return parseFloat(root.style.minHeight || '0') >= root.querySelector('.layout').offsetHeight;
    });
  await held();
  const from = await page.evaluate(() => window.heights.length);
  for (let i = 1; i <= 8; i += 1) {
    await frame.locator('.step-next').click();
    await inside.waitForFunction((n) => document.querySelector('attention-stepper').current.index === n, i);
    await held();
  }
  await page.waitForFunction(
    () =>
      window.heights.at(-1) === Math.ceil(document.getElementById('f').contentDocument.documentElement.offsetHeight),
  );
  const posted = await page.evaluate((n) => window.heights.slice(n - 1), from);
  assert.ok(
    posted.every((h, i) => i === 0 || h >= posted[i - 1]),
    `the iframe only grows: ${posted}`,
  );
  assert.deepEqual(page.problems, []);
  await context.close();
});

test('the ES module build: <script type="module" src="attention-stepper.js"> under the CSP', async () => {
  const { page, context } = await newPage(env, { width: 900, height: 700 });
  await routeFiles(context, {
    'esm.html': html(
      '<script type="module" src="attention-stepper.js"></script>',
      '<attention-stepper id="e" preset="lesson-multi-head" stage="output" controls="compact"></attention-stepper>',
    ),
  });
  await page.goto(`${env.server.url}esm.html`);
  await page.waitForSelector('#e[data-ready="true"][data-stage="output"]');
  const output = env.engine.run({ preset: 'lesson-multi-head' }).stages.at(-1);
  assert.deepEqual(await resultOf(page, '#e'), Array.from(output.values, formatCell));
  assert.deepEqual(page.problems, []);
  await context.close();
});

// controls="locked": the course's configuration shown, none of it the reader's to change.
test('controls="locked": the stage list and the configuration shown, every field disabled, no tabs', async () => {
  const { page, context } = await newPage(env);
  await page.goto(`${env.server.url}embed.html?preset=lesson-causal&controls=locked&stage=weights`);
  const host = page.locator('attention-stepper[data-ready="true"][data-stage="weights"]');
  await host.waitFor();
  assert.equal(await host.locator('.chapter-button').count(), 0, 'no chapter tabs');
  assert.ok((await host.locator('.stage-nav .stage-item').count()) > 0, 'the stage list');
  assert.equal(await host.locator('.controls-locked').evaluate((f) => f.disabled), true);
  const fields = host.locator('.controls-form input, .controls-form select, .controls-form textarea');
  assert.ok((await fields.count()) > 3);
  for (const field of await fields.all()) assert.equal(await field.isDisabled(), true);
  assert.match(await host.locator('.controls summary').textContent(), /set by the course/);
  const before = await page.evaluate(() => document.querySelector('attention-stepper').snapshot().attributes);
  await host.locator('.controls-form input[type="checkbox"]').first().click({ force: true }); // a disabled box
  assert.deepEqual(
    await page.evaluate(() => document.querySelector('attention-stepper').snapshot().attributes),
    before,
  );
  await host.locator('.step-next').click(); // stepping stays open
  await page.waitForSelector('attention-stepper[data-stage="head"]');
  assert.deepEqual(page.problems, []);
  await context.close();
});

// chapters="…": a lecturer's tabs, in their order; the last stage leads to the next of them.
test('chapters="masks,attention": those tabs, in that order, opening the first; Next chapter follows', async () => {
  const { page, context } = await newPage(env);
  await page.goto(`${env.server.url}embed.html?controls=full&chapters=masks,attention`);
  const host = page.locator('attention-stepper[data-ready="true"]');
  await host.waitFor();
  assert.deepEqual(await host.locator('.chapter-button').allTextContents(), ['Masks', 'Self-attention']);
  assert.equal(await host.getAttribute('data-chapter'), 'masks');
  await host.locator('#stage').press('End');
  await page.waitForFunction(() =>
    document.querySelector('attention-stepper').shadowRoot.querySelector('.step-next.is-next-chapter'),
  );
  assert.equal(await host.locator('.step-next').textContent(), 'Next chapter: Self-attention \u2192');
  await host.locator('.step-next').click();
  await page.waitForSelector('attention-stepper[data-chapter="attention"]');
  assert.deepEqual(page.problems, []);
  await context.close();
});
