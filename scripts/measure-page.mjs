// Part of `npm run bench`: the page's load and paint figures in headless Chromium, served on
// 127.0.0.1 with the strict CSP, cold cache (a new context per load), median of five loads:
//   - first render: every response that arrived before the first stage was painted (HTML, CSS,
//     JS, WASM, fonts), gzipped, for index.html at its default stage and for a course page with
//     one <attention-stepper> (the course page's first); "painted" is the first frame in which a
//     heatmap cell has been laid out for a frame and every font the page asked for is in, so a
//     formula waiting for its font does not count as painted;
//   - where the time of that first paint goes (resource timing and the page's own marks);
//   - repaint after a config change (T = 16, d_model = 64): input → the next frame, p50 / p95;
//   - large views (T = 512): a stage change → the next frame, and frames while scrolling.
// Usage: node scripts/measure-page.mjs [dist …]: several dist folders are measured side by side,
// their loads interleaved (e.g. a build of the previous commit beside this one).
// MEASURE_PARTS=load,repaint,large,mobile,busy (the default: all five) measures only the parts named;
// mobile: every entry page on a phone profile (MOBILE below); busy: keys pressed while the largest
// configuration computes, in the worker and on the main thread.
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { STRICT_CSP as CSP, launchChromium } from './chromium.mjs';
import { DIST, startServer } from './serve.mjs';
import { watchFirstStage } from './bench/first-stage.js';
import { timeInput } from './bench/input-frame.js';

const LOADS = 5;
// The course page with its first stepper only (web/examples/course-page.html has four).
const ONE_STEPPER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>one stepper</title>
<link rel="stylesheet" href="course-page.css"><script defer src="../attention-stepper.classic.js"></script></head>
<body><main class="course"><h1>Lesson 06: attention</h1><p>First the raw scores.</p>
<attention-stepper id="scores" preset="lesson-self-attention" stage="scores" stages="scores,scaled,weights"
  controls="compact"></attention-stepper>
</main></body></html>`;
// The same page as it was before the engine loaded itself: both classic scripts.
const ONE_STEPPER_TWO_SCRIPTS = ONE_STEPPER.replace(
  '<script defer src="../attention-stepper.classic.js">',
  '<script defer src="../attention-wasm.classic.js"></script><script defer src="../attention-stepper.classic.js">',
);

// A response's body in bytes, raw and gzipped (level 9), or null (none, or no longer held).
async function sizeOf(response) {
  const body = await response?.body().catch(() => null);
  return body ? { raw: body.length, gzip: gzipSync(body, { level: 9 }).length } : null;
}

// Issue 36's phone on lecture-hall Wi-Fi, applied by Chromium itself (CDP): the CPU 4× slower,
// 150 ms latency, 1.6 Mbit/s down and 750 kbit/s up (Lighthouse's simulated throttling, in bytes
// per second), a 412 × 823 screen.
const MOBILE = {
  viewport: { width: 412, height: 823 },
  cpu: 4,
  network: { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 },
};

async function load(browser, url, body = null, profile = null, csp = CSP) {
  const context = await browser.newContext({ viewport: profile?.viewport ?? { width: 1280, height: 900 } });
  if (body)
    await context.route(url, (route) =>
      route.fulfill({
        status: 200,
        body,
        headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': csp },
      }),
    );
  const page = await context.newPage();
  if (profile) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', profile.network);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpu });
  }
  // Read and gzipped once the stage is painted: done during the load, asking for each body and
  // compressing it took the CPU (two cores here) from the page it measures.
  const responses = new Map();
  page.on('response', (r) => responses.set(r.url(), r));
  await page.addInitScript(watchFirstStage);
  await page.goto(url);
  await page.waitForFunction(() => window.firstStagePaintMs !== undefined, null, { timeout: 90_000 });
  const seen = await page.evaluate(() => ({
    ms: window.firstStagePaintMs,
    resources: performance
      .getEntriesByType('resource')
      .map((e) => ({ url: e.name, end: e.responseEnd, start: e.startTime })),
    marks: Object.fromEntries(
      performance.getEntriesByType('mark').map((m) => [m.name.replace('attention-stepper:', ''), m.startTime]),
    ),
    html: performance.getEntriesByType('navigation')[0].responseEnd,
  }));
  const before = [{ url, end: seen.html }, ...seen.resources.filter((r) => r.end <= seen.ms)];
  const files = [];
  for (const r of before) {
    const size = await sizeOf(responses.get(r.url));
    if (size) files.push({ ...r, ...size });
  }
  await context.close();
  return { ms: seen.ms, files, marks: seen.marks, resources: seen.resources };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const total = (files, key) => files.reduce((sum, f) => sum + f[key], 0);

function report(title, loads) {
  const files = loads[0].files;
  console.log(`\n${title}`);
  for (const f of [...files].sort((a, b) => b.gzip - a.gzip)) {
    console.log(
      `  ${String(f.gzip).padStart(8)} B gzipped ${String(f.raw).padStart(8)} B raw  ${new URL(f.url).pathname}`,
    );
  }
  const kb = (b) => (b / 1024).toFixed(1);
  console.log(
    `  first render: ${files.length} files, ${kb(total(files, 'raw'))} KB raw, ${kb(total(files, 'gzip'))} KB gzipped`,
  );
  console.log(
    `  navigation → first stage painted: median ${median(loads.map((l) => l.ms)).toFixed(0)} ms ` +
      `(${loads.length} cold loads: ${loads.map((l) => l.ms.toFixed(0)).join(', ')} ms)`,
  );
}

// Where the first paint's time goes, medians over the loads: the page script arriving, the
// engine's core fetched, compiled and instantiated, the stepper built and the first stage
// rendered (run, model, views), then style, layout, fonts and paint.
function breakdown(loads) {
  const at = (l, pattern) => l.resources.find((r) => pattern.test(r.url))?.end;
  const rows = [
    ['page script fetched', (l) => at(l, /attention-stepper(-page)?\.classic\.js$/)],
    ['page script run (parse, compile)', (l) => l.marks.script],
    ['engine core fetched', (l) => at(l, /attention-wasm\.(core\.wasm|classic\.js)$/)],
    ['engine ready (compile, instantiate)', (l) => l.marks.engine],
    ['stepper mounted (presets, models)', (l) => l.marks.mounted],
    ['first stage rendered (run, model, views)', (l) => l.marks.rendered],
    ['first stage painted (style, layout, fonts)', (l) => l.ms],
  ];
  if (loads.some((l) => rows.slice(1).some(([, get]) => get(l) === undefined))) return;
  console.log('  where the time goes (median ms after navigation):');
  for (const [name, get] of rows) console.log(`    ${median(loads.map(get)).toFixed(0).padStart(5)}  ${name}`);
}

// For n config changes on the full page (T = 16, d_model = 64), each as three times:
//   - next: input → the frame after it (the rAF after the input, then a task after that frame);
//   - work: the same less the wait for the frame slot (from the end of the input's handlers to
//     the start of the next frame), i.e. the page's own time: handlers, then style, layout, paint;
//   - floor: next for an input that changes nothing (none dispatched): what the frame clock alone
//     adds to `next`; and its work, what the measure itself and the machine add to `work`.
// 150 edits: a p95 is then the 8th largest, not the 3rd of 60, so one busy moment of the machine
// moves it less (both estimate the same percentile).
async function repaints(browser, base, n = 150) {
  const tokens = 'the quick brown fox jumps over the lazy dog and then the cat sat on mats'; // T = 16
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(
    `${base}index.html#chapter=attention&tokens=${encodeURIComponent(tokens)}&dModel=64&heads=4&stage=weights&head=1`,
  );
  await page.waitForSelector('body[data-ready="true"]');
  await warmWorker(page);
  const times = { next: [], work: [], floor: [], floorWork: [], seed: [], causal: [] };
  for (let i = 0; i < 2 * n; i += 1) {
    const edit = i % 2 === 0;
    const k = i >> 1;
    const [next, work] = await page.evaluate(timeInput, {
      id: k % 3 === 2 ? 'field-causal' : 'field-seed',
      value: edit ? String(100 + k) : null,
      pending: '.is-pending', // the trace computes in the worker: timed to the frame that shows it
    });
    if (edit) {
      times.next.push(next);
      times.work.push(work);
      times[(i >> 1) % 3 === 2 ? 'causal' : 'seed'].push(work);
    } else {
      times.floor.push(next);
      times.floorWork.push(work);
    }
  }
  await context.close();
  return times;
}

// The stepper's worker loads its engine when the reader first reaches for the stepper (a field
// focused); then the page is left as a reader finds it, nothing focused.
async function warmWorker(page) {
  await page.focus('#field-seed');
  await page.evaluate(() => document.activeElement.blur());
  await page.waitForTimeout(1500);
}

// The largest configuration the page computes (T = 512, d_model = 1024, one head of d_k = 1024: the
// most multiply-adds a trace within the budget takes), opened by a link (a hash change) on a page
// at its first example; while it computes, ← and → keys every KEY_MS, each timed from the key to
// the next paint by Chromium's Event Timing (entries under 16 ms are not reported: counted as 16).
// worker false: a CSP that refuses workers (worker-src 'none'), every engine call on the main
// thread, as before the worker.
// idle: the same keys for IDLE_MS with nothing computing, the floor of the figure.
// → { presses, durations, computeMs } or null where this build refuses the configuration.
const LARGEST = { tokens: 512, dModel: 1024, heads: 1 };
const IDLE_MS = 2000;
const [KEY_MS, MAX_KEYS] = [100, 60]; // a reader stepping fast: ten keys a second, for six seconds at most
async function inputsWhileComputing(browser, base, { worker, profile = null, idle = false }) {
  const context = await browser.newContext({ viewport: profile?.viewport ?? { width: 1280, height: 900 } });
  if (!worker)
    await context.route(`${base}index.html`, async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers(), 'content-security-policy': `${CSP}; worker-src 'none'` };
      await route.fulfill({ response, headers });
    });
  const page = await context.newPage();
  await page.goto(`${base}index.html`);
  await page.waitForSelector('body[data-ready="true"]');
  await warmWorker(page);
  if (profile) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpu });
  }
  await page.evaluate(() => {
    window.keyPaints = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.name === 'keydown') window.keyPaints.push(e.duration);
    }).observe({ type: 'event', durationThreshold: 16 });
  });
  const tokens = Array.from({ length: LARGEST.tokens }, (_, i) => `t${i}`).join(' ');
  const { dModel, heads } = LARGEST;
  const hash = `#chapter=attention&tokens=${encodeURIComponent(tokens)}&dModel=${dModel}&heads=${heads}`;
  const shown = () =>
    page.evaluate(() =>
      Boolean(
        document.querySelector('#figure .hm-grid[aria-label*="512 by"]') ||
        document.querySelector('.engine-error')?.textContent,
      ),
    );
  const t0 = Date.now();
  if (!idle) await page.evaluate((h) => (window.location.hash = h), hash);
  // Keys are sent every KEY_MS without waiting for the page: on a busy main thread they queue, as a
  // reader's do; the page is asked in turn whether the configuration is shown (an answer that waits
  // for that thread too).
  let computeMs = null;
  const done = (async () => {
    const over = () => (idle ? Date.now() - t0 > IDLE_MS : shown());
    while (!(await over()) && Date.now() - t0 < 120_000) await page.waitForTimeout(20);
    computeMs = Date.now() - t0;
  })();
  const keys = [];
  while (computeMs === null && keys.length < MAX_KEYS) {
    keys.push(page.keyboard.press(keys.length % 2 ? 'ArrowLeft' : 'ArrowRight'));
    await new Promise((resolve) => setTimeout(resolve, KEY_MS));
  }
  await Promise.all([done, ...keys]);
  const presses = keys.length;
  await page.waitForTimeout(200); // the last entries
  const refused = !idle && !(await shown());
  const durations = await page.evaluate(() => window.keyPaints);
  await context.close();
  return refused ? null : { presses, durations, computeMs };
}

const BUSY_CASES = [
  [true, true, 'nothing computing'],
  [true, false, 'in the worker'],
  [false, false, 'on the main thread'],
];
// Each case BUSY_ROUNDS times, the builds' rounds in turns, its keys pooled: one computation in the
// worker lasts about a second here, ten keys, too few for a p95.
const BUSY_ROUNDS = 4;
async function busyRounds(browser, bases, options) {
  const pooled = bases.map(() => ({ presses: 0, durations: [], computeMs: 0 }));
  for (let round = 0; round < BUSY_ROUNDS; round += 1)
    for (const [r, base] of bases.entries()) {
      const found = await inputsWhileComputing(browser, base, options);
      if (!found) pooled[r] = null;
      if (!pooled[r]) continue;
      pooled[r].presses += found.presses;
      pooled[r].durations.push(...found.durations);
      pooled[r].computeMs += found.computeMs;
    }
  return pooled;
}

function reportBusy(label, busy) {
  if (!busy) return console.log(`    ${label}: this build refuses the configuration`);
  const all = [...busy.durations, ...Array(Math.max(0, busy.presses - busy.durations.length)).fill(16)];
  console.log(
    `    ${label}: ${busy.presses} keys over ${busy.computeMs} ms (${BUSY_ROUNDS} rounds); key → next paint ` +
      `p50 ${quantile(all, 0.5).toFixed(0)} ms, p95 ${quantile(all, 0.95).toFixed(0)} ms, ` +
      `max ${Math.max(...all).toFixed(0)} ms (${busy.durations.length} of them 16 ms or more)`,
  );
}

// T = 512: Next → the frame after it, at every stage of head 0, and frame gaps while the
// result's heatmap scrolls.
async function largeViews(browser, base) {
  const tokens = Array.from({ length: 512 }, (_, i) => `t${i}`).join(' ');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}index.html#chapter=attention&tokens=${encodeURIComponent(tokens)}&dModel=64&heads=4&stage=x`);
  await page.waitForSelector('body[data-ready="true"][data-stage="x"]', { timeout: 60_000 }).catch(() => null);
  const shown = await page.$eval('#figure .is-result .hm-grid', (g) => g.getAttribute('aria-label')).catch(() => '');
  if (!shown.includes('512 by')) {
    await context.close();
    return null; // this build refuses 512 tokens
  }
  const steps = [];
  for (let i = 0; i < 8; i += 1) {
    steps.push(
      await page.evaluate(
        () =>
          new Promise((resolve) => {
            const t0 = performance.now();
            document.querySelector('.step-next').click();
            requestAnimationFrame(() =>
              setTimeout(() => resolve([document.body.dataset.stage, performance.now() - t0]), 0),
            );
          }),
      ),
    );
  }
  const frames = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const scroller = document.querySelector('#figure .is-result .hm-scroll');
        const gaps = [];
        let last = performance.now();
        let n = 0;
        const tick = (now) => {
          gaps.push(now - last);
          last = now;
          scroller.scrollTop += 40;
          scroller.scrollLeft += 20;
          window.scrollBy(0, 10);
          if ((n += 1) < 90) requestAnimationFrame(tick);
          else resolve(gaps.slice(1));
        };
        requestAnimationFrame(tick);
      }),
  );
  await context.close();
  return { steps, frames };
}

// builder.html's element snippet for the lesson's self-attention (compact controls), with its
// first stage drawn in or the element alone, and the script line it asks for, at a page in
// examples/ (base '../'): { snippet, script }, or null where the build's builder draws none.
async function builderSnippet(browser, base, drawnIn) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}builder.html`);
  await page.waitForSelector('body[data-ready="true"]');
  const box = await page.$('#builder-fallback');
  if (drawnIn && !box) return null;
  if (box) await page.setChecked('#builder-fallback', drawnIn);
  await page.selectOption('#builder-preset', 'lesson-self-attention');
  await page.fill('#builder-base', '../');
  if (drawnIn) await page.locator('#builder-fallback-status').filter({ hasText: 'carries its first stage' }).waitFor();
  const snippet = await page.inputValue('#builder-element');
  const script = await page.textContent('#builder-script');
  await context.close();
  return { snippet, script };
}

// ONE_STEPPER with the builder's snippet and script line.
const coursePage = ({ snippet, script }) =>
  ONE_STEPPER.replace(/<attention-stepper[^]*<\/attention-stepper>/, () => snippet).replace(
    /<script[^]*?<\/script>/,
    () => script,
  );
// A course page that allows inline styles (most do): the strict CSP but for style-src.
const INLINE_STYLES_CSP = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");

// The entry pages on the phone profile: median of three cold loads each, after the desktop parts.
const MOBILE_LOADS = 3;
async function mobileLoads(browser, base) {
  const entries = [
    ['index.html (lesson multi-head, X)', 'index.html', null],
    ['embed.html (lesson multi-head, X)', 'embed.html', null],
    ['training.html', 'training.html', null],
    ['course page with one <attention-stepper> (scores)', 'examples/one-stepper.html', ONE_STEPPER],
  ];
  for (const drawnIn of [false, true]) {
    const built = await builderSnippet(browser, base, drawnIn);
    if (built)
      entries.push([
        `course page, builder.html's snippet (lesson self-attention, X), ` +
          `${drawnIn ? 'its first stage drawn in' : 'the element alone'}, inline styles allowed`,
        `examples/builder-${drawnIn ? 'drawn' : 'alone'}.html`,
        coursePage(built),
        INLINE_STYLES_CSP,
      ]);
  }
  for (const [title, file, body, csp] of entries) {
    const loads = [];
    for (let i = 0; i < MOBILE_LOADS; i += 1) loads.push(await load(browser, base + file, body, MOBILE, csp));
    report(`phone profile (CPU 4×, 150 ms, 1.6 Mbit/s, 412 × 823): ${title}`, loads);
  }
}

const PARTS = (process.env.MEASURE_PARTS ?? 'load,repaint,large,mobile,busy').split(',');
const roots = process.argv.slice(2).length ? process.argv.slice(2).map((d) => path.resolve(d)) : [DIST];
const servers = await Promise.all(roots.map((root) => startServer({ root, csp: CSP })));
const browser = await launchChromium();
const pages = [
  ['index.html', null],
  ['examples/one-stepper.html', ONE_STEPPER],
];
const results = roots.map(() => pages.map(() => []));
for (let i = 0; i < (PARTS.includes('load') ? LOADS : 0); i += 1) {
  for (const [r, server] of servers.entries()) {
    for (const [p, [file, body]] of pages.entries()) {
      // A build whose element cannot load the engine itself gets both scripts, as its README said.
      const twoScripts = body && !existsSync(path.join(roots[r], 'attention-wasm.core.wasm'));
      results[r][p].push(await load(browser, server.url + file, twoScripts ? ONE_STEPPER_TWO_SCRIPTS : body));
    }
  }
}
const busy = [];
if (PARTS.includes('busy'))
  for (const profile of [null, MOBILE])
    for (const [worker, idle, what] of BUSY_CASES)
      busy.push([
        `${profile ? 'phone CPU (4×)' : 'desktop'}, ${what}`,
        await busyRounds(
          browser,
          servers.map((s) => s.url),
          { worker, profile, idle },
        ),
      ]);
for (const [r, root] of roots.entries()) {
  const label = roots.length > 1 ? ` [${root}]` : '';
  if (PARTS.includes('load')) {
    report(`page (index.html, lesson multi-head, 1280 px, cold, strict CSP)${label}:`, results[r][0]);
    breakdown(results[r][0]);
    report(`course page with one <attention-stepper> (lesson-self-attention, scores)${label}:`, results[r][1]);
  }
  if (PARTS.includes('repaint')) {
    const times = await repaints(browser, servers[r].url);
    const at = (xs, q) => quantile(xs, q).toFixed(1);
    const spread = (xs) => `p50 ${at(xs, 0.5)} ms, p95 ${at(xs, 0.95)} ms, max ${Math.max(...xs).toFixed(1)} ms`;
    console.log(
      `  repaint after a config change (T = 16, d_model = 64, ${times.next.length} edits of seed and causal):\n` +
        `    input → next frame: ${spread(times.next)}\n` +
        `    the page's work (less the wait for the frame slot): ${spread(times.work)}\n` +
        `      of which seed edits ${spread(times.seed)}; causal switches ${spread(times.causal)}\n` +
        `    the frame clock alone (no input): ${spread(times.floor)}; its work ${spread(times.floorWork)}`,
    );
  }
  if (PARTS.includes('mobile')) await mobileLoads(browser, servers[r].url);
  if (PARTS.includes('busy')) {
    const { tokens, dModel, heads } = LARGEST;
    console.log(`  while the largest configuration computes (T = ${tokens}, d_model = ${dModel}, ${heads} head):`);
    for (const [what, pooled] of busy) reportBusy(what, pooled[r]);
  }
  const large = PARTS.includes('large') ? await largeViews(browser, servers[r].url) : undefined;
  if (large === null) console.log('  T = 512: refused by this build');
  else if (large) {
    const ms = large.steps.map(([, t]) => t);
    console.log(
      `  T = 512, d_model = 64, 4 heads: Next → painted median ${median(ms).toFixed(0)} ms, ` +
        `max ${Math.max(...ms).toFixed(0)} ms ` +
        `(${large.steps.map(([id, t]) => `${id} ${t.toFixed(0)}`).join(', ')})`,
    );
    console.log(
      `  T = 512 scrolling the result: frame gaps median ${median(large.frames).toFixed(1)} ms, ` +
        `p95 ${quantile(large.frames, 0.95).toFixed(1)} ms, max ${Math.max(...large.frames).toFixed(1)} ms`,
    );
  }
}
await browser.close();
await Promise.all(servers.map((s) => s.close()));
