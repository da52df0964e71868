// Part of `npm run bench`: the page's first-render payload (every response the full page
// loads before its first stage is on screen, gzipped) and the time from navigation to the
// first stage painted, median of five cold loads in headless Chromium.
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const LOADS = 5;
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// Runs in the page before its scripts: stamps the first animation frame in which a
// heatmap cell exists (in the document or in a shadow root), i.e. the first stage's paint.
function watchFirstStage() {
  const hasCell = (root) => root.querySelector('td[data-r]') ||
    [...root.querySelectorAll('*')].some((el) => el.shadowRoot && hasCell(el.shadowRoot));
  const poll = () => {
    if (document.body && hasCell(document)) window.firstStagePaintMs = performance.now();
    else requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
}

async function load(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const bodies = [];
  page.on('response', (r) => bodies.push(r.body().then((b) => ({ url: r.url(), raw: b.length, gzip: gzipSync(b, { level: 9 }).length })).catch(() => null)));
  await page.addInitScript(watchFirstStage);
  await page.goto(url);
  await page.waitForFunction(() => window.firstStagePaintMs !== undefined, null, { timeout: 30_000 });
  const ms = await page.evaluate(() => window.firstStagePaintMs);
  const files = (await Promise.all(bodies)).filter(Boolean);
  await context.close();
  return { ms, files };
}

const server = await startServer({ csp: "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'" });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
const loads = [];
for (let i = 0; i < LOADS; i++) loads.push(await load(browser, server.url + 'index.html'));
await browser.close();
await server.close();

const ms = loads.map((l) => l.ms).sort((a, b) => a - b);
const { files } = loads[0];
const total = (key) => files.reduce((sum, f) => sum + f[key], 0);
console.log(`\npage (dist/index.html, lesson multi-head, 1280 px, served on 127.0.0.1 with the strict CSP):`);
for (const f of files.sort((a, b) => b.gzip - a.gzip)) {
  console.log(`  ${String(f.gzip).padStart(8)} B gzipped ${String(f.raw).padStart(8)} B raw  ${new URL(f.url).pathname}`);
}
console.log(`  first-render payload: ${files.length} files, ${total('raw')} B raw, ${total('gzip')} B gzipped`);
console.log(`  navigation → first stage painted: median ${ms[Math.floor(LOADS / 2)].toFixed(0)} ms ` +
  `(${LOADS} cold loads: ${ms.map((m) => m.toFixed(0)).join(', ')} ms)`);
