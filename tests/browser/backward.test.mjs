// The Backpropagation chapter in headless Chromium, one fresh page per test, used as a learner
// breaks it: a link opened cold, the keyboard walked through every gradient, a field edited, a
// chain arrow clicked, a cell explained. Every number the page shows is checked against the
// engine run in node on the same spec; each test ends with no console error, CSP violation or
// failed request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCell, formatSci } from '../../web/model/format.js';
import { pagePerTest, resultTexts, useEnv, shownEquation, urlMatching, waitForStage } from './harness.mjs';

const env = useEnv();
let page;

pagePerTest(
  () => env,
  '#chapter=backward&preset=backward-causal&stage=d_output',
  (opened) => ({ page } = opened),
);

const stageOf = (trace, id, head = null) => trace.stages.find((s) => s.id === id && s.head === head);
const cellsOf = (stage) => Array.from(stage.values, formatCell);
const gradientIds = (trace) => [...new Set(trace.stages.map((s) => s.id).filter((id) => id.startsWith('d_')))];

test('opened cold: the forward pass is one folded group, the gradients are listed in backward order', async () => {
  const trace = env.engine.run({ preset: 'backward-causal' });
  await waitForStage(page, 'd_output');
  const toggle = page.locator('.group-forward .stage-group-toggle');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  const forward = trace.stages.slice(
    0,
    trace.stages.findIndex((s) => s.id === 'd_output'),
  );
  const ofHead0 = forward.filter((s) => s.head === null || s.head === 0).length; // x … output: 11
  assert.equal(
    await toggle.textContent(),
    `Forward pass (head 0), ${ofHead0 + 1} stages`,
    'and all heads side by side',
  );
  assert.equal(await page.isHidden('.group-forward ol'), true);
  const titles = await page.$$eval('.stage-group-title', (h) => h.map((x) => x.textContent));
  assert.deepEqual(titles.slice(1), [
    'Backward: from the output',
    'Backward, head 0 (of 0\u20133)',
    'Backward: to the input',
  ]);
  const listed = await page.$$eval('.group-gradient-head .stage-item', (b) => b.map((x) => x.textContent));
  assert.deepEqual(listed, [
    'Gradient of the head\u2019s output',
    'Gradient of the attention weights A',
    'Gradient of V',
    'Through the softmax',
    'Through the \u221ad_k scaling',
    'Gradient of the queries',
    'Gradient of the keys',
    'Gradient of W_Q',
    'Gradient of W_K',
    'Gradient of W_V',
  ]);
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(trace, 'd_output')), 'dO is the engine\u2019s');
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  assert.equal(await page.isVisible('.group-forward ol'), true);
});

// The gradients in the stage list's order, head 0's (the path Next follows), then head 2's back by ←.
const PER_HEAD = ['d_head', 'd_weights', 'd_v', 'd_scaled', 'd_scores', 'd_q', 'd_k', 'd_w_q', 'd_w_k', 'd_w_v'];

test('by keyboard: \u2192 walks head 0\u2019s gradients, \u2190 head 2\u2019s, each the engine\u2019s', async () => {
  const trace = env.engine.run({ preset: 'backward-causal' });
  await waitForStage(page, 'd_output');
  await page.click('h2#stage-title');
  const check = async (id, head) => {
    const stage = stageOf(trace, id, head);
    await waitForStage(page, id, head);
    assert.equal(await shownEquation(page), stage.equation, `${id}/${head}: equation`);
    const texts = await resultTexts(page);
    const want = cellsOf(stage);
    for (const k of [0, Math.floor(want.length / 2), want.length - 1])
      assert.equal(texts[k], want[k], `${id}/${head}: cell ${k}`);
  };
  const path = (head) => [
    ['d_output', null],
    ['d_w_o', null],
    ['d_concat', null],
    ...PER_HEAD.map((id) => [id, head]),
    ['d_x', null],
  ];
  for (const [id, head] of path(0)) {
    await check(id, head);
    await page.keyboard.press('ArrowRight');
  }
  assert.equal(await page.textContent('.step-text'), `Stage ${path(0).length + 12} of ${path(0).length + 12}`);
  await page.click('.head-button[aria-label="Head 2"]');
  await page.click('h2#stage-title');
  for (const [id, head] of path(2).reverse()) {
    await check(id, head);
    await page.keyboard.press('ArrowLeft');
  }
  assert.deepEqual(gradientIds(trace), [
    'd_output',
    'd_w_o',
    'd_concat',
    ...PER_HEAD.slice(0, 2),
    'd_scaled',
    'd_scores',
    'd_q',
    'd_w_q',
    'd_v',
    'd_k',
    'd_w_k',
    'd_w_v',
    'd_x',
  ]);
});

test('the softmax backward: rows sum to 0, masked keys exactly 0, both stated from the trace', async () => {
  const trace = env.engine.run({ preset: 'backward-causal' });
  await page.goto(`${env.server.url}#chapter=backward&preset=backward-causal&stage=d_scaled&head=2`);
  await waitForStage(page, 'd_scaled', 2);
  const stage = stageOf(trace, 'd_scaled', 2);
  assert.deepEqual(await resultTexts(page), cellsOf(stage));
  const totals = await page.$$eval('#figure .is-result td.hm-total', (t) => t.map((x) => x.textContent));
  assert.deepEqual(
    totals,
    Array.from(stage.totals, (v) => `\u03a3 = ${formatCell(v)}`),
  );
  const largest = Math.max(...Array.from(stage.totals, Math.abs));
  const entries = Math.max(...Array.from(stage.values, Math.abs));
  assert.ok(largest <= 1e-12 * entries, 'each row sums to 0, to rounding');
  const facts = await page.textContent('.backward-facts');
  assert.match(
    facts,
    new RegExp(`largest \\|row sum\\| here is ${formatSci(largest).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  );
  // Causal, T = 5: 10 hidden scores, and dS̃ is exactly 0 at every one of them.
  const hidden = [...stage.values.keys()].filter((k) => k % 5 > Math.floor(k / 5));
  assert.ok(hidden.every((k) => stage.values[k] === 0));
  assert.match(facts, /The mask hid 10 of this head\u2019s scores; dS\u0303 is exactly 0 at 10 of them/);
});

test('the chain rule\u2019s arrows go to the stage they name; an edited seed is the engine\u2019s run', async () => {
  await page.click('.gradient-chain .chain-step >> text=dQ');
  await waitForStage(page, 'd_q', 0);
  const from = await page.$$eval('.gradient-chain li', (li) => li.map((x) => x.textContent));
  assert.ok(from.includes('dQ \u2190 dS, K'), from.join(' | '));
  assert.ok(
    from.includes('dV \u2190 weights \u00d7 1, dH \u00d7 1') || from.includes('dV \u2190 weights, dH'),
    from.join(' | '),
  );
  await page.fill('#field-seed', '43');
  await page.locator('#field-seed').press('Tab');
  await urlMatching(page, /seed=43/);
  const spec = env.engine.presets().find((p) => p.id === 'backward-causal').spec;
  const edited = env.engine.run({ ...spec, seed: 43 });
  const want = cellsOf(stageOf(edited, 'd_q', 0));
  for (let tries = 0; tries < 50 && (await resultTexts(page))[5] !== want[5]; tries += 1)
    await page.waitForTimeout(100);
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(edited, 'd_q', 0)), 'd_q of head 0 at seed 43');
});

test('explain a number of dS\u0303: A\u00b7(dA \u2212 \u03a3 dA\u00b7A) with the engine\u2019s terms', async () => {
  await page.goto(`${env.server.url}#chapter=backward&preset=backward-gqa&stage=d_scaled&head=3`);
  await waitForStage(page, 'd_scaled', 3);
  await page.focus('#figure .is-result td.hm-cell[data-r="3"][data-c="1"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.explain-panel:not([hidden])');
  const e = env.engine.explain({ preset: 'backward-gqa' }, { stage: 'd_scaled', head: 3, row: 3, col: 1 });
  const shown = await page.$eval('.explain-panel', (p) => ({
    value: Number(p.querySelector('.explain-value').dataset.full),
    rows: [...p.querySelectorAll('.terms tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.full)),
    ),
    total: Number(p.querySelector('.terms tfoot td:last-child').dataset.full),
  }));
  assert.equal(shown.value, e.value);
  assert.deepEqual(
    shown.rows,
    e.terms.map((t) => [t.a, t.b, t.product]),
  );
  assert.equal(shown.total, e.sum);
  assert.ok(Math.abs(e.weight * (e.input - e.sum) - e.value) <= 1e-15, 'A\u00b7(dA \u2212 row term) is the cell');
});

test('the \u221ad_k study: its table is the engine\u2019s measurement, and its sentences quote it', async () => {
  const trace = env.engine.run({ preset: 'backward-causal' });
  await page.click('.scaling-study summary');
  const rows = await page.$$eval('.scaling-table tbody tr', (trs) =>
    trs.map((tr) => [...tr.children].map((td) => td.textContent)),
  );
  const points = trace.config.gradientScaling;
  assert.equal(rows.length, 16);
  points.forEach((p, k) => {
    assert.equal(rows[k][0], String(p.dK));
    assert.equal(rows[k][3], formatCell(p.variance));
    assert.equal(rows[k][4], formatCell(p.maxWeight));
    assert.equal(rows[k][6], formatSci(p.meanAbsDScores));
  });
  assert.equal(await page.locator('.scaling-plot').count(), 2);
  assert.equal(await page.locator('.scaling-plot polyline').count(), 8);
  const premise = points.filter((p) => p.weightScale !== 1);
  const last = premise.filter((p) => !p.scaled).at(-1);
  const text = await page.textContent('.scaling-study');
  assert.ok(text.includes(`climbs to ${formatCell(last.maxWeight)}`), 'the unscaled softmax at d_k = 256, quoted');
});

test('RoPE: the gradient at q_rot turned back by \u2212\u03c6, opened cold, is the engine\u2019s', async () => {
  const trace = env.engine.run({ preset: 'backward-rope' });
  await page.goto(`${env.server.url}#chapter=backward&preset=backward-rope&stage=d_q_unrot&head=1`);
  await waitForStage(page, 'd_q_unrot', 1);
  const stage = stageOf(trace, 'd_q_unrot', 1);
  assert.deepEqual(await resultTexts(page), cellsOf(stage));
  const [turnedRows, , angle] = stage.operands;
  assert.equal(turnedRows.name, 'd_q_rot');
  assert.ok(Math.max(...angle.values) === 0 && Math.min(...angle.values) < 0, 'the angle operand holds \u2212\u03c6');
  const listed = await page.$$eval('.group-gradient-head .stage-item', (b) => b.map((x) => x.textContent));
  assert.ok(
    listed.includes('Gradient of the turned queries (RoPE)') && listed.includes('Turned back: gradient of the queries'),
  );
});
