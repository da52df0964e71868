// builder.html in Chromium: a lecturer's choice (chapters, example, controls, quiz) sets the live
// stepper and writes the element's and the iframe's snippets, and each snippet, opened as a
// course page would, shows the same view as the preview.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CSP, axeBuilder, newPage, useEnv } from './harness.mjs';

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
  await page.check('#builder-chapter-masks');
  await page.check('#builder-chapter-attention');
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
