// builder.html in Chromium: a lecturer's choice (chapters, example, controls, quiz) sets the live
// stepper and writes the element's and the iframe's snippets, and each snippet, opened as a
// course page would, shows the same view as the preview; the SCORM package of a choice is the
// built page's files with its launch page set, and opens on that choice.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { unzipSync } from 'fflate';
import { startServer } from '../../scripts/serve.mjs';
import { CSP, ROOT, axeBuilder, downloadedBytes, newPage, useEnv } from './harness.mjs';

const env = useEnv();

// What an element shows: its chapter, stage, controls and quiz as a reader sees them.
const viewOf = (host) =>
  host.evaluate((e) => ({
    chapter: e.dataset.chapter,
    stage: e.dataset.stage,
    tabs: [...e.shadowRoot.querySelectorAll('.chapter-button')].map((b) => b.textContent),
    locked: Boolean(e.shadowRoot.querySelector('fieldset.controls-locked[disabled]')),
    quizFixed: e.shadowRoot.querySelector('.quiz-toggle input')?.disabled ?? null,
  }));

test('builder: the choice sets the preview and both snippets, which open the same view', async () => {
  const { page, context } = await newPage(env);
  await page.goto(`${env.server.url}builder.html`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.uncheck('#builder-fallback'); // the element alone (builder-fallback.test.mjs draws its stage in)
  await page.check('#builder-chapter-attention');
  await page.check('#builder-chapter-masks');
  await page.selectOption('#builder-preset', 'lesson-causal');
  await page.selectOption('#builder-controls', 'full');
  await page.selectOption('#builder-quiz', 'required');
  await page.fill('#builder-base', '/');
  const element = await page.inputValue('#builder-element');
  assert.equal(
    element,
    '<attention-stepper chapters="attention,masks" preset="lesson-causal" controls="full" quiz="required">' +
      '</attention-stepper>',
  );
  const iframe = await page.inputValue('#builder-iframe');
  assert.equal(
    iframe,
    '<iframe title="Attention stepper" width="100%" height="900" ' +
      'src="/embed.html?chapters=attention%2Cmasks&amp;preset=lesson-causal&amp;controls=full&amp;quiz=required">' +
      '</iframe>',
  );
  assert.equal(
    await page.textContent('#builder-script'),
    '<script defer src="/attention-stepper.classic.js"></script>',
  );
  const preview = page.locator('#builder-preview attention-stepper[data-ready="true"][data-chapter="attention"]');
  await preview.waitFor();
  const shown = await viewOf(preview);
  assert.deepEqual(shown, {
    chapter: 'attention',
    stage: 'x',
    tabs: ['Self-attention', 'Masks'],
    locked: false,
    quizFixed: true,
  });

  // The element snippet on a course page of the same site, and the iframe's page.
  const course = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>course</title>
<script defer src="/attention-stepper.classic.js"></script></head><body>${element}</body></html>`;
  await context.route(`${env.server.url}course.html`, (route) =>
    route.fulfill({
      status: 200,
      body: course,
      headers: { 'Content-Type': 'text/html', 'Content-Security-Policy': CSP },
    }),
  );
  await page.goto(`${env.server.url}course.html`);
  const placed = page.locator('attention-stepper[data-ready="true"]');
  await placed.waitFor();
  assert.deepEqual(await viewOf(placed), shown);
  const src = /src="([^"]*)"/.exec(iframe)[1].replaceAll('&amp;', '&');
  await page.goto(new URL(src, env.server.url).href);
  const framed = page.locator('attention-stepper[data-ready="true"]');
  await framed.waitFor();
  assert.deepEqual(await viewOf(framed), shown);
  assert.deepEqual(page.problems, []);
  await context.close();
});

test('builder: controls locked and quiz off make their snippet; no chapter ticked writes none; axe', async () => {
  const { page, context } = await newPage(env);
  await page.goto(`${env.server.url}builder.html`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.uncheck('#builder-fallback');
  await page.selectOption('#builder-controls', 'locked');
  await page.waitForFunction(() => document.querySelector('#builder-element').value.includes('locked'));
  assert.equal(await page.inputValue('#builder-element'), '<attention-stepper controls="locked"></attention-stepper>');
  const preview = page.locator('#builder-preview attention-stepper[data-ready="true"][controls="locked"]');
  await preview.waitFor();
  assert.equal((await viewOf(preview)).locked, true);
  assert.deepEqual(page.problems, []);
  // axe itself injects a <style> (a CSP violation of its own): checked last.
  const serious = (await axeBuilder(page).analyze()).violations.filter((v) =>
    ['serious', 'critical'].includes(v.impact),
  );
  assert.deepEqual(
    serious.map((v) => v.id),
    [],
  );
  await context.close();
});

test('builder: the SCORM package of a choice is the built page, its launch page set, and opens on it', async () => {
  const { page, context } = await newPage(env);
  await page.goto(`${env.server.url}builder.html`);
  await page.waitForSelector('body[data-ready="true"]');
  // Ticked masks first: its tab first, its examples offered.
  await page.check('#builder-chapter-masks');
  await page.check('#builder-chapter-attention');
  await page.selectOption('#builder-preset', 'masks-padding');
  await page.selectOption('#builder-controls', 'none');
  await page.fill('#builder-mastery', '85');
  await page.click('#builder-package');
  const status = page.locator('#builder-package-status');
  await status.filter({ hasText: 'No package' }).waitFor();
  assert.equal(await status.textContent(), 'No package: controls: none is not one of full, locked, compact.');
  await page.selectOption('#builder-controls', 'compact');
  await page.fill('#builder-mastery', '101');
  await page.click('#builder-package');
  await status.filter({ hasText: '"101"' }).waitFor();
  await page.fill('#builder-mastery', '85');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#builder-package')]);
  assert.equal(download.suggestedFilename(), 'attention-stepper-masks-attention.zip');
  const files = unzipSync(new Uint8Array(await downloadedBytes(download)));
  await status.filter({ hasText: 'MB' }).waitFor();
  assert.match(
    await status.textContent(),
    /^attention-stepper-masks-attention\.zip: \d\.\d MB, \d+ files, mastery 85\.$/,
  );
  const dist = path.join(ROOT, 'dist');
  const listed = JSON.parse(readFileSync(path.join(dist, 'scorm-files.json'), 'utf8'));
  assert.deepEqual(Object.keys(files).sort(), [...listed, 'imsmanifest.xml'].sort());
  for (const f of listed)
    if (f !== 'scorm.html') assert.ok(Buffer.from(files[f]).equals(readFileSync(path.join(dist, f))), f);
  const launch = new TextDecoder().decode(files['scorm.html']);
  assert.ok(
    launch.includes(
      '<main id="scorm" data-chapters="masks,attention" data-preset="masks-padding" data-controls="compact" ' +
        'data-mastery="85"></main>',
    ),
  );
  assert.match(new TextDecoder().decode(files['imsmanifest.xml']), /<adlcp:masteryscore>85<\/adlcp:masteryscore>/);
  assert.deepEqual(page.problems, []);

  // Unzipped and opened as an LMS would (no API here: the stepper alone), on the lecturer's choice.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'builder-scorm-'));
  for (const [f, bytes] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), bytes);
  }
  await context.close();
  const server = await startServer({ root: dir, csp: CSP });
  const lms = await newPage({ browser: env.browser, server });
  try {
    await lms.page.goto(`${server.url}scorm.html`);
    const stepper = lms.page.locator('#scorm[data-lms="none"] attention-stepper[data-ready="true"]');
    await stepper.waitFor();
    assert.deepEqual(
      await stepper.evaluate((e) => ({
        chapter: e.dataset.chapter,
        preset: e.current.preset ?? e.getAttribute('preset'),
        quiz: e.getAttribute('quiz'),
        controls: e.getAttribute('controls'),
        chapters: e.getAttribute('chapters'),
      })),
      {
        chapter: 'masks',
        preset: 'masks-padding',
        quiz: 'required',
        controls: 'compact',
        chapters: 'masks,attention',
      },
    );
    assert.deepEqual(lms.page.problems, []);
  } finally {
    await lms.context.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
