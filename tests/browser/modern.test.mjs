// The Modern attention chapter in headless Chromium, used as a learner breaks it: each example
// (QK-norm, the soft cap, the sinks) opened cold from a link, a field edited to another value of
// the same length, blanked or switched off, given a bad value, the chapter left and opened again.
// Every number the heatmap, the text and the panel show is checked against the engine run in node
// on the same spec; axe, and screenshots at 1280 px (light) and 375 px (dark). StreamingLLM's sink
// tokens too, which the KV cache and Masks chapters take.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { formatCell } from '../../web/model/format.js';
import {
  SHOTS,
  axeBuilder,
  goToHash,
  measuredRows,
  openPage,
  pagePerTest,
  resultTexts,
  useEnv,
  urlMatching,
  waitForStage,
} from './harness.mjs';

const env = useEnv();
let page;

pagePerTest(
  () => env,
  '#chapter=modern&preset=modern-softcap&stage=capped&head=1',
  (opened) => ({ page } = opened),
);

const stageOf = (trace, id, head = null) => trace.stages.find((s) => s.id === id && s.head === head);
const cellsOf = (stage) => Array.from(stage.values, formatCell);
const specOf = (id) => env.engine.presets().find((p) => p.id === id).spec;
const explanation = () => page.textContent('#explanation');

const COLD =
  'soft cap: the capped cells, κ and the largest logit in the text, and the per-head change, from the engine';
test(COLD, async () => {
  await waitForStage(page, 'capped', 1);
  const trace = env.engine.run({ preset: 'modern-softcap' });
  const capped = stageOf(trace, 'capped', 1);
  assert.deepEqual(await resultTexts(page), cellsOf(capped));
  const input = Array.from(stageOf(trace, 'scaled', 1).values, Math.abs);
  const at = input.indexOf(Math.max(...input));
  const text = await explanation();
  assert.ok(text.includes('here with \u03ba = 30:'), text);
  assert.ok(
    text.includes(
      `largest |S\u0303| is ${formatCell(input[at])}, capped to ${formatCell(Math.abs(capped.values[at]))}`,
    ),
    text,
  );
  assert.deepEqual(
    await measuredRows(page),
    Array.from(trace.config.softcapChange, (d, h) => [String(h), formatCell(d)]),
  );
  assert.match(await page.textContent('.chapter-panel'), /Gemma 2 \(2B, 9B, 27B\)/);
  await page.screenshot({ path: path.join(SHOTS, 'modern-softcap-1280.png'), fullPage: true });
  const serious = (await axeBuilder(page).analyze()).violations.filter((v) =>
    ['serious', 'critical'].includes(v.impact),
  );
  assert.deepEqual(
    serious.map((v) => v.id),
    [],
  );
  page.problems.length = 0; // axe's own <style> is a CSP violation of its own
});

test('soft cap: κ 30 → 20 (the same length) changes the cells, the text and the panel as the engine does', async () => {
  await waitForStage(page, 'capped', 1);
  await page.fill('#field-softcap', '20');
  await urlMatching(page, /softcap=20(&|$)/);
  const trace = env.engine.run({ ...specOf('modern-softcap'), softcap: 20 });
  await page.waitForFunction(() => document.querySelector('#explanation').textContent.includes('\u03ba = 20:'));
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(trace, 'capped', 1)));
  assert.deepEqual(
    await measuredRows(page),
    Array.from(trace.config.softcapChange, (d, h) => [String(h), formatCell(d)]),
  );
  // A κ that caps nothing is refused by the form, naming the field; the last good view stays.
  await page.fill('#field-softcap', '-1');
  await page.waitForSelector('#error-softcap:has-text("soft cap \u03ba must be a number above 0")');
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(trace, 'capped', 1)));
  // Blank: no cap. The stage leaves the walk and the panel says none of its changes is on.
  await page.fill('#field-softcap', '');
  await page.waitForFunction(() => !document.querySelector('#error-softcap')?.textContent);
  await page.waitForSelector('.chapter-panel:has-text("None of this chapter")');
  const plain = env.engine.run({ ...specOf('modern-softcap'), softcap: undefined });
  assert.equal(
    plain.stages.some((s) => s.id === 'capped'),
    false,
  );
  assert.match(await page.textContent('#stage-nav'), /Soft-capped logits \(off\)/);
});

test('soft cap: to another chapter and back, the example is its own again', async () => {
  await waitForStage(page, 'capped', 1);
  await page.click('.chapter-button[data-chapter="masks"]');
  await page.waitForFunction(() => document.body.dataset.chapter === 'masks');
  await page.click('.chapter-button[data-chapter="modern"]');
  await page.waitForFunction(() => document.body.dataset.chapter === 'modern');
  await goToHash(page, '#chapter=modern&preset=modern-softcap&stage=capped&head=3');
  await waitForStage(page, 'capped', 3);
  const trace = env.engine.run({ preset: 'modern-softcap' });
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(trace, 'capped', 3)));
});

test('soft cap on a phone, dark: the stage and the panel fit 375 px', async () => {
  const phone = await openPage(env, '#chapter=modern&preset=modern-softcap&stage=capped&head=1', {
    width: 375,
    height: 800,
    colorScheme: 'dark',
  });
  await waitForStage(phone.page, 'capped', 1);
  const sideways = await phone.page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  assert.equal(sideways, false, 'no sideways scroll');
  await phone.page.screenshot({ path: path.join(SHOTS, 'modern-softcap-375-dark.png'), fullPage: true });
  assert.deepEqual(phone.page.problems, []);
  await phone.context.close();
});

const SINKS =
  'sinks: the share cells, \u03b6 in the text and each head in the panel, from the engine; \u03b6 edited to another ' +
  'value of the same length changes them; a word, or one \u03b6 too few, is refused by name';
test(SINKS, async () => {
  await goToHash(page, '#chapter=modern&preset=modern-sinks&stage=sink&head=0');
  await waitForStage(page, 'sink', 0);
  const trace = env.engine.run({ preset: 'modern-sinks' });
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(trace, 'sink', 0)));
  assert.match(await explanation(), /of logit ζ = 2 and no value/);
  const rows = await measuredRows(page);
  assert.deepEqual(
    rows.map((r) => r.slice(0, 3)),
    trace.stages
      .filter((s) => s.id === 'sink')
      .map((s) => [String(s.head), String(trace.config.sinks[s.head]), formatCell(Math.max(...s.values))]),
  );
  await page.fill('#field-sinks', '3, 0, -1, 1');
  await urlMatching(page, /sinks=3/);
  const raised = env.engine.run({ ...specOf('modern-sinks'), sinks: [3, 0, -1, 1] });
  await page.waitForFunction(() => document.querySelector('#explanation').textContent.includes('\u03b6 = 3 '));
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(raised, 'sink', 0)));
  await page.fill('#field-sinks', '3, zero, -1, 1');
  await page.waitForSelector('#error-sinks:has-text("sink logits \u03b6 must be numbers separated by commas")');
  await page.fill('#field-sinks', '3, 0, -1');
  await page.waitForSelector('#error-sinks:has-text("3 logits for 4 query heads")');
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(raised, 'sink', 0)), 'the last good view stays');
});

const QK_NORM =
  'QK-norm: the normalised cells, the bound and the largest logits in the text and the panel, from the engine; ' +
  'a gain edited to another value of the same length changes them; a gain too few is refused by name; off, the ' +
  'stage leaves the walk';
test(QK_NORM, async () => {
  await goToHash(page, '#chapter=modern&preset=modern-qk-norm&stage=q_norm&head=1');
  await waitForStage(page, 'q_norm', 1);
  const trace = env.engine.run({ preset: 'modern-qk-norm' });
  const { qkNormBound, qkNormLargest, qkNormWithout } = trace.config;
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(trace, 'q_norm', 1)));
  const text = await explanation();
  assert.ok(text.includes(`the gain \u03bb^Q_a (all 1)`), text);
  assert.ok(text.includes(`divided as the scores are: ${formatCell(qkNormBound)} here`), text);
  assert.ok(
    text.includes(
      `largest |S\u0303| is ${formatCell(qkNormLargest[1])}; the same queries and keys unnormalised would give ` +
        `${formatCell(qkNormWithout[1])}`,
    ),
    text,
  );
  assert.ok(qkNormWithout[1] > 100 * qkNormLargest[1], 'weights × 3: unnormalised logits in the hundreds');
  assert.deepEqual(
    await measuredRows(page),
    Array.from(qkNormLargest, (d, h) => [
      String(h),
      formatCell(d),
      formatCell(qkNormWithout[h]),
      formatCell(qkNormBound),
    ]),
  );
  assert.match(await page.textContent('.chapter-panel'), /Qwen3/);
  await page.screenshot({ path: path.join(SHOTS, 'modern-qk-norm-1280.png'), fullPage: true });

  await page.fill('#field-qNormGain', '2, 1, 1, 1');
  await urlMatching(page, /qNormGain=2/);
  const gained = env.engine.run({ ...specOf('modern-qk-norm'), qNormGain: [2, 1, 1, 1] });
  await page.waitForFunction(() => document.querySelector('#explanation').textContent.includes('(2, 1, 1, 1)'));
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(gained, 'q_norm', 1)));
  assert.ok((await explanation()).includes(`${formatCell(gained.config.qkNormBound)} here`));
  assert.equal(gained.config.qkNormBound, 2 * qkNormBound);

  await page.fill('#field-qNormGain', '2, 1, 1');
  await page.waitForSelector('#error-qNormGain:has-text("3 gains for d_k = 4 columns")');
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(gained, 'q_norm', 1)), 'the last good view stays');
  await page.fill('#field-qNormGain', '');
  await page.waitForFunction(() => !document.querySelector('#error-qNormGain')?.textContent);

  await page.uncheck('#field-qkNorm');
  await page.waitForSelector('#stage-nav :text("Queries normalised (QK-norm) (off)")');
  const plain = env.engine.run({ ...specOf('modern-qk-norm'), qkNorm: undefined });
  assert.equal(
    plain.stages.some((s) => s.id === 'q_norm' || s.id === 'k_norm'),
    false,
  );
});

test('QK-norm on a phone, dark: the normalised stage and the panel fit 375 px', async () => {
  const phone = await openPage(env, '#chapter=modern&preset=modern-qk-norm&stage=k_norm&head=0', {
    width: 375,
    height: 800,
    colorScheme: 'dark',
  });
  await waitForStage(phone.page, 'k_norm', 0);
  const trace = env.engine.run({ preset: 'modern-qk-norm' });
  assert.deepEqual(await resultTexts(phone.page), cellsOf(stageOf(trace, 'k_norm', 0)));
  const sideways = await phone.page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  assert.equal(sideways, false, 'no sideways scroll');
  await phone.page.screenshot({ path: path.join(SHOTS, 'modern-qk-norm-375-dark.png'), fullPage: true });
  assert.deepEqual(phone.page.problems, []);
  await phone.context.close();
});

const STREAMING =
  'sink tokens: the streaming cache cold from a link, its text from the engine\u2019s slots; 4 \u2192 3 sink ' +
  'tokens changes it; as many as the window is refused by name; in Masks, the gap\u2019s weights are 0';
test(STREAMING, async () => {
  await goToHash(page, '#chapter=kv-cache&preset=kv-cache-streaming&stage=k_cache&head=0&step=8');
  await waitForStage(page, 'k_cache', 0);
  const trace = env.engine.run({ preset: 'kv-cache-streaming' });
  const cache = (t, at) => t.stages.find((s) => s.id === 'k_cache' && s.head === 0 && s.step === at);
  assert.deepEqual(await resultTexts(page), cellsOf(cache(trace, 8)));
  const held = trace.config.slotTokens[7][trace.config.cacheSlots[8]];
  assert.ok(
    (await explanation()).includes(`overwrites slot ${trace.config.cacheSlots[8]}, which held token ${held}\u2019s`),
  );
  await page.screenshot({ path: path.join(SHOTS, 'kv-cache-streaming-1280.png'), fullPage: true });

  await page.fill('#field-sinkTokens', '3');
  await urlMatching(page, /sinkTokens=3(&|$)/);
  const three = env.engine.run({ ...specOf('kv-cache-streaming'), sinkTokens: 3 });
  await page.waitForFunction(() => document.querySelector('#explanation').textContent.includes('the first 3 pinned'));
  assert.deepEqual(await resultTexts(page), cellsOf(cache(three, 8)));
  const replaced = three.config.slotTokens[7][three.config.cacheSlots[8]];
  assert.ok((await explanation()).includes(`which held token ${replaced}\u2019s`));

  await page.fill('#field-sinkTokens', '6');
  await page.waitForSelector('#error-sinkTokens:has-text("leaves window 6 no latest key")');
  assert.deepEqual(await resultTexts(page), cellsOf(cache(three, 8)), 'the last good view stays');

  await goToHash(page, '#chapter=masks&preset=masks-window&stage=masked&head=0');
  await waitForStage(page, 'masked', 0);
  await page.fill('#field-window', '4');
  await page.fill('#field-sinkTokens', '1');
  await urlMatching(page, /sinkTokens=1(&|$)/);
  await page.waitForFunction(() => /sink-token/i.test(document.querySelector('h2').textContent));
  const masked = env.engine.run({ ...specOf('masks-window'), window: 4, sinkTokens: 1 });
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(masked, 'masked', 0)));
  assert.match(await page.textContent('h2'), /Causal, sliding-window and sink-token mask/i);
  const weights = stageOf(masked, 'weights', 0);
  const [t] = weights.shape;
  assert.equal(weights.values[(t - 1) * t + 2], 0, 'the last query does not see key 2 (in the gap)');
  assert.ok(weights.values[(t - 1) * t] > 0, 'it sees key 0, the sink');
});
