// The npm package: `npm pack` makes a tarball whose exports give the engine and the element;
// installed into an empty folder, the engine computes the lesson's numbers in node, and a page
// that imports attention-stepper/element's file shows a stepper in headless Chromium.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { STRICT_CSP, launchChromium } from '../../scripts/chromium.mjs';
import { startServer } from '../../scripts/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let work;
let tarball;

before(() => {
  work = mkdtempSync(path.join(tmpdir(), 'attention-pack-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' });
  tarball = path.join(work, JSON.parse(out)[0].filename);
  const app = path.join(work, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: app, stdio: 'pipe' });
});

after(() => rmSync(work, { recursive: true, force: true }));

test('the tarball holds the built engine and no sources or tests', () => {
  const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
  const files = [
    'engine.js',
    'engine-api.js',
    'attention-wasm.mjs',
    'attention-wasm.wasm',
    'attention-stepper.js',
    'attention-stepper.css',
    'attention-stepper.classic.js',
    'attention-wasm.classic.js',
    'index.html',
    'embed.html',
    'vendor/katex/katex.min.css',
  ];
  for (const file of [...files.map((f) => `package/dist/${f}`), 'package/README.md']) {
    assert.ok(listing.includes(file), `${file} is in the tarball`);
  }
  assert.ok(!listing.some((f) => f.startsWith('package/cpp/') || f.startsWith('package/tests/')));
});

test('installed into an empty folder, attention-stepper/engine runs the lesson example', () => {
  const script = `
    import { createEngine } from 'attention-stepper/engine';
    const engine = await createEngine();
    const { stages } = engine.run({ preset: 'lesson-self-attention' });
    console.log(JSON.stringify({ x00: stages[0].values[0], ids: stages.map((s) => s.id) }));`;
  const app = path.join(work, 'app');
  writeFileSync(path.join(app, 'check.mjs'), script);
  const result = JSON.parse(execFileSync('node', ['check.mjs'], { cwd: app, encoding: 'utf8' }));
  assert.equal(result.x00, 0.4967141530112327);
  assert.deepEqual(result.ids, ['x', 'q', 'k', 'v', 'scores', 'scaled', 'weights', 'head']);
  const manifest = JSON.parse(
    readFileSync(path.join(app, 'node_modules', 'attention-stepper', 'package.json'), 'utf8'),
  );
  assert.equal(manifest.exports['./engine'], './dist/engine.js');
  assert.equal(manifest.exports['./element'], './dist/attention-stepper.js');
});

test('installed into an empty folder, the element file defines <attention-stepper> in a browser', async () => {
  const app = path.join(work, 'app');
  writeFileSync(
    path.join(app, 'index.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>package</title>
    <script type="module" src="node_modules/attention-stepper/dist/attention-stepper.js"></script></head>
    <body><attention-stepper preset="lesson-self-attention" stage="weights"></attention-stepper></body></html>`,
  );
  const [server, browser] = await Promise.all([startServer({ root: app, csp: STRICT_CSP }), launchChromium()]);
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(server.url);
    await page.waitForSelector('attention-stepper[data-ready="true"][data-stage="weights"]', { timeout: 15000 });
    const cells = await page.$$eval('attention-stepper .figure-slot.is-result td.hm-cell', (tds) => tds.length);
    assert.equal(cells, 25, 'the 5 × 5 weights');
    assert.deepEqual(problems, []);
  } finally {
    await Promise.all([browser.close(), server.close()]);
  }
});
