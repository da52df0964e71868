// Repainting in place, in headless Chromium: a config change refills the heatmaps whose size
// stays (the same tables, the new trace's numbers exactly), a panel asked of the engine only
// when it is shown (each head pruned alone) shows the engine's numbers for the trace in view,
// and a large view's windows (its operands' too) refill from the next matrix and as they scroll.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatFull } from '../../web/model/format.js';
import { cellFulls, useEnv, pagePerTest, shownCells, urlMatching, waitForStage, goToHash } from './harness.mjs';

const env = useEnv();
let page;

const TOKENS = 'the quick brown fox jumps over the lazy dog and then the cat sat on a mat';
const BASE = { seed: 42, seqLen: 17, dModel: 64, numHeads: 4 };
const percent = (v) => `${(v * 100).toFixed(1)} %`;
const stageOf = (trace, id, head) => trace.stages.find((s) => s.id === id && s.head === head);

pagePerTest(
  () => env,
  `#chapter=attention&tokens=${encodeURIComponent(TOKENS)}&dModel=64&heads=4&stage=weights&head=1`,
  (opened) => ({ page } = opened),
);

// Every cell's full precision (td.shownCell.full) in the figure's result (or its first operand), row-major.
const fulls = (slot) => page.$$eval(`#figure .figure-slot${slot} td.hm-cell`, cellFulls);
const texts = (slot) => page.$$eval(`#figure .figure-slot${slot} td.hm-cell`, shownCells);

// Until the matrix's last cell (the last row: never masked) holds full.
async function waitForFull(slot, full) {
  await page.waitForFunction(
    ([s, t]) => [...document.querySelectorAll(`#figure .figure-slot${s} td.hm-cell`)].at(-1)?.shownCell?.full === t,
    [slot, full],
  );
}

const SEED_CAUSAL_EDITS_TITLE =
  'seed and causal edits refill the weights and their operand in place with the new trace\u2019s numbers';
test(SEED_CAUSAL_EDITS_TITLE, async () => {
  await waitForStage(page, 'weights', 1);
  await page.$$eval('#figure table.hm-grid', (tables) =>
    tables.forEach((t) => {
      t.dataset.kept = 'yes';
    }),
  );
  await page.$eval('#formula .formula-face', (f) => {
    f.dataset.first = 'shown';
  });
  const edits = [
    [() => page.fill('#field-seed', '7'), { ...BASE, seed: 7 }, 'scaled'],
    [() => page.check('#field-causal'), { ...BASE, seed: 7, causal: true }, 'masked'],
    [() => page.fill('#field-seed', '8'), { ...BASE, seed: 8, causal: true }, 'masked'],
    [() => page.uncheck('#field-causal'), { ...BASE, seed: 8 }, 'scaled'],
  ];
  for (const [edit, spec, operand] of edits) {
    await edit();
    const weights = stageOf(env.engine.run(spec), 'weights', 1);
    await waitForFull('.is-result', formatFull(weights.values.at(-1)));
    const what = JSON.stringify(spec);
    assert.deepEqual(await fulls('.is-result'), Array.from(weights.values, formatFull), `${what}: every weight`);
    const masked = await texts('.is-result');
    assert.equal(masked.filter((t) => t === '0').length, spec.causal ? (17 * 16) / 2 : 0, `${what}: the mask's zeros`);
    assert.deepEqual(
      await fulls(':not(.is-result)'),
      Array.from(weights.operands[0].values, formatFull),
      `${what}: every ${operand} logit`,
    );
    assert.equal(await page.getAttribute('#figure .figure-slot:not(.is-result) .hm', 'data-matrix'), operand);
    assert.equal(
      await page.$$eval('#figure table.hm-grid[data-kept]', (t) => t.length),
      2,
      `${what}: both tables refilled, not rebuilt`,
    );
  }
  await page.waitForFunction(() => /seed=8(&|$)/.test(window.location.hash) && !/causal=1/.test(window.location.hash));
  // The formula of the unmasked logits, shown at the start, is the one shown again: kept, not
  // typeset anew; the masked one is kept hidden beside it.
  const faces = await page.$$eval('#formula .formula-face', (f) =>
    f.map((x) => [x.dataset.first ?? '', x.classList.contains('is-kept'), getComputedStyle(x).contentVisibility]),
  );
  assert.deepEqual(faces, [
    ['shown', false, 'visible'],
    ['', true, 'hidden'],
  ]);
  assert.deepEqual(page.problems, []);
});

const STAGE_LIST_TITLE =
  'a causal switch turns the mask stage\u2019s item on or off in place and keeps the others; each selects its own';
test(STAGE_LIST_TITLE, async () => {
  await waitForStage(page, 'weights', 1);
  const items = () =>
    page.$$eval('.stage-list .stage-item', (b) => b.map((x) => [x.textContent, x.disabled, x.dataset.kept ?? null]));
  await page.$$eval('.stage-list .stage-item', (b) =>
    b.forEach((x) => {
      x.dataset.kept = x.textContent;
    }),
  );
  const before = await items();
  const at = before.findIndex(([label]) => label === 'Causal mask (off)');
  assert.deepEqual(
    before.slice(at - 1, at + 2).map(([label, disabled]) => [label, disabled]),
    [
      ['Scaled scores', false],
      ['Causal mask (off)', true],
      ['Attention weights', false],
    ],
    'without the mask, its stage is listed in its place and cannot be chosen',
  );
  const others = (list) => list.filter((_, i) => i !== at);
  await page.check('#field-causal');
  await page.waitForFunction(
    (i) => document.querySelectorAll('.stage-list .stage-item')[i].textContent === 'Causal mask',
    at,
  );
  const masked = await items();
  assert.equal(masked.length, before.length, 'as many items');
  assert.deepEqual(masked[at].slice(0, 2), ['Causal mask', false]);
  assert.deepEqual(others(masked), others(before), 'every other item is the same element, in order');
  await page.click(`.stage-list .stage-item >> nth=${at}`);
  await waitForStage(page, 'masked', 1);
  await page.click(`.stage-list .stage-item >> nth=${at + 1}`);
  await waitForStage(page, 'weights', 1);
  await page.uncheck('#field-causal');
  await page.waitForFunction((i) => document.querySelectorAll('.stage-list .stage-item')[i].disabled, at);
  const unmasked = await items();
  assert.deepEqual(unmasked[at].slice(0, 2), ['Causal mask (off)', true]);
  assert.deepEqual(others(unmasked), others(before), 'the others stay');
  await page.click(`.stage-list .stage-item >> nth=${at + 1}`);
  await waitForStage(page, 'weights', 1);
  assert.deepEqual(page.problems, []);
});

const STEADY_TITLE =
  'a causal switch moves nothing: the checkbox just clicked, the figure (a stage keeps its formula\u2019s height)';
test(STEADY_TITLE, async () => {
  await waitForStage(page, 'weights', 1);
  const tops = () =>
    page.evaluate(() => ({
      checkbox: document.getElementById('field-causal').getBoundingClientRect().top + window.scrollY,
      figure: document.getElementById('figure').getBoundingClientRect().top + window.scrollY,
      formula: document.querySelector('#formula .formula').getBoundingClientRect().height,
      tex: document.querySelector('#formula .formula').dataset.tex,
    }));
  const seen = [await tops()];
  for (const causal of [true, false, true]) {
    await page.setChecked('#field-causal', causal);
    await page.waitForFunction(
      (on) => document.body.dataset.ready === 'true' && /causal=1/.test(location.hash) === on,
      causal,
    );
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    seen.push(await tops());
  }
  const where = seen.map(({ checkbox, figure, formula }) => ({ checkbox, figure, formula }));
  for (const t of where) assert.equal(t.checkbox, where[0].checkbox, `the checkbox stays: ${JSON.stringify(where)}`);
  // The first switch may grow the formula's area (to the taller face); from then on nothing moves.
  for (const t of where.slice(2)) assert.deepEqual(t, where[1], `the figure stays: ${JSON.stringify(where)}`);
  assert.notEqual(seen[1].tex, seen[2].tex, 'the formula changes with the mask');
  const held = () => page.$eval('#formula .formula', (f) => f.style.minHeight);
  assert.match(await held(), /^[\d.]+px$/, 'held within the stage');
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.waitForFunction(() => document.querySelector('#formula .formula').style.minHeight === '');
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.click('.step-next');
  await waitForStage(page, 'head', 1);
  assert.equal(await page.$eval('#formula .formula', (f) => f.style.minHeight), '', 'another stage: its own height');
  await page.click('.step-prev');
  await waitForStage(page, 'weights', 1);
  await page.uncheck('#field-causal');
  await page.waitForFunction(() => !/causal=1/.test(window.location.hash));
  assert.deepEqual(page.problems, []);
});

const NO_WO_TITLE =
  'W_O off: the heads\u2019 concat is the last stage, the engine\u2019s output; its place stays listed, the form stays';
test(NO_WO_TITLE, async () => {
  await waitForStage(page, 'weights', 1);
  const where = () => page.$eval('#field-outputProjection', (e) => e.getBoundingClientRect().top + window.scrollY);
  const combine = () =>
    page.$$eval('.stage-group.group-combine .stage-item', (b) => b.map((x) => [x.textContent, x.disabled]));
  const before = await where();
  assert.deepEqual(await combine(), [
    ['All heads side by side', false],
    ['Concatenate heads', false],
    ['Output projection', false],
  ]);
  await page.uncheck('#field-outputProjection');
  await page.waitForFunction(() => /wo=0/.test(window.location.hash));
  assert.deepEqual(await combine(), [
    ['All heads side by side', false],
    ['Concatenate heads', false],
    ['Output projection (off)', true],
  ]);
  assert.equal(await where(), before, 'the checkbox stays where it was clicked');
  await page.click('.stage-group.group-combine .stage-item >> nth=1');
  await waitForStage(page, 'concat', null);
  const seed = Number(await page.inputValue('#field-seed'));
  const concat = stageOf(env.engine.run({ ...BASE, seed, outputProjection: false }), 'concat', null);
  assert.equal(concat.shape.join(','), '17,64');
  await waitForFull('.is-result', formatFull(concat.values.at(-1)));
  assert.deepEqual(await fulls('.is-result'), Array.from(concat.values, formatFull), 'the concat, the output');
  assert.match(await page.textContent('#explanation'), /Without W_O it is the layer\u2019s output/);
  await page.check('#field-outputProjection');
  await page.waitForFunction(() => !/wo=0/.test(window.location.hash));
  await goToHash(
    page,
    `#chapter=attention&tokens=${encodeURIComponent(TOKENS)}&dModel=64&heads=4&stage=weights&head=1`,
  );
  await waitForStage(page, 'weights', 1);
  assert.deepEqual(page.problems, []);
});

test('the URL follows a burst of edits once, when the edits pause', async () => {
  await urlMatching(page, /seed=42(&|$)/); // the last test's link, written out in full
  const written = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const hashes = [];
        const replace = history.replaceState;
        history.replaceState = function (...args) {
          hashes.push(args[2]);
          return replace.apply(this, args);
        };
        const field = document.getElementById('field-seed');
        for (const seed of ['21', '22', '23']) {
          field.value = seed;
          field.dispatchEvent(new Event('input', { bubbles: true }));
        }
        const during = location.hash;
        // The edits' traces compute in the worker, and the page writes once they have paused
        // (main.js): once the first write (or 5 s), two frames and a task for any other.
        const settle = () =>
          requestAnimationFrame(() =>
            requestAnimationFrame(() =>
              setTimeout(() => {
                history.replaceState = replace;
                resolve({ during, hashes });
              }, 0),
            ),
          );
        const giveUp = performance.now() + 5000;
        const wait = () => (hashes.length || performance.now() > giveUp ? settle() : requestAnimationFrame(wait));
        wait();
      }),
  );
  assert.doesNotMatch(written.during, /seed=2[123](&|$)/, 'not written while the edits are handled');
  assert.equal(written.hashes.length, 1, `one write: ${written.hashes.join(' | ')}`);
  assert.match(written.hashes[0], /seed=23(&|$)/, 'the last edit');
  assert.deepEqual(page.problems, []);
});

test('a new hash set while an edit waits to be written wins: the page shows it and the URL keeps it', async () => {
  const tokens = encodeURIComponent(TOKENS);
  const target = `#chapter=attention&tokens=${tokens}&dModel=64&heads=4&seed=44&stage=weights&head=1`;
  await page.evaluate((hash) => {
    const field = document.getElementById('field-seed');
    field.value = '31';
    field.dispatchEvent(new Event('input', { bubbles: true }));
    // After the page's own frame callback: its write is queued as a task, and the hashchange
    // is queued behind it.
    requestAnimationFrame(() => {
      location.hash = hash;
    });
  }, target);
  await page.waitForFunction(() => document.getElementById('field-seed').value === '44', null, { timeout: 5000 });
  await page.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r)))),
  );
  assert.match(page.url(), /seed=44(&|$)/);
  assert.equal(await page.inputValue('#field-seed'), '44');
  assert.deepEqual(page.problems, []);
});

test('each head pruned alone is asked for when its panel is shown, for the trace in view', async () => {
  await page.fill('#field-seed', '9');
  await waitForFull(
    '.is-result',
    formatFull(stageOf(env.engine.run({ ...BASE, seed: 9 }), 'weights', 1).values.at(-1)),
  );
  assert.equal(await page.$('.prune-bar'), null, 'no pruning panel at the weights');
  await page.click('.stage-item:has-text("Output projection")');
  await waitForStage(page, 'output');
  const alone = env.engine.pruneEach({ ...BASE, seed: 9 });
  assert.deepEqual(
    await page.$$eval('.prune-value', (v) => v.map((x) => x.textContent)),
    alone.map((a) => percent(a.change)),
  );
  await page.fill('#field-seed', '10');
  const again = env.engine.pruneEach({ ...BASE, seed: 10 });
  await page.waitForFunction(
    (t) => document.querySelector('.prune-value')?.textContent === t,
    percent(again[0].change),
  );
  assert.deepEqual(
    await page.$$eval('.prune-value', (v) => v.map((x) => x.textContent)),
    again.map((a) => percent(a.change)),
  );
  assert.deepEqual(page.problems, []);
});

// Until the result window's first cell (row 0, column 0 before any scroll) holds full.
async function waitForFirstCell(full) {
  await page.waitForFunction(
    (t) => document.querySelector('#figure .is-result td.hm-cell')?.shownCell?.full === t,
    full,
  );
}

// The cells a window shows (the result's, or a slot's), each with its place and full precision.
const windowCells = (slot = '.is-result') =>
  page.$$eval(`#figure ${slot} td.hm-cell`, (tds) =>
    tds.map((td) => [Number(td.dataset.r), Number(td.dataset.c), td.shownCell.full]),
  );

function assertWindow(cells, stage, what) {
  const cols = stage.shape[1];
  assert.ok(cells.length > 20 && cells.length < 2000, `${what}: a window of ${cells.length} cells`);
  for (const [r, c, full] of cells)
    assert.equal(full, formatFull(stage.values[r * cols + c]), `${what}: cell (${r}, ${c})`);
}

const LARGE_VIEW_WINDOWS_TITLE =
  'T = 512: Next refills the windows, the operands\u2019 too, from the next matrix; scrolling refills from the same';
test(LARGE_VIEW_WINDOWS_TITLE, async () => {
  const tokens = Array.from({ length: 512 }, (_, i) => `t${i}`).join('+');
  await goToHash(page, `#chapter=attention&tokens=${tokens}&dModel=64&heads=4&seed=42&stage=q&head=0`);
  await waitForStage(page, 'q', 0);
  const trace = env.engine.run({ seed: 42, seqLen: 512, dModel: 64, numHeads: 4 });
  const [q, k] = [stageOf(trace, 'q', 0), stageOf(trace, 'k', 0)];
  await waitForFirstCell(formatFull(q.values[0]));
  assertWindow(await windowCells(), q, 'Q');
  await page.$$eval('#figure table.hm-grid', (tables) =>
    tables.forEach((t) => {
      t.dataset.kept = 'yes';
    }),
  );
  await page.click('.step-next');
  await waitForStage(page, 'k', 0);
  await waitForFirstCell(formatFull(k.values[0]));
  assertWindow(await windowCells(), k, 'K');
  const wk = { values: k.operands[1].values, shape: k.operands[1].shape };
  assertWindow(
    await windowCells('.figure-slot:not(.is-result) .hm[data-matrix="W_K"]'),
    wk,
    'W_K (64 × 16: a window too in a large view)',
  );
  assert.equal(
    await page.$$eval('#figure table.hm-grid.is-windowed[data-kept]', (t) => t.length),
    3,
    'X, W_K and K refilled, not rebuilt',
  );
  assert.match(await page.getAttribute('#figure .is-result .hm-grid', 'aria-label'), /^K \(head 0\), 512 by 16/);
  const shown = await page.$$eval('#figure .is-result tbody tr:first-child td.hm-cell', (tds) => tds.length);
  assert.ok(
    shown >= 12,
    `the window takes the figure's width (1280 px: 14 of K's 16 columns), not its caption's: ${shown}`,
  );
  // Far (the whole window refilled), then by a few rows and columns either way (the rows and
  // columns still in view kept, the others moved over and refilled): every cell and label right.
  for (const [top, left] of [
    [300, 0],
    [302, 0],
    [303, 1],
    [301, 2],
    [299, 1],
    [306, 0],
    [0, 0],
  ]) {
    await page.$eval(
      '#figure .is-result .hm-scroll',
      (el, [t, l]) => {
        el.scrollTop = t * 24;
        el.scrollLeft = l * 58;
      },
      [top, left],
    );
    await page.waitForFunction(
      ([t, l]) => {
        const first = document.querySelector('#figure .is-result td.hm-cell');
        return first.dataset.r === String(t) && first.dataset.c === String(l);
      },
      [top, left],
    );
    const what = `K scrolled to row ${top}, column ${left}`;
    assertWindow(await windowCells(), k, what);
    const labels = await page.$$eval('#figure .is-result .hm-grid', ([g]) => ({
      rows: [...g.querySelectorAll('th.hm-row')].map((th) => [
        Number(th.dataset.r),
        th.textContent,
        th.parentElement.getAttribute('aria-rowindex'),
      ]),
      cols: [...g.querySelectorAll('th.hm-col')].map((th) => [Number(th.dataset.c), th.textContent]),
      order: [...g.querySelectorAll('tbody tr')].map((tr) =>
        [...tr.querySelectorAll('td.hm-cell')].map((td) => `${td.dataset.r},${td.dataset.c}`).join(' '),
      ),
    }));
    labels.rows.forEach(([r, text, index], i) =>
      assert.deepEqual([r, text, index], [top + i, `t${top + i}`, String(top + i + 2)], `${what}: row label ${i}`),
    );
    labels.cols.forEach(([c, text], j) =>
      assert.deepEqual([c, text], [left + j, String(left + j)], `${what}: column label ${j}`),
    );
    labels.order.forEach((row, i) =>
      assert.equal(row.split(' ')[0], `${top + i},${left}`, `${what}: row ${i} in order`),
    );
  }
  assert.deepEqual(page.problems, []);
});
