// Heatmaps drawn with strips (web/views/heatmap-strips.js), in headless Chromium: each cell is
// empty, filled with its colour (none for −∞, over its row's hatching), and its number (a field of
// its row's text strip) must fall on it, its column header above it, on the page and inside the
// element's shadow root (where the pitch is registered from script), for wide numbers and long
// token labels alike.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCell } from '../../web/model/format.js';
import { cellBands, newPage, openPage, useEnv, shownCells } from './harness.mjs';

const env = useEnv();

// For page.$$eval over a strip heatmap's cells: how far (px) each cell's field of text and its
// column header lie from the cell's own box, left and right edges.
const offsets = (tds) =>
  tds.map((td) => {
    const table = td.closest('table');
    const chars = Number(table.style.getPropertyValue('--chars'));
    const c = Number(td.dataset.c);
    const row = td.parentNode;
    let offset = c * chars;
    let node = null;
    for (const run of row.querySelector('.hm-text').children) {
      node = run.firstChild;
      if (offset < node.data.length) break;
      offset -= node.data.length;
    }
    const range = document.createRange();
    range.setStart(node, offset);
    range.setEnd(node, offset + chars);
    const text = range.getBoundingClientRect();
    const cell = td.getBoundingClientRect();
    const head = table.querySelector(`th.hm-col[data-c="${c}"]`).getBoundingClientRect();
    return {
      at: `${td.dataset.r},${c}`,
      chars,
      // The field holds the number and a space (at least) either side.
      text: [text.left - cell.left, text.right - cell.right],
      head: [head.left - cell.left, head.right - cell.right],
    };
  });

function assertOnCells(found, what, minChars = 8) {
  assert.ok(found.length > 0, `${what}: cells`);
  for (const { at, chars, text, head } of found) {
    assert.ok(chars >= minChars, `${what} (${at}): ${chars} characters a field`);
    for (const [name, [left, right]] of Object.entries({ text, head }))
      assert.ok(
        Math.abs(left) <= 1 && Math.abs(right) <= 1,
        `${what} (${at}): the ${name} is off by ${left}, ${right} px`,
      );
  }
}

test('every number falls on its cell and under its column header: wide numbers, long labels', async () => {
  const tokens = 'internationalisation is unbelievably long and so are counterexamples';
  const { page, context } = await openPage(
    env,
    `#chapter=attention&tokens=${encodeURIComponent(tokens)}&dModel=64&heads=2&ws=1&stage=scores&head=0`,
  );
  const scores = env.engine
    .run({ seed: 42, seqLen: 8, dModel: 64, numHeads: 2, weightScale: 1 }) // the words only label X's rows
    .stages.find((s) => s.id === 'scores' && s.head === 0);
  const texts = await page.$$eval('#figure .is-result td.hm-cell', shownCells);
  assert.deepEqual(texts, Array.from(scores.values, formatCell), 'the engine’s scores, each on its own cell');
  const longest = Math.max(...texts.map((t) => t.length));
  assert.ok(longest >= 6, `numbers of up to ${longest} characters`);
  assertOnCells(await page.$$eval('#figure .is-result td.hm-cell', offsets), 'scores', longest + 2);
  assertOnCells(await page.$$eval('#figure .figure-slot:not(.is-result) td.hm-cell', offsets), 'the operands');
  // A double-click on a cell selects its number, as it would if the cell held it; a drag across
  // cells selects their numbers (the strips' text).
  await page.dblclick('#figure .is-result td.hm-cell[data-r="2"][data-c="5"]');
  assert.equal(await page.evaluate(() => window.getSelection().toString()), texts[2 * 8 + 5]);
  const box = (r, c) =>
    page.$eval(`#figure .is-result td.hm-cell[data-r="${r}"][data-c="${c}"]`, (td) => {
      const b = td.getBoundingClientRect();
      return [b.left + 3, b.top + b.height / 2];
    });
  await page.mouse.move(...(await box(0, 0)));
  await page.mouse.down();
  await page.mouse.move(...(await box(0, 2)), { steps: 4 });
  await page.mouse.up();
  const dragged = await page.evaluate(() => window.getSelection().toString());
  for (const t of texts.slice(0, 2))
    assert.ok(dragged.includes(t), `the drag selected ${t}: ${JSON.stringify(dragged)}`);
  await context.close();
});

test('in the element’s shadow root, with the mask’s −∞ and zeros, fields fall on their cells', async () => {
  const { page, context } = await newPage(env);
  await page.goto(`${env.server.url}examples/course-page.html`);
  await page.waitForSelector('attention-stepper#causal[data-ready="true"]');
  const masked = await page.$$eval('#causal .is-result td.hm-cell', shownCells);
  assert.ok(masked.includes('\u2212\u221e'), 'the masked logits show −∞');
  const bands = await page.$$eval('#causal .is-result td.hm-cell', cellBands);
  masked.forEach((text, i) =>
    assert.equal(bands[i] === 'transparent', text === '\u2212\u221e', `cell ${i} (${text}): fill ${bands[i]}`),
  );
  assertOnCells(await page.$$eval('#causal .is-result td.hm-cell', offsets), 'element, masked');
  await page.$eval('#causal', (e) => e.next());
  await page.waitForSelector('#causal[data-stage="weights"]');
  assertOnCells(await page.$$eval('#causal .is-result td.hm-cell', offsets), 'element, weights');
  await context.close();
});
