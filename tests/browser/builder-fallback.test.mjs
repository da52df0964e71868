// builder.html's element snippet with its first stage drawn in (issue 36), on a course page: read
// with JavaScript off, the engine's numbers; with it on, painted before the engine's rest and the
// later script arrive, then replaced by the live stage without a layout shift; under a CSP that
// refuses inline styles, hidden, and the live stage alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCell } from '../../web/model/format.js';
import { CSP, newPage, shownCells, useEnv, watchShifts } from './harness.mjs';

const env = useEnv();

// Held until release(): what the element waits for before its live stage replaces the drawn one.
const LATER = /\/(attention-wasm\.rest\.wasm|attention-stepper-(katex|later)\.js)$/;

async function hold(context) {
  const held = [];
  let open = false;
  await context.route(LATER, (route) => (open ? route.continue() : held.push(route)));
  return () => {
    open = true;
    for (const route of held.splice(0)) route.continue();
  };
}

// The builder's element snippet for this example and these controls, once its stage is drawn in.
async function builtSnippet(preset, controls) {
  const { page, context } = await newPage(env);
  await page.goto(`${env.server.url}builder.html`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.selectOption('#builder-preset', preset);
  await page.selectOption('#builder-controls', controls);
  await page.fill('#builder-base', '/');
  await page.locator('#builder-fallback-status').filter({ hasText: 'carries its first stage' }).waitFor();
  const snippet = await page.inputValue('#builder-element');
  const status = await page.textContent('#builder-fallback-status');
  // The element's script is added once the page has painted (web/preload.js).
  assert.equal(
    await page.textContent('#builder-script'),
    '<script defer src="/attention-stepper-preload.js" data-then="attention-stepper.classic.js"></script>',
  );
  assert.deepEqual(page.problems, []);
  await context.close();
  return { snippet, status };
}

// A course page holding the snippet and the builder's script line, served at course.html with or
// without a CSP.
async function routeCourse(context, snippet, csp) {
  const body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>course</title>' +
    '<script defer src="/attention-stepper-preload.js" data-then="attention-stepper.classic.js"></script></head>' +
    `<body><h1>Lesson 06</h1>${snippet}<p id="after">What the weights mean.</p></body></html>`;
  const headers = { 'Content-Type': 'text/html', ...(csp ? { 'Content-Security-Policy': CSP } : {}) };
  await context.route(`${env.server.url}course.html`, (route) => route.fulfill({ status: 200, body, headers }));
  return `${env.server.url}course.html`;
}

// The element's background on the course page with JavaScript off, in one scheme.
async function stillBackground(snippet, colorScheme) {
  const off = await env.browser.newContext({ javaScriptEnabled: false, colorScheme });
  const page = await off.newPage();
  await page.goto(await routeCourse(off, snippet, false));
  const background = await page.$eval('attention-stepper', (e) => getComputedStyle(e).backgroundColor);
  await off.close();
  return background;
}

const RESULT = 'attention-stepper .figure-slot.is-result td.hm-cell';
const rootOf = (page) =>
  page.$eval('attention-stepper', (e) => {
    const root = e.shadowRoot.querySelector('.as-root');
    return { hidden: root.hidden, display: getComputedStyle(root).display, ready: e.dataset.ready ?? null };
  });

const CARRIES = "builder: the element's snippet carries its first stage: read without JavaScript, replaced unmoved";

test(CARRIES, async () => {
  const { snippet, status } = await builtSnippet('lesson-causal', 'full');
  // The faces of its formula (X ∈ ℝ^{T×d_model}, T = seq_len), preloaded; KaTeX's sheet; the element.
  const preload = (face) =>
    `<link rel="preload" as="font" type="font/woff2" crossorigin href="/vendor/katex/fonts/${face}">`;
  const head = snippet.slice(0, snippet.indexOf('<template'));
  assert.equal(
    head,
    ['KaTeX_Math-Italic.subset.woff2', 'KaTeX_Main-Regular.subset.woff2', 'KaTeX_AMS-Regular.subset.woff2']
      .map(preload)
      .join('\n') +
      '\n<link rel="stylesheet" href="/vendor/katex/katex.min.css">\n' +
      "<style>@property --pitch { syntax: '<length>'; inherits: true; initial-value: 0px; }</style>\n" +
      '<attention-stepper preset="lesson-causal" controls="full" class="theme-auto">',
  );
  const kb = Number(/\((\d+) KB\)/.exec(status)[1]);
  assert.equal(kb, Math.round(Buffer.byteLength(snippet) / 1024));
  const x = Array.from(env.engine.run({ preset: 'lesson-causal' }).stages[0].values, formatCell);

  // JavaScript off: the drawn stage, whole, with the engine's numbers and the form's values.
  const off = await env.browser.newContext({ viewport: { width: 412, height: 823 }, javaScriptEnabled: false });
  const still = await off.newPage();
  await still.goto(await routeCourse(off, snippet, false));
  assert.deepEqual(await rootOf(still), { hidden: true, display: 'block', ready: null });
  assert.deepEqual(await still.$$eval(RESULT, shownCells), x);
  assert.equal(await still.textContent('attention-stepper #stage-title'), 'Input embeddings X');
  assert.equal(await still.$eval('attention-stepper .shape-eq', (p) => p.dataset.equation), '(4, 8)');
  assert.ok(await still.$('attention-stepper #formula .katex .katex-html'), 'the formula typeset');
  const chosen = await still.$eval('attention-stepper #field-preset option[selected]', (o) => o.value);
  assert.equal(chosen, 'lesson-causal', "the form's choice, as an attribute");
  await off.close();
  // In the dark scheme, the panel's colours are the dark ones, as its fills are.
  assert.equal(await stillBackground(snippet, 'dark'), 'rgb(24, 25, 27)');
  assert.equal(await stillBackground(snippet, 'light'), 'rgb(251, 250, 247)');

  // JavaScript on: drawn before the later files arrive, then the live stage in its place.
  const { page, context } = await newPage(env, { width: 412, height: 823, init: watchShifts });
  const release = await hold(context);
  await page.goto(await routeCourse(context, snippet, false), { waitUntil: 'domcontentloaded' });
  await page.waitForSelector(RESULT);
  assert.deepEqual(await page.$$eval(RESULT, shownCells), x);
  assert.equal((await rootOf(page)).ready, null, 'not live before its later files');
  release();
  await page.waitForSelector('attention-stepper[data-ready="true"]');
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  assert.deepEqual(await rootOf(page), { hidden: false, display: 'block', ready: 'true' });
  assert.deepEqual(await page.$$eval(RESULT, shownCells), x, 'the live stage shows the same numbers');
  const shifted = await page.evaluate(() => window.shifted);
  assert.ok(shifted.reduce((sum, s) => sum + s.value, 0) < 1e-4, `layout shifts ${JSON.stringify(shifted)}`);
  assert.deepEqual(page.problems, []);
  await context.close();
});

test('builder: under a CSP refusing inline styles the drawn stage stays hidden and the live one shows', async () => {
  const { snippet } = await builtSnippet('lesson-self-attention', 'compact');
  const off = await env.browser.newContext({ javaScriptEnabled: false });
  const still = await off.newPage();
  await still.goto(await routeCourse(off, snippet, true));
  assert.deepEqual(await rootOf(still), { hidden: true, display: 'none', ready: null });
  await off.close();

  const live = await env.browser.newContext();
  const page = await live.newPage();
  await page.goto(await routeCourse(live, snippet, true));
  await page.waitForSelector('attention-stepper[data-ready="true"]');
  assert.deepEqual(await rootOf(page), { hidden: false, display: 'block', ready: 'true' });
  const x = env.engine.run({ preset: 'lesson-self-attention' }).stages[0];
  assert.deepEqual(await page.$$eval(RESULT, shownCells), Array.from(x.values, formatCell));
  await live.close();
});
