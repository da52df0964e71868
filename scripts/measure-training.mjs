// Part of `npm run bench`: training.html stays responsive while the worker trains. In headless
// Chromium on 127.0.0.1 under the strict CSP, n edits of the seed field, each timed from the input
// to the frame after it (the rAF asked before the input, then a task after that frame), first
// with nothing training, then while Train runs the default induction run (the page redraws its
// charts at every checkpoint between the edits): p50 / p95 / max of each, side by side.
// Usage: node scripts/measure-training.mjs [n = 150]
import { timeInput } from './bench/input-frame.js';
import { STRICT_CSP as CSP, launchChromium } from './chromium.mjs';
import { DIST, startServer } from './serve.mjs';

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const ms = (v) => `${v.toFixed(1)} ms`;
const spread = (xs) => `p50 ${ms(quantile(xs, 0.5))}, p95 ${ms(quantile(xs, 0.95))}, max ${ms(Math.max(...xs))}`;

// One edit of the seed field → [next, work] (ms): the time to the frame after it, and the same less
// the wait for the frame slot (from the end of the input's handlers to the start of that frame),
// timed as scripts/measure-page.mjs times a repaint (bench/input-frame.js). What the page's own
// work on the main thread (its chart redraws at each checkpoint) adds shows in both.
const edit = (page, k) => page.evaluate(timeInput, { id: 'training-seed', value: String(k) });

async function edits(page, n) {
  const times = { next: [], work: [] };
  for (let k = 0; k < n; k += 1) {
    const [next, work] = await edit(page, k);
    times.next.push(next);
    times.work.push(work);
    await page.waitForTimeout(20); // edits spread over the run, not one burst
  }
  return times;
}

const n = Number(process.argv[2] ?? 150);
const [browser, server] = await Promise.all([launchChromium(), startServer({ root: DIST, csp: CSP })]);
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.url}training.html`);
  await page.waitForSelector('body[data-ready="true"]');
  const idle = await edits(page, n);
  await page.click('#training-train');
  await page.waitForFunction(() => document.getElementById('training-progress').max > 1);
  const training = await edits(page, n);
  const step = await page.$eval('#training-progress', (p) => p.value);
  await context.close();
  console.log(
    `training.html, ${n} edits of the seed field each; input → the next frame (next), and the page's own part ` +
      `of it, without the wait for the frame slot (work):\n` +
      `  nothing training: next ${spread(idle.next)}; work ${spread(idle.work)}\n` +
      `  while the worker trains (to step ${step}): next ${spread(training.next)}; work ${spread(training.work)}; ` +
      `target: work p95 ≤ 16 ms while training: ${quantile(training.work, 0.95) <= 16 ? 'met' : 'NOT met'}`,
  );
} finally {
  await Promise.all([browser.close(), server.close()]);
}
