// The chapters in headless Chromium: each walked by keyboard with the engine's numbers, the
// chapter tabs and URL, and what each chapter adds (two sequences, head groups and K/V sizes,
// real models, the encoder layer), every number checked against the engine run in node.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { THEMES } from '../../web/theme.js';
import { formatCell, formatFull } from '../../web/model/format.js';
import {
  cellBands,
  openPage,
  rgbOf,
  useEnv,
  pagePerTest,
  waitForStage,
  goToHash,
  resultTexts,
  shownCells,
  shownEquation,
  urlMatching,
  weightTexts,
} from './harness.mjs';

const env = useEnv();
let page;

pagePerTest(
  () => env,
  '#chapter=attention',
  (opened) => ({ page } = opened),
);

const rowLabels = (p) => p.$$eval('#figure .is-result th.hm-row', (t) => t.map((x) => x.textContent));
const colLabels = (p) => p.$$eval('#figure .is-result th.hm-col', (t) => t.map((x) => x.textContent));

async function waitForChapter(p, chapter) {
  await p.waitForSelector(`body[data-chapter="${chapter}"]`);
}

// Walks a preset from its first stage with \u2192 only until Next stops, checking that each stage
// shown is the engine's (its equation, cells, formula and text) and none comes twice. → the
// stages shown, as "id head @step", and the counter at the last one.
async function walkByKeyboard(preset) {
  const trace = env.engine.run({ preset: preset.id });
  await goToHash(page, `#chapter=${preset.chapter}&preset=${preset.id}&stage=${trace.stages[0].id}`);
  await waitForStage(page, trace.stages[0].id, trace.stages[0].head);
  await page.click('h2#stage-title');
  const shown = [];
  for (;;) {
    const { stage: id, head, step } = await page.evaluate(() => ({ ...document.body.dataset }));
    const at = (s) => s.id === id && String(s.head ?? '') === head && String(s.step ?? '') === step;
    const name = `${id} ${head} @${step}`;
    assert.ok(!shown.includes(name), `${preset.id}: ${name} twice`);
    shown.push(name);
    if (id === 'all_heads') {
      const weights = trace.stages.filter((s) => s.id === 'weights' && String(s.step ?? '') === step);
      const cells = await page.$$eval('#figure td.hm-cell', shownCells);
      assert.deepEqual(cells, weights.flatMap(weightTexts), `${preset.id} ${name}: every head\u2019s weights`);
    } else {
      const stage = trace.stages.find(at);
      assert.equal(await shownEquation(page), stage.equation, `${preset.id} ${name}: equation`);
      const texts = await resultTexts(page);
      assert.deepEqual(texts, Array.from(stage.values, formatCell), `${preset.id} ${name}: cells`);
    }
    assert.ok(await page.$('#formula .formula-face:not(.is-kept) .katex'), `${name}: formula typeset`);
    assert.ok((await page.textContent('.explanation')).length > 40, `${name}: explained`);
    const text = await page.textContent('.step-text');
    // The last stage: Next offers the next chapter (or, the last chapter's, is disabled).
    const end = await page.$eval('.step-next', (b) => b.disabled || b.textContent.startsWith('Next chapter'));
    if (end) return { shown, last: text };
    const was = JSON.stringify({ id, head, step });
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((w) => {
      const { stage, head: h, step: t } = document.body.dataset;
      return JSON.stringify({ id: stage, head: h, step: t }) !== w;
    }, was);
  }
}

test('each chapter\u2019s first example by keyboard: one head through, each stage the engine\u2019s', async () => {
  const firsts = ['attention', 'cross', 'gqa', 'encoder-layer', 'kv-cache', 'flash', 'designed-heads'].map((c) =>
    env.engine.presets().find((p) => p.chapter === c),
  );
  const walks = {};
  for (const preset of firsts) {
    const { shown, last } = await walkByKeyboard(preset);
    walks[preset.id] = [shown.length, last];
  }
  // Stages Next shows (the counter at the last): one head's, all heads side by side, the rest; a
  // decode step or tile counts its own stages, and Next goes on to the next one.
  assert.deepEqual(walks, {
    'lesson-multi-head': [11, 'Stage 11 of 11'],
    'cross-translation': [12, 'Stage 12 of 12'],
    'gqa-4-2': [11, 'Stage 11 of 11'],
    'encoder-layer': [18, 'Stage 18 of 18'],
    'kv-cache-gqa': [5 * 13 + 2, 'Stage 15 of 15'],
    'flash-causal': [33, 'Stage 11 of 11'],
    'designed-heads': [11, 'Stage 11 of 11'],
  });
  assert.deepEqual(page.problems, []);
});

test('chapter tabs switch the chapter, its first example and its form; the URL follows', async () => {
  await goToHash(page, '#chapter=attention&preset=lesson-multi-head&stage=x');
  await waitForStage(page, 'x');
  const own = {
    cross: ['#field-keyTokens'],
    gqa: ['#field-kvHeads'],
    'encoder-layer': ['#field-dFF'],
    'kv-cache': ['#field-kvHeads'],
    flash: ['#field-blockRows'],
    'designed-heads': [],
    attention: [],
  };
  for (const [chapter, first] of [
    ['cross', 'x_q'],
    ['gqa', 'x'],
    ['encoder-layer', 'x'],
    ['kv-cache', 'x_t'],
    ['flash', 'x'],
    ['designed-heads', 'x'],
    ['attention', 'x'],
  ]) {
    await page.click(`.chapter-button[data-chapter="${chapter}"]`);
    await waitForChapter(page, chapter);
    await waitForStage(page, first);
    await urlMatching(page, new RegExp(`chapter=${chapter}&`));
    assert.equal(await page.getAttribute(`.chapter-button[data-chapter="${chapter}"]`, 'aria-pressed'), 'true');
    for (const f of ['#field-keyTokens', '#field-kvHeads', '#field-dFF', '#field-blockRows'])
      assert.equal(Boolean(await page.$(f)), own[chapter].includes(f), `${chapter}: ${f}`);
  }
});

test('cross-attention: queries from one sequence, keys from another, a rectangular weight matrix', async () => {
  await goToHash(page, '#chapter=cross&preset=cross-translation&stage=weights&head=1');
  await waitForStage(page, 'weights', 1);
  assert.deepEqual(await page.$$eval('.chips.queries .chip', (c) => c.map((x) => x.textContent)), ['le', 'chat']);
  assert.deepEqual(await page.$$eval('.chips.keys .chip', (c) => c.map((x) => x.textContent)), ['the', 'cat', 'sat']);
  assert.deepEqual(await rowLabels(page), ['le', 'chat']);
  assert.deepEqual(await colLabels(page), ['the', 'cat', 'sat']);
  assert.equal(await shownEquation(page), 'softmax(2, 3) → (2, 3)');
  const steps = await page.$$eval('.stage-item', (b) => b.map((x) => x.textContent));
  assert.ok(!steps.some((t) => /mask/i.test(t)), 'no mask in cross-attention without padding');
  await page.click('.step-prev');
  await page.click('.step-prev');
  await waitForStage(page, 'scores', 1);
  assert.deepEqual(
    await page.$$eval('#figure .figure-slot:not(.is-result) .hm', (h) => h.map((x) => x.dataset.matrix)),
    ['Q', 'K'],
  );
});

test('cross-attention with padding: −∞ in the padded column, weight exactly 0, rows still sum to 1', async () => {
  await goToHash(page, '#chapter=cross&preset=cross-padding&stage=masked&head=0');
  await waitForStage(page, 'masked', 0);
  assert.deepEqual(await page.$$eval('.chips.keys .chip.is-padding', (c) => c.map((x) => x.textContent)), ['<pad>']);
  const columns = await page.$$eval('#figure .is-result td.hm-cell', (tds) => tds.map((td) => +td.dataset.c));
  const shown = await page.$$eval('#figure .is-result td.hm-cell', shownCells);
  const bands = await page.$$eval('#figure .is-result td.hm-cell', cellBands);
  columns.forEach((c, i) => {
    assert.equal(shown[i] === '\u2212\u221e', c === 3, `column ${c}: ${shown[i]}`);
    assert.equal(bands[i] === 'transparent', c === 3, `column ${c} is hatched, the others filled: ${bands[i]}`);
  });
  assert.ok(await page.$('#figure .hm[data-matrix="M"]'), 'the mask M itself is drawn');
  await page.click('.step-next');
  await waitForStage(page, 'weights', 0);
  const weights = env.engine.run({ preset: 'cross-padding' }).stages.find((s) => s.id === 'weights' && s.head === 0);
  assert.deepEqual(
    Array.from(weights.values).filter((_, i) => i % 4 === 3),
    [0, 0],
  );
  assert.deepEqual(
    await page.$$eval('#figure .is-result td.hm-total', (t) => t.map((x) => x.textContent)),
    Array.from(weights.totals, (v) => `\u03a3 = ${formatCell(v)}`),
  );
  const zeroed = await page.$$eval('#figure .is-result td.hm-cell', cellBands);
  assert.equal(zeroed.filter((b) => b === rgbOf(THEMES.light.zeroBg)).length, 2);
});

const GQA_TITLE =
  'grouped-query: the groups in head colours, the engine\u2019s ' +
  'K/V sizes beside MHA\u2019s, K and V once per K/V head';
test(GQA_TITLE, async () => {
  await goToHash(page, '#chapter=gqa&preset=gqa-4-2&stage=scores&head=3');
  await waitForStage(page, 'scores', 3);
  const config = env.engine.run({ preset: 'gqa-4-2' }).config;
  assert.deepEqual(
    await page.$$eval('.kv-group', (g) =>
      g.map((x) => [...x.querySelectorAll('.head-button')].map((b) => b.textContent)),
    ),
    [
      ['Q0', 'Q1'],
      ['Q2', 'Q3'],
    ],
  );
  assert.equal(await page.$eval('.kv-group .head-button[aria-pressed="true"]', (b) => b.textContent), 'Q3');
  const sizes = await page.$$eval('.kv-sizes tbody tr', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)),
  );
  assert.deepEqual(sizes, [
    [String(config.kv.params), String(config.kv.paramsMha)],
    [String(config.kv.cacheValues), String(config.kv.cacheValuesMha)],
  ]);
  assert.match(await page.textContent('.chapter-panel'), /grouped-query \(GQA\): 2× smaller K\/V/);
  assert.match(await page.textContent('#figure .hm[data-matrix="K"] .hm-name'), /Kᵀ of K\/V head 1/);
  await page.click('.stage-item:has-text("Keys K")');
  await waitForStage(page, 'k', 2);
  assert.match(await page.textContent('.stage-head-badge'), /K\/V head 1 \(heads 2–3\)/);
  await goToHash(page, '#chapter=gqa&preset=mqa-4-1&stage=x');
  await waitForStage(page, 'x');
  assert.match(await page.textContent('.chapter-panel'), /multi-query \(MQA\)/);
  const trace = env.engine.run({ preset: 'mqa-4-1' });
  assert.equal(await page.$$eval('.stage-item', (b) => b.filter((x) => x.textContent.startsWith('Keys K')).length), 1);
  assert.equal(trace.stages.filter((s) => s.id === 'k').length, 1);
});

test('real models: loading LLaMA 3 (8B) keeps 4 query heads per K/V head and says what was scaled', async () => {
  await goToHash(page, '#chapter=gqa&preset=gqa-4-2&stage=weights&head=0');
  await waitForStage(page, 'weights', 0);
  await page.click('.real-models summary');
  await page.click('.model-load[aria-label="Load the head geometry of LLaMA 3 (8B)"]');
  await page.waitForSelector('.model-note');
  assert.equal(await page.inputValue('#field-heads'), '16');
  assert.equal(await page.inputValue('#field-kvHeads'), '4');
  assert.ok(await page.isChecked('#field-causal'), 'a decoder model: causal');
  assert.match(await page.textContent('.gqa-quality'), /Ainslie et al\. \(2023\)/);
  assert.match(
    await page.textContent('.model-note'),
    new RegExp(
      String.raw`LLaMA 3 \(8B\) has 32 query heads and 8 K\/V heads of d_k = 128.*` +
        String.raw`Shown: 16 query heads and 4 K\/V heads \(the same 4 query heads per K\/V head\)`,
    ),
  );
  assert.deepEqual(
    await page.$$eval('.models-table tbody tr:has-text("LLaMA 3 (8B)") td', (t) =>
      t.slice(0, 5).map((x) => x.textContent),
    ),
    ['4,096', '32', '128', '32', '8'],
  );
  assert.match(await page.textContent('.models-footnote'), /GPT-2 \(124M\) is the GPT-2 \(117M\) of many tables/);
  assert.equal(await page.$$eval('.kv-group', (g) => g.length), 4);
  await urlMatching(page, /heads=16&kvHeads=4/);
});

test('encoder layer: the part in progress is marked; the FFN widens to d_ff and back', async () => {
  await goToHash(page, '#chapter=encoder-layer&preset=encoder-layer&stage=ffn_pre');
  await waitForStage(page, 'ffn_pre');
  assert.equal(await page.textContent('.layer-part.is-current'), 'Feed-forward');
  assert.match(await page.textContent('.chapter-panel'), /d_model = 16 to d_ff = 64 features and back to 16/);
  assert.deepEqual(
    await page.$$eval('#figure .figure-slot:not(.is-result) .hm', (h) => h.map((x) => x.dataset.matrix)),
    ['norm1', 'W1', 'b1'],
  );
  assert.equal(await shownEquation(page), '(5, 16) @ (16, 64) + (64) → (5, 64)');
  await page.keyboard.press('End');
  await waitForStage(page, 'norm2');
  assert.equal(await page.textContent('.layer-part.is-current'), 'Add & norm');
  assert.match(await page.textContent('.explanation'), /√\(variance \+ ε\)/);
});

// Opens the explain panel on a cell and returns what it shows with the engine's answer (for the
// decode step or tile the hash's t= asks for).
async function explainAt(hash, stage, head, row, col, spec) {
  await goToHash(page, hash);
  const t = /[&#](?:step|t)=(\d+)/.exec(hash)?.[1] ?? ''; // step, or an old link's t
  await page.waitForFunction(
    ([id, h, step]) =>
      document.body.dataset.stage === id && document.body.dataset.head === h && document.body.dataset.step === step,
    [stage, head === null ? '' : String(head), t],
  );
  await page.click(`#figure .is-result td.hm-cell[data-r="${row}"][data-c="${col}"]`);
  await page.waitForSelector('.explain-panel:not([hidden]) .explain-filled .katex');
  const e = env.engine.explain(spec, { stage, head, step: t === '' ? null : Number(t), row, col });
  const value = await page.$eval('.explain-value', (p) => p.dataset.full);
  return { e, value, filled: await page.$eval('.explain-filled', (f) => f.dataset.tex) };
}

test('explain a number in every chapter: the engine\u2019s parts, and they give the cell', async () => {
  const cross = await explainAt('#chapter=cross&preset=cross-padding&stage=weights&head=1', 'weights', 1, 1, 3, {
    preset: 'cross-padding',
  });
  assert.equal(cross.value, formatFull(0));
  assert.match(cross.filled, /e\^\{-\\infty\} = 0/);
  const gqa = await explainAt('#chapter=gqa&preset=gqa-4-2&stage=scores&head=3', 'scores', 3, 4, 0, {
    preset: 'gqa-4-2',
  });
  assert.equal(gqa.value, formatFull(gqa.e.value));
  assert.equal(gqa.e.terms.length, 4, 'a dot product over d_k = 4');
  const norm = await explainAt('#chapter=encoder-layer&preset=encoder-layer&stage=norm1', 'norm1', null, 2, 5, {
    preset: 'encoder-layer',
  });
  assert.equal(norm.value, formatFull(norm.e.value));
  assert.ok(norm.filled.includes(formatCell(norm.e.norm.mean).replace('\u2212', '-')), 'the row mean is shown');
  assert.equal(await page.$$eval('.explain-panel .terms tbody tr', (r) => r.length), 16, 'every feature of the row');
  const ffn = await explainAt('#chapter=encoder-layer&preset=encoder-layer&stage=ffn_pre', 'ffn_pre', null, 0, 63, {
    preset: 'encoder-layer',
  });
  assert.ok(Math.abs(ffn.e.sum + ffn.e.bias - ffn.e.value) <= 1e-12, 'Σ terms + bias is the cell');
  assert.match(ffn.filled, /\+ \(?-?\d\.\d{3}\)? =/);
  assert.deepEqual(page.problems, []);
});

const SEED_42_TITLE =
  'the seed-42 presets say their X is numpy\u2019s draws; lesson-causal continues the seed-42 stream; ' +
  'the other presets say only how X was drawn';
test(SEED_42_TITLE, async () => {
  await goToHash(page, '#chapter=attention&preset=lesson-causal&stage=x');
  await waitForStage(page, 'x');
  await page.waitForFunction(() => document.querySelector('.shape-eq')?.dataset.equation === '(4, 8)');
  assert.match(
    await page.textContent('.explanation'),
    /without reseeding: X continues numpy\u2019s seed-42 stream after the 1104 numbers/,
  );
  const stream = env.engine.randn(42, 1, 1104 + 32);
  assert.deepEqual(
    await resultTexts(page),
    Array.from(stream.slice(1104), formatCell),
    'X is draws 1104 … 1135 of seed 42',
  );
  await goToHash(page, '#chapter=cross&preset=cross-translation&stage=x_q');
  await waitForStage(page, 'x_q');
  assert.doesNotMatch(await page.textContent('.explanation'), /very numbers|seed-42 stream/);
  await goToHash(page, '#chapter=attention&preset=lesson-multi-head&stage=x');
  await waitForStage(page, 'x');
  assert.match(await page.textContent('.explanation'), /very numbers numpy draws: np.random.seed\(42\)/);
});

const stepOf = (p) => p.evaluate(() => document.body.dataset.step);

const KV_CACHE_TIME_TITLE =
  'KV cache: ↑/↓ and the slider move through time at the same stage; the new row is lit; the URL keeps the step ' +
  '(an old link\u2019s t opens it)';
test(KV_CACHE_TIME_TITLE, async () => {
  const trace = env.engine.run({ preset: 'kv-cache-gqa' });
  await goToHash(page, '#chapter=kv-cache&preset=kv-cache-gqa&stage=k_cache&head=0&t=1');
  await waitForStage(page, 'k_cache', 0);
  assert.equal(await stepOf(page), '1');
  await page.click('h2#stage-title');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => document.body.dataset.step === '2');
  assert.equal(await page.evaluate(() => document.body.dataset.stage), 'k_cache', 'the same stage, one step later');
  const cache = trace.stages.find((s) => s.id === 'k_cache' && s.step === 2 && s.head === 0);
  assert.deepEqual(await resultTexts(page), Array.from(cache.values, formatCell));
  assert.deepEqual(
    await page.$$eval('#figure .is-result td.hl-row', (t) => [...new Set(t.map((x) => x.dataset.r))]),
    ['2'],
    'row t is the new one',
  );
  assert.deepEqual(await rowLabels(page), ['the', 'cat', 'sat'], 'cache rows are tokens 0 … t');
  await urlMatching(page, /stage=k_cache&head=0&step=2/);
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => document.body.dataset.step === '1');
  await page.fill('#time-range', '4');
  await page.waitForFunction(() => document.body.dataset.step === '4');
  assert.match(await page.textContent('.time-label'), /t = 4 \(steps 0–4\): token “mats”/);
  const c = trace.config;
  const macs = await page.$$eval('.macs-table tbody tr', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent.replace(/,/g, ''))),
  );
  assert.deepEqual(macs, [
    [String(c.macs.cached[4]), String(c.macs.recomputed[4])],
    [String(c.macs.cachedSoFar[4]), String(c.macs.recomputedSoFar[4])],
  ]);
  assert.match(await page.textContent('.chapter-panel'), new RegExp(`now holds ${c.cacheBytes[4]} bytes`));
  const out = trace.stages.find((s) => s.id === 'output' && s.step === 4).values;
  const reference = trace.stages.find((s) => s.id === 'causal_reference').values;
  const compare = await page.$$eval('.compare-table tbody tr', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)),
  );
  assert.deepEqual(compare[0], Array.from(out, formatCell), 'decode step 4, from its output stage');
  assert.deepEqual(compare[1], Array.from(reference.slice(4 * 16, 5 * 16), formatCell), 'row 4 of the causal pass');
  assert.deepEqual(page.problems, []);
});

const KV_CACHE_SIZE_TITLE =
  'KV cache size: every cell is the engine\u2019s kvCacheBytes; the all-heads formula overstates LLaMA 3';
test(KV_CACHE_SIZE_TITLE, async () => {
  await goToHash(page, '#chapter=kv-cache&preset=kv-cache-gqa&stage=x_t&step=0');
  await waitForStage(page, 'x_t');
  const row = (id) => page.$$eval(`.kv-calc-table tr[data-row="${id}"] td`, (t) => t.map((x) => x.textContent));
  const gib = (bytes) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
  const llama = { dHead: 128, numKvHeads: 8, numLayers: 32, bytesPerValue: 2 };
  const total = env.engine.kvCacheBytes({ ...llama, seqLen: 8192 });
  assert.equal(total, 2 * 8192 * 128 * 8 * 32 * 2, '1 GiB: 2 · 8192 · 128 · 8 · 32 · 2');
  assert.deepEqual(await row('llama3-8b'), ['8 of 32', '128.00 KiB', gib(total), gib(total * 4), '4× too big']);
  assert.deepEqual((await row('llama3-70b')).slice(-1), ['8× too big']);
  assert.deepEqual((await row('gpt3-175b')).slice(-1), ['exact']);
  // DeepSeek-V3's MLA cache: one latent row of 512 + 64 per token and layer, for all 128 heads.
  const v3 = env.engine.kvCacheBytes({ latentDims: 576, numLayers: 61, bytesPerValue: 2, seqLen: 8192 });
  const v3Mha = env.engine.kvCacheBytes({ dHead: 128, numKvHeads: 128, numLayers: 61, bytesPerValue: 2, seqLen: 8192 });
  assert.deepEqual(await row('deepseek-v3'), [
    'none: 1 latent for 128',
    '68.63 KiB',
    `${(v3 / 1024 ** 2).toFixed(2)} MiB`,
    gib(v3Mha),
    '56.9\u00d7 too big',
  ]);
  // GPT-3 holds at most its context window, 2048 tokens: sized there, and the row says so.
  const gpt3 = env.engine.models().find((m) => m.id === 'gpt3-175b');
  const gpt3Bytes = env.engine.kvCacheBytes({
    dHead: 128,
    numKvHeads: 96,
    numLayers: 96,
    bytesPerValue: 2,
    seqLen: gpt3.contextLength,
  });
  assert.equal((await row('gpt3-175b'))[2], `${gib(gpt3Bytes)} at 2,048 tokens, its context window (not 8,192)`);
  assert.equal(await page.getAttribute('.kv-calc-table tr[data-row="gpt3-175b"]', 'class'), 'is-capped');
  assert.equal(await page.getAttribute('.kv-calc-table tr[data-row="llama3-8b"]', 'class'), null);
  await page.selectOption('#calc-dtype', 'fp32');
  await page.fill('#calc-batch', '4');
  await page.press('#calc-batch', 'Enter');
  await page.waitForFunction(
    () => document.querySelector('.kv-calc-table tr[data-row="llama3-8b"] td:nth-child(4)')?.textContent === '8.00 GiB',
  );
  await page.fill('#calc-context', '0');
  await page.press('#calc-context', 'Enter');
  await page.waitForSelector('.kv-calc-table tr.is-error');
  assert.match(await page.textContent('.kv-calc-table tr[data-row="gpt2-124m"]'), /seqLen: 0 is out of range/);
  await page.fill('#calc-context', '8192');
  await page.press('#calc-context', 'Enter');
  await page.waitForFunction(() => !document.querySelector('.kv-calc-table tr.is-error'));
  const own = await row('chapter');
  const config = env.engine.run({ preset: 'kv-cache-gqa' }).config;
  assert.equal(own[2], `${config.cacheBytes.at(-1)} B`, 'the chapter\u2019s own cache, by the same function');
});

const FLASH_TILE_GRID_TITLE =
  'FlashAttention: the tile grid marks done, current, next and ' +
  'skipped tiles; memory and difference are the engine\u2019s';
test(FLASH_TILE_GRID_TITLE, async () => {
  const trace = env.engine.run({ preset: 'flash-causal' });
  await goToHash(page, '#chapter=flash&preset=flash-causal&stage=tile_sum&head=0&step=2');
  await waitForStage(page, 'tile_sum', 0);
  const tiles = await page.$$eval('.tile-grid .tile', (b) =>
    b.map((x) => [x.textContent, x.className.replace('tile is-', '')]),
  );
  assert.deepEqual(tiles, [
    ['0', 'done'],
    ['\u2013', 'skipped'],
    ['\u2013', 'skipped'],
    ['1', 'done'],
    ['2', 'current'],
    ['\u2013', 'skipped'],
    ['3', 'next'],
    ['4', 'next'],
    ['5', 'next'],
  ]);
  const floats = await page.$$eval('.floats-table tbody td', (t) => t.map((x) => x.textContent.replace(/,/g, '')));
  const f = trace.config.floats;
  assert.deepEqual(floats, [f.standard, f.exampleStandard, f.tiled, f.exampleTiled].map(String));
  assert.ok(trace.config.maxDifference <= 1e-12);
  await page.click('.tile-grid .tile:has-text("4")');
  await page.waitForFunction(() => document.body.dataset.step === '4');
  assert.equal(await page.evaluate(() => document.body.dataset.stage), 'tile_sum', 'the same stage, another tile');
  assert.deepEqual(await rowLabels(page), ['mats']);
  await page.keyboard.press('End');
  await waitForStage(page, 'reference');
  const reference = trace.stages.find((s) => s.id === 'reference').values;
  assert.deepEqual(await resultTexts(page), Array.from(reference, formatCell));
  assert.deepEqual(page.problems, []);
});

const EXPLAIN_KV_FLASH_TITLE =
  'explain a number in KV cache and FlashAttention: the step\u2019s own stage, and its parts give the cell';
test(EXPLAIN_KV_FLASH_TITLE, async () => {
  const kvHash = '#chapter=kv-cache&preset=kv-cache-gqa&stage=scores&head=3&step=3';
  const decode = await explainAt(kvHash, 'scores', 3, 0, 2, { preset: 'kv-cache-gqa' });
  // the step's one row is token t = 3, and the explain lines say so
  assert.match(await page.$eval('.explain-title', (h) => h.textContent), /\[3, 2\], head 3$/);
  assert.match(decode.filled, /^S_\{3,2\} =/);
  assert.equal(
    decode.value,
    formatFull(
      env.engine.explain({ preset: 'kv-cache-gqa' }, { stage: 'scores', head: 3, step: 3, row: 0, col: 2 }).value,
    ),
  );
  const e = env.engine.explain({ preset: 'flash-causal' }, { stage: 'tile_out', head: 0, step: 4, row: 0, col: 1 });
  await goToHash(page, '#chapter=flash&preset=flash-causal&stage=tile_out&head=0&step=4');
  await page.waitForFunction(() => document.body.dataset.stage === 'tile_out' && document.body.dataset.step === '4');
  await page.click('#figure .is-result td.hm-cell[data-r="0"][data-c="1"]');
  await page.waitForSelector('.explain-panel:not([hidden]) .explain-filled .katex');
  assert.equal(await page.$eval('.explain-value', (p) => p.dataset.full), formatFull(e.value));
  const tile = env.engine.run({ preset: 'flash-causal' }).stages.find((s) => s.id === 'tile_out' && s.step === 4).tile;
  const first = tile.queryRows[0]; // the tile's local row 0 is this query
  assert.match(await page.$eval('.explain-filled', (f) => f.dataset.tex), new RegExp(`^U_\\{${first},1\\}\\^`));
  assert.ok(Math.abs(e.alpha * e.previous + e.sum - e.value) <= 1e-12, 'α · Õ + Σ P·V is the cell');
  assert.deepEqual(page.problems, []);
});

// A lecturer's link: #chapters=… keeps those tabs, in that order, for the visit, and every link
// the page writes keeps them.
test('page: #chapters=masks,attention shows those tabs in that order, and the URL keeps them', async () => {
  const { page, context } = await openPage(env, '#chapters=masks,attention');
  assert.deepEqual(await page.$$eval('.chapter-button', (b) => b.map((x) => x.textContent)), [
    'Masks',
    'Self-attention',
  ]);
  assert.equal(await page.getAttribute('body', 'data-chapter'), 'masks');
  await page.click('.step-next');
  await page.waitForFunction(() => /chapters=masks%2Cattention/.test(window.location.hash));
  await page.click('.chapter-button[data-chapter="attention"]');
  await page.waitForFunction(() => document.body.dataset.chapter === 'attention');
  await page.waitForFunction(() => /^#chapters=masks%2Cattention&chapter=attention/.test(window.location.hash));
  assert.deepEqual(page.problems, []);
  await context.close();
});

test('page: #controls=locked shows the configuration, disabled, without chapter tabs; the link keeps it', async () => {
  const { page, context } = await openPage(env, '#controls=locked&preset=lesson-causal');
  assert.equal(await page.$$eval('.chapter-button', (b) => b.length), 0);
  assert.equal(await page.$eval('fieldset.controls-locked', (f) => f.disabled), true);
  await page.click('.step-next');
  await page.waitForFunction(() =>
    /^#controls=locked&chapter=attention&preset=lesson-causal/.test(window.location.hash),
  );
  assert.deepEqual(page.problems, []);
  await context.close();
});
