// The page in headless Chromium, under the CSP it ships with: stepping, keyboard, deep links,
// controls and "explain a number", every number checked against the engine run in node.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { THEMES } from '../../web/theme.js';
import { formatCell, formatFull } from '../../web/model/format.js';
import {
  CSP,
  ROOT,
  useEnv,
  openPage,
  pagePerTest,
  waitForStage,
  goToHash,
  resultTexts,
  resultFulls,
  cellBands,
  bandsWhen,
  rgbOf,
  shownCells,
  shownEquation,
  currentView,
  urlMatching,
} from './harness.mjs';

const env = useEnv();
let page;
let context;
const MULTI = { preset: 'lesson-multi-head' };

pagePerTest(
  () => env,
  '#preset=lesson-multi-head&stage=x',
  (opened) => ({ page, context } = opened),
);

const closeTo = (a, b, tol = 1e-12) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));

async function checkNumbers(stage) {
  const texts = await resultTexts(page);
  assert.equal(texts.length, stage.values.length, `${stage.id}/${stage.head}: cell count`);
  const n = stage.values.length;
  for (const i of [0, Math.floor(n / 2), n - 1]) {
    assert.equal(texts[i], formatCell(stage.values[i]), `${stage.id}/${stage.head}: cell ${i}`);
  }
  const fulls = await resultFulls(page);
  assert.equal(fulls[n - 1], formatFull(stage.values[n - 1]), `${stage.id}/${stage.head}: full precision`);
}

// Next follows one head's path (x, its seven stages, all heads, concat, output); each head is
// walked from its Q, picked by the hash, so that every traced stage is checked.
test('lesson multi-head: Next walks each head\u2019s path; equations and numbers are the engine\u2019s', async () => {
  const trace = env.engine.run(MULTI);
  const [x, concat, output] = ['x', 'concat', 'output'].map((id) => trace.stages.find((s) => s.id === id));
  for (const head of [0, 1, 2, 3]) {
    const own = trace.stages.filter((s) => s.head === head);
    const walk = head === 0 ? [x, ...own, null, concat, output] : own; // null: all heads side by side
    await goToHash(page, `#preset=lesson-multi-head&stage=${walk[0].id}&head=${head}`);
    for (const [i, stage] of walk.entries()) {
      const at = head === 0 ? i + 1 : i + 2;
      if (i > 0) await page.click('.step-next');
      await page.waitForFunction((t) => document.querySelector('.step-text').textContent === t, `Stage ${at} of 11`);
      if (stage === null) {
        await waitForStage(page, 'all_heads');
        continue; // its cells: the path test below
      }
      await waitForStage(page, stage.id, stage.head);
      assert.equal(await shownEquation(page), stage.equation, `${stage.id}/${stage.head}: equation`);
      await checkNumbers(stage);
      const operandCount = await page.$$eval('#figure .figure-slot:not(.is-result)', (s) => s.length);
      assert.equal(
        operandCount,
        stage.id === 'x' ? 0 : stage.operands.filter((o) => o.name !== 'contribution').length,
        `${stage.id}: operands shown`,
      );
      const formula = await page.$eval(
        '#formula .formula',
        (f) => f.querySelector('.formula-face:not(.is-kept) .katex') !== null,
      );
      assert.ok(formula, `${stage.id}: formula typeset by KaTeX`);
    }
    // At the end of the path Next no longer steps: it leads on to the next chapter.
    if (head === 0) assert.equal(await page.textContent('.step-next'), 'Next chapter: Cross-attention \u2192');
  }
  assert.deepEqual(page.problems, []);
});

test('the lesson\u2019s seed-42 numbers appear exactly', async () => {
  await goToHash(page, '#preset=lesson-self-attention&stage=x');
  await waitForStage(page, 'x');
  await page.waitForFunction(() => document.querySelector('.shape-eq')?.dataset.equation === '(5, 8)');
  const texts = await resultTexts(page);
  assert.equal(texts[0], '0.497');
  assert.equal(texts[1], '\u22120.138');
  assert.equal(await page.$eval('#figure td.hm-cell', (td) => td.shownCell.full), '0.4967141530112327');
  // The cell under the pointer, and it alone, has its full precision as its title (tooltip).
  await page.hover('#figure td.hm-cell[data-r="0"][data-c="1"]');
  await page.hover('#figure td.hm-cell[data-r="0"][data-c="0"]');
  assert.deepEqual(await page.$$eval('#figure td.hm-cell[title]', (tds) => tds.map((td) => [td.dataset.c, td.title])), [
    ['0', '0.4967141530112327'],
  ]);
  const x = env.engine.run({ preset: 'lesson-self-attention' }).stages[0].values;
  assert.deepEqual(Array.from(x), Array.from(env.engine.randn(42, 5, 8)), 'X is np.random.seed(42); randn(5, 8)');
});

test('keyboard: ←/→ step, Home/End jump; arrows inside a matrix move between cells', async () => {
  await goToHash(page, '#preset=lesson-multi-head&stage=q&head=0');
  await waitForStage(page, 'q', 0);
  await page.click('h2#stage-title');
  await page.keyboard.press('ArrowRight');
  await waitForStage(page, 'k', 0);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await waitForStage(page, 'x');
  await page.keyboard.press('End');
  await waitForStage(page, 'output');
  await page.keyboard.press('Home');
  await waitForStage(page, 'x');
  await page.focus('#figure td.hm-cell[tabindex="0"]');
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await page.evaluate(() => [document.activeElement.dataset.r, document.activeElement.dataset.c]), [
    '0',
    '1',
  ]);
  assert.equal((await currentView(page)).stage, 'x', 'arrows in a grid do not change the stage');
  const x01 = env.engine.run(MULTI).stages[0].values[1];
  assert.ok(
    (await page.textContent('#figure .hm-readout')).endsWith(`= ${formatFull(x01)}`),
    'full precision on focus',
  );
});

// Issue 35's path: Next walks one head through, shows all heads side by side, then combines them;
// the other heads are one click away in the picker, and the counter counts the path.
test('the path: X to the output in 10 presses of Next, one head through, then all heads side by side', async () => {
  await goToHash(page, '#chapter=attention&preset=lesson-multi-head&stage=x');
  await waitForStage(page, 'x');
  const seen = [];
  for (let presses = 0; presses < 12; presses += 1) {
    const [stage, head, text] = await page.evaluate(() => [
      document.body.dataset.stage,
      document.body.dataset.head,
      document.querySelector('.step-text').textContent,
    ]);
    seen.push(`${stage}${head ?? ''}`);
    if (stage === 'output') {
      assert.equal(text, `Stage ${presses + 1} of 11`);
      break;
    }
    await page.click('.step-next');
    await page.waitForFunction((t) => document.querySelector('.step-text').textContent !== t, text);
  }
  assert.deepEqual(seen, [
    'x',
    'q0',
    'k0',
    'v0',
    'scores0',
    'scaled0',
    'weights0',
    'head0',
    'all_heads',
    'concat',
    'output',
  ]);
  // All heads: each head's weights, as the trace holds them, on the fixed 0 … 1 scale.
  await page.click('.step-prev');
  await page.click('.step-prev');
  await waitForStage(page, 'all_heads');
  const weights = env.engine.run(MULTI).stages.filter((s) => s.id === 'weights');
  assert.equal(await page.$$eval('#figure table.hm-grid', (t) => t.length), 4, 'a matrix a head, no result');
  assert.deepEqual(
    await page.$$eval('#figure td.hm-cell', shownCells),
    weights.flatMap((w) => Array.from(w.values, formatCell)),
  );
  assert.equal(await page.textContent('.step-text'), 'Stage 9 of 11');
  // Head 2 picked here: Prev walks head 2 back, and the counter keeps its length.
  await page.click('.head-button[aria-label="Head 2"]');
  await page.click('.step-prev');
  await waitForStage(page, 'head', 2);
  assert.equal(await page.textContent('.step-text'), 'Stage 8 of 11');
  assert.deepEqual(page.problems, []);
});

test('deep link opens its stage and head, and the hash follows navigation', async () => {
  const { page: p, context: c } = await openPage(env, '#preset=lesson-multi-head&stage=weights&head=2');
  await waitForStage(p, 'weights', 2);
  const stage = env.engine.run(MULTI).stages.find((s) => s.id === 'weights' && s.head === 2);
  assert.deepEqual(await resultTexts(p), Array.from(stage.values, formatCell));
  assert.equal(await p.$eval('.head-button[aria-pressed="true"]', (b) => b.textContent), '2');
  assert.equal(await p.$$eval('.overview-item', (b) => b.length), 4, 'small multiples of every head');
  // The arcs are drawn after the frame that shows the weights: a line for each of the 5 × 5 pairs.
  await p.waitForFunction(() => document.querySelector('.arc-view canvas.arc-lines')?.dataset.lines === '25');
  const inked = await p.$eval('.arc-view canvas.arc-lines', (c) => {
    const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    return data.filter((v, i) => i % 4 === 3 && v > 0).length;
  });
  assert.ok(inked > 1000, `arc view beside the weights, its lines drawn (${inked} pixels)`);
  assert.equal(await p.$$eval('.arc-view svg text.arc-label', (t) => t.length), 10, 'a label for each query and key');
  await p.click('.step-next');
  await waitForStage(p, 'head', 2);
  await urlMatching(p, /stage=head&head=2/);
  await p.click('.head-button[aria-label="Head 0"]');
  await waitForStage(p, 'head', 0);
  assert.deepEqual(p.problems, []);
  await c.close();
});

// Issue 35's path through the chapters, clicked as a reader would: a chapter tab opens that chapter
// at its first stage, the way back returns where the reader left, and at the last stage Next leads
// on to the next chapter.
test('chapters: a tab opens its first stage, the way back where it was left, the last stage leads on', async () => {
  await page.goto(env.server.url + '#chapter=attention&preset=lesson-multi-head&stage=weights&head=1');
  await waitForStage(page, 'weights', 1);
  const left = await page.textContent('.step-text');
  await page.click('.chapter-button:text-is("Cross-attention")');
  await page.waitForFunction(() => document.body.dataset.chapter === 'cross' || /chapter=cross/.test(location.hash));
  const cross = env.engine.run({ preset: 'cross-padding' }).stages;
  await waitForStage(page, cross[0].id);
  assert.equal(await page.textContent('.step-text'), `Stage 1 of ${await page.$eval('.step-progress', (p) => p.max)}`);
  await page.click('.chapter-button:text-is("Self-attention")');
  await waitForStage(page, 'weights', 1);
  assert.equal(await page.textContent('.step-text'), left, 'back where it was left');
  // The eleven tabs are one Tab stop, the current chapter's; ← and → move between them, not the stage.
  const stops = await page.$$eval('.chapter-button', (bs) =>
    bs.filter((b) => b.tabIndex === 0).map((b) => b.dataset.chapter),
  );
  assert.deepEqual(stops, ['attention']);
  await page.focus('.chapter-button[data-chapter="attention"]');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.chapter), 'cross');
  await page.keyboard.press('End');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.chapter), 'trained-heads');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.chapter), 'attention', 'round to the first');
  assert.equal(await page.textContent('.step-text'), left, 'the arrows moved the focus, not the stage');
  // The last stage of Cross-attention: Next names the next chapter and opens it at its first stage.
  await page.click('.chapter-button:text-is("Cross-attention")');
  await waitForStage(page, cross[0].id);
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.querySelector('.step-next').textContent.startsWith('Next chapter'));
  assert.equal(await page.textContent('.step-next'), 'Next chapter: Grouped-query attention \u2192');
  assert.equal(await page.$eval('.step-next', (b) => b.disabled), false);
  await page.click('.step-next');
  const gqa = env.engine.run({ preset: env.engine.presets().find((p) => p.chapter === 'gqa').id }).stages;
  await waitForStage(page, gqa[0].id);
  await urlMatching(page, /chapter=gqa/);
  assert.match(await page.textContent('.step-text'), /^Stage 1 of /);
  assert.equal(await page.textContent('.step-next'), 'Next \u2192');
  assert.deepEqual(page.problems, []);
});

test('causal switch: −∞ above the diagonal in masked, exactly 0 in weights, rows sum to 1', async () => {
  await goToHash(page, '#preset=lesson-multi-head&stage=weights&head=1');
  await waitForStage(page, 'weights', 1);
  await page.check('#field-causal');
  // Until the first row's last weight, which the mask removed, is drawn flat.
  const lastOfFirstRow = '#figure .is-result td.hm-cell[data-r="0"][data-c="4"]';
  await bandsWhen(page, lastOfFirstRow, ([band]) => band === rgbOf(THEMES.light.zeroBg));
  const trace = env.engine.run({
    seed: 42,
    seqLen: 5,
    dModel: 16,
    numHeads: 4,
    dK: 4,
    dV: 4,
    causal: true,
    outputProjection: true,
    scaleScores: true,
  });
  const weights = trace.stages.find((s) => s.id === 'weights' && s.head === 1);
  const where = await page.$$eval('#figure .is-result td.hm-cell', (tds) =>
    tds.map((td) => [+td.dataset.r, +td.dataset.c]),
  );
  const texts = await page.$$eval('#figure .is-result td.hm-cell', shownCells);
  const bands = await page.$$eval('#figure .is-result td.hm-cell', cellBands);
  for (const [i, [r, c]] of where.entries()) {
    const text = texts[i];
    assert.equal(bands[i] === rgbOf(THEMES.light.zeroBg), c > r, `(${r}, ${c}) drawn as masked: ${bands[i]}`);
    if (c > r) assert.equal(weights.values[r * 5 + c], 0);
    assert.equal(text, c > r ? '0' : formatCell(weights.values[r * 5 + c]));
  }
  assert.deepEqual(
    await page.$$eval('#figure .is-result td.hm-total', (t) => t.map((x) => x.textContent)),
    Array(5).fill('\u03a3 = 1.000'),
  );
  // No arc for a masked pair: 5 · 6 / 2 lines.
  await page.waitForFunction(() => document.querySelector('.arc-view canvas.arc-lines')?.dataset.lines === '15');
  await page.click('.step-prev');
  await waitForStage(page, 'masked', 1);
  const logits = await page.$$eval('#figure .is-result td.hm-cell', shownCells);
  const hatched = await page.$$eval('#figure .is-result td.hm-cell', cellBands);
  const masked = logits.filter((_, i) => hatched[i] === 'transparent');
  assert.equal(masked.length, 10);
  assert.ok(masked.every((t) => t === '\u2212\u221e'));
  await page.uncheck('#field-causal');
  await waitForStage(page, 'weights', 1); // masked is gone: the next stage of the same head
});

test('a bad value shows its rule and the last good view stays; the engine\u2019s refusal under its field', async () => {
  await goToHash(page, '#preset=lesson-multi-head&stage=scores&head=0');
  await waitForStage(page, 'scores', 0);
  const before = await resultTexts(page);
  await page.fill('#field-dModel', '15');
  // The engine's rule, under the field its message names.
  await page.waitForSelector('#error-heads:has-text("numHeads: 4 does not divide dModel 15; give dK and dV")');
  assert.equal(await page.getAttribute('#field-heads', 'aria-invalid'), 'true');
  assert.deepEqual(await resultTexts(page), before, 'the last good view stays');
  await page.fill('#field-dModel', '16');
  await page.fill('#field-heads', '16');
  await page.fill('#field-dK', '512');
  await page.fill('#field-dV', '512');
  await page.waitForFunction(
    () => document.querySelector('.shape-eq').dataset.equation === '(5, 512) @ (512, 5) → (5, 5)',
  );
  const good = await resultTexts(page);
  await page.fill('#field-dModel', '512'); // passes the page's checks; over the engine's trace budget
  await page.waitForSelector('.engine-error:has-text("The engine rejected this configuration")');
  assert.match(await page.textContent('.engine-error'), /budget|limit/);
  assert.deepEqual(await resultTexts(page), good, 'the last good view stays');
  await page.selectOption('#field-preset', 'lesson-multi-head');
  await page.waitForFunction(() => document.querySelector('.engine-error').textContent === '');
  assert.equal(await page.textContent('#error-heads'), '');
});

test('ablation "no \u00f7\u221ad_k": the scaled stage divides by 1 and says so', async () => {
  await goToHash(page, '#preset=lesson-multi-head&stage=scaled&head=0');
  await waitForStage(page, 'scaled', 0);
  await page.check('#field-noScale');
  await page.waitForFunction(
    () => document.querySelector('.shape-eq').dataset.equation === '(5, 5) \u00f7 1 \u2192 (5, 5)',
  );
  const trace = env.engine.run({
    seed: 42,
    seqLen: 5,
    dModel: 16,
    numHeads: 4,
    dK: 4,
    dV: 4,
    causal: false,
    outputProjection: true,
    scaleScores: false,
  });
  const scores = trace.stages.find((s) => s.id === 'scores' && s.head === 0);
  assert.deepEqual(await resultTexts(page), Array.from(scores.values, formatCell), 'scaled = scores');
  assert.match(await page.textContent('.explanation'), /Ablation/);
  await urlMatching(page, /scale=0/);
  await page.uncheck('#field-noScale');
  await page.waitForFunction(
    () => document.querySelector('.shape-eq').dataset.equation === '(5, 5) \u00f7 \u221a4 \u2192 (5, 5)',
  );
});

test('tokens: T follows the token count and labels rows and columns', async () => {
  await goToHash(page, '#preset=lesson-self-attention&stage=scores&head=0');
  await waitForStage(page, 'scores', 0);
  await page.fill('#field-tokens', 'a quick brown fox jumps over');
  await page.waitForFunction(() => document.querySelector('.shape-eq').dataset.equation === '(6, 4) @ (4, 6) → (6, 6)');
  assert.deepEqual(await page.$$eval('#figure .is-result th.hm-row', (t) => t.map((x) => x.textContent)), [
    'a',
    'quick',
    'brown',
    'fox',
    'jumps',
    'over',
  ]);
  assert.equal(
    await page.$$eval('#figure .is-result th.hm-col', (t) => t.map((x) => x.textContent)).then((c) => c[5]),
    'over',
  );
  await urlMatching(page, /tokens=a\+quick\+brown\+fox\+jumps\+over/);
});

// Reads the explain panel: the value and every term's full-precision numbers.
function readPanel(p) {
  return p.$eval('.explain-panel', (panel) => ({
    value: Number(panel.querySelector('.explain-value').dataset.full),
    rows: [...panel.querySelectorAll('.terms tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.full)),
    ),
    total: Number(panel.querySelector('.terms tfoot td:last-child')?.dataset.full),
    filled: panel.querySelector('.explain-filled .katex') !== null,
  }));
}

const EXPLAIN_CASES = [
  { stage: 'scores', head: 1, row: 2, col: 0, lit: { Q: 'row', K: 'col' } },
  { stage: 'scaled', head: 3, row: 4, col: 1 },
  { stage: 'weights', head: 0, row: 1, col: 3 },
  { stage: 'head', head: 2, row: 3, col: 2, lit: { weights: 'row', V: 'col' } },
  { stage: 'concat', head: null, row: 1, col: 6 },
  { stage: 'output', head: null, row: 2, col: 3, lit: { concat: 'row', W_O: 'col' } },
];

async function openExplain({ stage, head, row, col }, viaKeyboard) {
  await goToHash(page, `#preset=lesson-multi-head&stage=${stage}${head === null ? '' : `&head=${head}`}`);
  await waitForStage(page, stage, head);
  const cell = `#figure .is-result td.hm-cell[data-r="${row}"][data-c="${col}"]`;
  if (viaKeyboard) {
    await page.focus(cell);
    await page.keyboard.press('Enter');
  } else {
    await page.click(cell);
  }
  await page.waitForSelector('.explain-panel:not([hidden])');
}

function checkSums(c, shown, e) {
  if (e.terms) {
    assert.equal(shown.rows.length, e.terms.length);
    shown.rows.forEach(([a, b, product], k) =>
      assert.deepEqual([a, b, product], [e.terms[k].a, e.terms[k].b, e.terms[k].product]),
    );
    const sum = shown.rows.reduce((acc, r) => acc + r[2], 0);
    assert.ok(closeTo(sum, shown.total), `${c.stage}: Σ terms ${sum} vs ${shown.total}`);
    assert.ok(
      closeTo(shown.total / (c.stage === 'scaled' ? e.divisor : 1), shown.value),
      `${c.stage}: adds up to the cell`,
    );
  } else if (e.softmax) {
    const expSum = shown.rows.reduce((acc, r) => acc + r[1], 0);
    assert.ok(closeTo(expSum, shown.total), 'Σ exps');
    assert.ok(closeTo(shown.rows[c.col][1] / shown.total, shown.value), 'exp / Σ exp is the weight');
  } else {
    const source = env.engine.run(MULTI).stages.find((s) => s.id === 'head' && s.head === e.source.head);
    assert.equal(shown.value, source.values[c.row * 4 + e.source.col], 'concat copies its head\u2019s cell');
  }
}

for (const [k, c] of EXPLAIN_CASES.entries()) {
  test(`explain ${c.stage}[${c.row}, ${c.col}]: the engine's terms, and they add up`, async () => {
    await openExplain(c, k % 2 === 1);
    const e = env.engine.explain(MULTI, { stage: c.stage, head: c.head, row: c.row, col: c.col });
    const shown = await readPanel(page);
    assert.equal(shown.value, e.value);
    assert.ok(shown.filled, 'filled formula typeset');
    checkSums(c, shown, e);
    for (const [name, axis] of Object.entries(c.lit ?? {})) {
      const lit = await page.$$eval(
        `#figure .hm[data-matrix="${name}"] td.hl-${axis}`,
        (tds, ax) => [...new Set(tds.map((td) => td.dataset[ax === 'row' ? 'r' : 'c']))],
        axis,
      );
      assert.deepEqual(
        lit,
        [String(name === 'K' || axis === 'row' ? (name === 'K' ? c.col : c.row) : c.col)],
        `${name} ${axis} lit`,
      );
    }
    await urlMatching(page, new RegExp(`cell=${c.row}\\.${c.col}`));
  });
}

test('heatmap view: a wrong number of values throws and names the matrix', async () => {
  // dist/ holds bundles only: the view's ES module source is served from web/ for this test.
  await context.route(`${env.server.url}__web/**`, (route) =>
    route.fulfill({
      path: path.join(ROOT, 'web', new URL(route.request().url()).pathname.replace('/__web/', '')),
      headers: { 'Content-Type': 'text/javascript', 'Content-Security-Policy': CSP },
    }),
  );
  const message = await page.evaluate(async () => {
    const { createHeatmap } = await import('./__web/views/heatmap.js');
    const host = document.createElement('div');
    const map = createHeatmap(host);
    try {
      map.update({ name: 'W_Q', rows: 2, cols: 3, values: new Float64Array(5), cells: [] });
      return 'no error';
    } catch (error) {
      return error.message;
    }
  });
  assert.match(message, /^heatmap W_Q: 5 values for 2 × 3 cells$/);
});
