// Designed heads, the weight scale, the sequential palette and head pruning in headless
// Chromium: every number and every bar is the engine's, run in node beside the page.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { formatCell } from '../../web/model/format.js';
import { useEnv, openPage, pagePerTest, waitForStage, goToHash, resultTexts, SHOTS, urlMatching } from './harness.mjs';

const env = useEnv();
let page;

pagePerTest(
  () => env,
  '#chapter=designed-heads&stage=x',
  (opened) => ({ page } = opened),
);

const percent = (v) => `${(v * 100).toFixed(1)} %`;
const weightsOf = (trace, head) => trace.stages.find((s) => s.id === 'weights' && s.head === head);

const DESIGNED_HEADS_TITLE =
  'designed heads: each head\u2019s pattern shows in the engine\u2019s weights, and the page says how it is built';
test(DESIGNED_HEADS_TITLE, async () => {
  const trace = env.engine.run({ preset: 'designed-heads' });
  const t = trace.config.seqLen;
  const w0 = weightsOf(trace, 0).values;
  for (let i = 1; i < t; i += 1) assert.ok(w0[i * t + i - 1] >= 0.9, `previous-token head, row ${i}`);
  assert.ok(
    Array.from({ length: t }, (_, i) => weightsOf(trace, 2).values[i * t]).every((v) => v >= 0.9),
    'sink head',
  );
  await goToHash(page, '#chapter=designed-heads&preset=designed-heads&stage=weights&head=0');
  await waitForStage(page, 'weights', 0);
  assert.deepEqual(await resultTexts(page), Array.from(w0, formatCell));
  assert.match(await page.textContent('.chapter-panel'), /Token 0 has no token before it/);
  const names = await page.$$eval('.designed-head strong', (s) => s.map((x) => x.textContent));
  assert.deepEqual(
    names,
    trace.config.designedHeads.map((h) => h.name),
  );
  // Each head's button holds its label on one line, whole (it was clipped to "hea").
  const buttons = await page.$$eval('.designed-head .head-button', (bs) =>
    bs.map((b) => [b.textContent, b.getClientRects().length, b.scrollWidth <= b.clientWidth]),
  );
  assert.deepEqual(
    buttons,
    [0, 1, 2, 3].map((h) => [`head ${h}`, 1, true]),
  );
  const lines = await page.$eval('.designed-head .head-button', (b) => {
    const range = document.createRange();
    range.selectNodeContents(b);
    return range.getClientRects().length;
  });
  assert.equal(lines, 1, 'one line of text in the button');
  assert.match(await page.textContent('.chapter-panel'), /W_Q maps position p to s·e_p/);
  assert.match(await page.textContent('.chapter-panel'), /the next chapter, Trained heads, steps through/);
  assert.equal(
    await page.$eval('#figure .is-result .hm-legend-end', (e) => e.textContent),
    '0.000',
    'weights: the sequential palette from 0',
  );
  await page.screenshot({ path: path.join(SHOTS, 'designed-heads-weights-1280.png'), fullPage: true });
  // The further reading is the last chapter's, the trained heads'.
  await goToHash(page, '#chapter=trained-heads&preset=trained-induction&stage=embedded');
  await waitForStage(page, 'embedded');
  const reading = await page.$$eval('.further-reading li', (l) => l.map((x) => x.textContent));
  for (const ref of ['The Illustrated Transformer', 'What Does BERT Look At?', 'FlashAttention', 'Induction Heads'])
    assert.ok(
      reading.some((r) => r.includes(ref)),
      `further reading: ${ref}`,
    );
  assert.deepEqual(page.problems, []);
});

test('designed heads: six new words build X, and the same-word head finds the repeated one', async () => {
  const words = ['a', 'rose', 'is', 'a', 'red', 'rose']; // six, like the preset's own sentence
  const trace = env.engine.run({ kind: 'designed', tokens: words, causal: false });
  await goToHash(page, '#chapter=designed-heads&preset=designed-heads&stage=x');
  await waitForStage(page, 'x');
  await page.fill('#field-tokens', words.join(' '));
  await page.waitForFunction(() => document.querySelector('.shape-eq').dataset.equation === '(6, 11)');
  assert.deepEqual(await resultTexts(page), Array.from(trace.stages[0].values, formatCell), 'X from the new words');
  assert.match(await page.textContent('.explanation'), /rows of \u201ca\u201d \(tokens 0, 3\) and of \u201crose\u201d/);
  await urlMatching(page, /chapter=designed-heads&tokens=a\+rose\+is\+a\+red\+rose/);
  const hash = new URL(page.url()).hash.replace(/&stage=[^&]*/, '&stage=weights&head=1');
  await goToHash(page, hash);
  await waitForStage(page, 'weights', 1);
  const w1 = weightsOf(trace, 1).values;
  assert.deepEqual(await resultTexts(page), Array.from(w1, formatCell));
  assert.ok(
    w1[1 * 6 + 1] + w1[1 * 6 + 5] >= 0.9 && Math.abs(w1[1 * 6 + 1] - w1[1 * 6 + 5]) < 1e-12,
    '"rose" splits its weight between both roses',
  );
  // The same words from a link opened cold.
  const cold = await openPage(env, '#chapter=designed-heads&preset=designed-heads&tokens=a+rose+is+a+red+rose&stage=x');
  await waitForStage(cold.page, 'x');
  assert.deepEqual(await resultTexts(cold.page), Array.from(trace.stages[0].values, formatCell), 'X from the link');
  assert.deepEqual(cold.page.problems, []);
  await cold.context.close();
});

test('weight scale: 1 instead of 0.1 sharpens the weights; the spec and the URL carry it', async () => {
  await goToHash(page, '#chapter=attention&preset=lesson-multi-head&stage=weights&head=0');
  await waitForStage(page, 'weights', 0);
  await page.fill('#field-weightScale', '1');
  await page.waitForFunction(() => /ws=1(&|$)/.test(window.location.hash));
  const sharp = weightsOf(env.engine.run({ seed: 42, seqLen: 5, dModel: 16, numHeads: 4, weightScale: 1 }), 0).values;
  assert.deepEqual(await resultTexts(page), Array.from(sharp, formatCell));
  assert.ok(Math.max(...sharp) > 0.5, 'one key now takes most of a row');
  await page.fill('#field-weightScale', '0');
  await page.waitForSelector('#error-weightScale:has-text("weight scale must be a number above 0")');
  assert.deepEqual(await resultTexts(page), Array.from(sharp, formatCell), 'the last good view stays');
});

test('pruning: a switch per head, the engine\u2019s output change and each head alone as bars', async () => {
  const base = { seed: 42, seqLen: 5, dModel: 16, numHeads: 4 };
  await goToHash(
    page,
    '#chapter=attention&tokens=the+cat+sat+on+mats&dModel=16&heads=4&dK=&dV=' +
      '&seed=42&ws=0.1&causal=0&wo=1&scale=1&stage=output',
  );
  await waitForStage(page, 'output');
  const alone = env.engine.pruneEach(base);
  assert.deepEqual(
    await page.$$eval('.prune-value', (v) => v.map((x) => x.textContent)),
    alone.map((a) => percent(a.change)),
  );
  await page.click('.prune-switches button[aria-label="Prune head 2"]');
  await page.waitForFunction(() => /prune=2/.test(window.location.hash));
  const pruned = env.engine.run({ ...base, prunedHeads: [2] });
  assert.match(await page.textContent('.prune-change'), new RegExp(`by ${percent(pruned.config.outputChange)}`));
  assert.equal(pruned.config.outputChange, alone[2].change, 'pruning head 2 is the bar of head 2');
  assert.deepEqual(await resultTexts(page), Array.from(pruned.stages.at(-1).values, formatCell));
  assert.ok(await page.$('.stage-item:has-text("Pruned heads")'), 'the pruned concat is its own stage');
  await page.screenshot({ path: path.join(SHOTS, 'pruning-output-1280.png'), fullPage: true });
  await page.setViewportSize({ width: 375, height: 900 });
  await page.screenshot({ path: path.join(SHOTS, 'pruning-output-375.png'), fullPage: true });
  await goToHash(page, '#chapter=designed-heads&preset=designed-heads&stage=weights&head=0');
  await waitForStage(page, 'weights', 0);
  await page.screenshot({ path: path.join(SHOTS, 'designed-heads-weights-375.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await goToHash(
    page,
    '#chapter=attention&tokens=the+cat+sat+on+mats&dModel=16&heads=4&dK=&dV=' +
      '&seed=42&ws=0.1&causal=0&wo=1&scale=1&prune=2&stage=output',
  );
  await waitForStage(page, 'output');
  await page.click('.prune-switches button[aria-label="Prune head 2"]');
  await page.waitForFunction(() => !/prune=/.test(window.location.hash));
  assert.equal(await page.$('.stage-item:has-text("Pruned heads")'), null, 'no pruned stage without pruned heads');
  assert.deepEqual(page.problems, []);
});
