// The README's Jupyter recipe in a real notebook: dist/ served by `python3 -m http.server` as the
// README says, a Jupyter Notebook server (Debian jupyter-notebook) on 127.0.0.1 with a token, and
// tests/course/jupyter/week5.ipynb (the README's cell) run by a real kernel. Headless Chromium
// on the notebook page: the iframe shows the stepper, tall enough for every stage, from a saved
// output of a trusted notebook and from the cell run in the page; a notebook handed out with its
// output but not trusted shows nothing until the cell runs (the README says so).
// Screenshot: build/screenshots/course-notebook.png.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  COURSE,
  DIST,
  ROOT,
  SHOTS,
  freePort,
  launch,
  requireDist,
  requireTool,
  startProcess,
  waitForHttp,
  workDir,
} from './course-harness.mjs';
import { readmeBlock } from './readme.mjs';

const PYTHON = '/usr/bin/python3'; // Debian's, which has the notebook packages
const token = randomBytes(12).toString('hex');
let browser;
let distServer;
let notebook;
let notebookUrl;
let distPort;
let iframeHeight;

before(async () => {
  requireDist();
  requireTool('jupyter-notebook', 'jupyter-notebook');
  const dir = workDir('jupyter');
  const env = {
    ...process.env,
    JUPYTER_CONFIG_DIR: path.join(dir, 'config'),
    JUPYTER_DATA_DIR: path.join(dir, 'data'),
    JUPYTER_RUNTIME_DIR: path.join(dir, 'runtime'),
    IPYTHONDIR: path.join(dir, 'ipython'),
    PYDEVD_DISABLE_FILE_VALIDATION: '1',
  };
  const notebookPort = await freePort();
  distPort = await freePort();
  distServer = startProcess(PYTHON, [
    '-m',
    'http.server',
    String(distPort),
    '--bind',
    '127.0.0.1',
    '--directory',
    DIST,
  ]);
  notebook = startProcess(
    'jupyter-notebook',
    [
      '--no-browser',
      '--allow-root',
      '--ip=127.0.0.1',
      `--port=${notebookPort}`,
      '--port-retries=0',
      `--NotebookApp.token=${token}`,
      `--notebook-dir=${dir}`,
    ],
    { env, cwd: dir },
  );
  notebookUrl = `http://127.0.0.1:${notebookPort}`;
  // Meanwhile a kernel runs the notebook (its outputs saved, signed and unsigned).
  const shown = execFileSync(
    PYTHON,
    [path.join(COURSE, 'jupyter', 'prepare.py'), path.join(COURSE, 'jupyter', 'week5.ipynb'), dir, String(distPort)],
    { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  iframeHeight = Number(/height="(\d+)"/.exec(shown)[1]);
  [browser] = await Promise.all([
    launch(),
    waitForHttp(`${notebookUrl}/api/status?token=${token}`, notebook),
    waitForHttp(`http://127.0.0.1:${distPort}/embed.html`, distServer),
  ]);
});

after(async () => {
  await browser?.close();
  await notebook?.stop();
  await distServer?.stop();
});

// The notebook page; failures of the stepper's own files (served by http.server) are recorded.
async function openNotebook(name) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1180 } });
  page.problems = [];
  const ours = (url) => url.includes(`localhost:${distPort}`);
  page.on(
    'response',
    (r) => r.status() >= 400 && ours(r.url()) && page.problems.push(`HTTP ${r.status()}: ${r.url()}`),
  );
  page.on(
    'console',
    (m) => m.type() === 'error' && ours(m.location().url ?? '') && page.problems.push(`console.error: ${m.text()}`),
  );
  await page.goto(`${notebookUrl}/notebooks/${name}?token=${token}`);
  await page.waitForFunction(() => window.Jupyter?.notebook?._fully_loaded);
  return page;
}

const stepperFrame = (page) => page.frames().find((f) => f.url().includes('/embed.html'));

test("the README's cell is the notebook's", () => {
  const cell = JSON.parse(
    execFileSync(
      PYTHON,
      [
        '-c',
        'import json,sys,nbformat; print(json.dumps(nbformat.read(sys.argv[1], 4).cells[1].source))',
        path.join(COURSE, 'jupyter', 'week5.ipynb'),
      ],
      { encoding: 'utf8' },
    ),
  );
  assert.equal(cell.trim(), readmeBlock('**Jupyter.**', 'python').trim());
});

test("a trusted notebook's saved output shows the stepper in its iframe, tall enough for every stage", async () => {
  const page = await openNotebook('trusted.ipynb');
  assert.equal(await page.evaluate(() => Jupyter.notebook.trusted), true);
  await page.waitForSelector('.output_area iframe');
  const frame = page.frameLocator('.output_area iframe');
  await frame.locator('attention-stepper[data-ready="true"][data-stage="weights"]').waitFor();
  const box = await page.$eval('.output_area iframe', (f) => f.getBoundingClientRect().toJSON());
  assert.equal(Math.round(box.height), iframeHeight);
  // Every stage of the preset fits the README's fixed height (the notebook ignores the height message).
  const inner = stepperFrame(page);
  const heights = await inner.evaluate(async () => {
    const el = document.querySelector('attention-stepper');
    const out = [];
    el.goTo('x');
    for (;;) {
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      out.push([el.current.stage, Math.ceil(document.documentElement.getBoundingClientRect().height)]);
      if (el.current.index === el.current.total - 1) return out;
      el.next();
    }
  });
  assert.equal(heights.length, 8, 'lesson-self-attention has 8 stages');
  const tall = heights.filter(([, h]) => h > iframeHeight);
  assert.deepEqual(
    tall,
    [],
    `stages taller than the iframe's ${iframeHeight} px at ${Math.round(box.width)} px wide: ` +
      JSON.stringify(heights),
  );
  await inner.evaluate(() => document.querySelector('attention-stepper').goTo('weights'));
  await frame.locator('attention-stepper[data-stage="weights"]').waitFor();
  await page.$eval('.code_cell', (c) => c.scrollIntoView({ block: 'start' }));
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SHOTS, 'course-notebook.png') });
  assert.deepEqual(page.problems, []);
  await page.close();
});

const UNTRUSTED =
  'an untrusted notebook shows no iframe from its saved output; ' +
  'the cell run in the page (Shift+Enter) shows the stepper';
test(UNTRUSTED, async () => {
  const page = await openNotebook('untrusted.ipynb');
  assert.equal(await page.evaluate(() => Jupyter.notebook.trusted), false);
  assert.equal(await page.locator('.output_area').count(), 1, 'the saved output is there');
  assert.equal(
    await page.locator('.output_area iframe').count(),
    0,
    'Jupyter Notebook strips the iframe from an untrusted output',
  );
  // The reader runs the cell: Shift+Enter in it, as in the notebook.
  await page.waitForFunction(
    () => Jupyter.notebook.kernel?.is_connected() && Jupyter.notebook.kernel_busy === false,
    null,
    { timeout: 30000 },
  );
  await page.click('.code_cell .CodeMirror');
  await page.keyboard.press('Shift+Enter');
  await page.waitForSelector('.output_area iframe', { timeout: 30000 }).catch(async (error) => {
    const state = await page.evaluate(() => ({
      busy: Jupyter.notebook.kernel_busy,
      out: document.querySelector('.output_area')?.textContent,
    }));
    throw new Error(`${error.message}\nkernel: ${JSON.stringify(state)}\nserver: ${notebook.output().slice(-2000)}`);
  });
  await page
    .frameLocator('.output_area iframe')
    .locator('attention-stepper[data-ready="true"][data-stage="weights"]')
    .waitFor({ timeout: 20000 });
  const frame = stepperFrame(page);
  await frame.locator('attention-stepper .step-next').click();
  await frame.locator('attention-stepper[data-stage="head"]').waitFor();
  assert.deepEqual(page.problems, []);
  await page.close();
});
