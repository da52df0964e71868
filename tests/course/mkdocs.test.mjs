// The README's MkDocs recipe, for real: dist/ copied to docs/attention-stepper/ of the site in
// tests/course/mkdocs/, `mkdocs build --strict` (Debian mkdocs), the built site served on
// 127.0.0.1 and opened in headless Chromium: both steppers render inside MkDocs's own theme,
// offline. Screenshot: build/screenshots/course-mkdocs.png.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  COURSE,
  DIST,
  SHOTS,
  copyDist,
  launch,
  requireTool,
  startServer,
  watchProblems,
  workDir,
} from './course-harness.mjs';
import { readmeLines } from './readme.mjs';

let browser;
let server;
let site;

before(async () => {
  requireTool('mkdocs', 'mkdocs');
  const dir = workDir('mkdocs');
  cpSync(path.join(COURSE, 'mkdocs'), dir, { recursive: true });
  copyDist(path.join(dir, 'docs', 'attention-stepper')); // "copy it to docs/attention-stepper/"
  site = path.join(dir, 'site');
  execFileSync('mkdocs', ['build', '--strict', '--quiet', '--site-dir', site], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  [browser, server] = await Promise.all([launch(), startServer({ root: site })]);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("the page's lines are the README's, and MkDocs publishes dist/ unchanged", () => {
  const page = readFileSync(path.join(COURSE, 'mkdocs', 'docs', 'attention.md'), 'utf8')
    .split('\n')
    .map((l) => l.trim());
  for (const line of readmeLines('Then in a page', 'html'))
    assert.ok(page.includes(line), `docs/attention.md has the README's line ${line}`);
  for (const f of ['attention-wasm.classic.js', 'attention-stepper.classic.js', 'attention-stepper.css']) {
    assert.ok(
      readFileSync(path.join(site, 'attention-stepper', f)).equals(readFileSync(path.join(DIST, f))),
      `site/attention-stepper/${f} is dist/${f}`,
    );
  }
});

test('the built page shows both steppers inside the MkDocs theme, with no request off the site', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = watchProblems(await context.newPage());
  await page.goto(`${server.url}attention/`);
  await page.waitForSelector('attention-stepper[preset="lesson-causal"][data-ready="true"][data-stage="masked"]');
  await page.waitForSelector(
    'attention-stepper[preset="lesson-multi-head"][data-ready="true"][data-stage="weights"][data-head="2"]',
  );
  const layout = await page.evaluate(() => {
    const main = document.querySelector('[role="main"]');
    return {
      theme: !!document.querySelector('.navbar') && !!document.querySelector('link[href*="bootstrap"]'),
      inMain: [...document.querySelectorAll('attention-stepper')].map((el) => main.contains(el)),
      wide: [...document.querySelectorAll('attention-stepper')].map(
        (el) => el.getBoundingClientRect().width >= 0.9 * main.getBoundingClientRect().width,
      ),
      katex: [...document.querySelectorAll('attention-stepper')].map((el) => !!el.shadowRoot.querySelector('.katex')),
    };
  });
  assert.deepEqual(
    layout,
    { theme: true, inMain: [true, true], wide: [true, true], katex: [true, true] },
    "in the theme's main column, across it, formulas typeset",
  );
  // The theme's keys (n, p, s, ?) are letters; ←/→ inside a stepper step it.
  await page.locator('attention-stepper[preset="lesson-causal"] .step-prev').focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('attention-stepper[preset="lesson-causal"][data-stage="weights"]');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('attention-stepper[preset="lesson-causal"][data-stage="masked"]');
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SHOTS, 'course-mkdocs.png'), fullPage: true });
  assert.deepEqual(page.problems, []);
  await context.close();
});
