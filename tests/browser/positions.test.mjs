// The Positions and Masks chapters in headless Chromium, used as a learner breaks them: a link
// opened cold, a field edited to a new value, a preset switched and back. Every number the
// panels and the heatmap show is checked against the engine run in node on the same spec.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { formatCell } from '../../web/model/format.js';
import { stageById, titleOf } from '../../web/model/stage-table.js';
import {
  SHOTS,
  goToHash,
  openPage,
  pagePerTest,
  resultTexts,
  stageHash,
  useEnv,
  urlMatching,
  waitForStage,
  weightTexts,
} from './harness.mjs';

const env = useEnv();
let page;

pagePerTest(
  () => env,
  '#chapter=positions',
  (opened) => ({ page } = opened),
);

const stageOf = (trace, id, head = null) => trace.stages.find((s) => s.id === id && s.head === head);
const specOf = (id) => env.engine.presets().find((p) => p.id === id).spec;
const cellsOf = (stage) => Array.from(stage.values, formatCell);
const tableRows = (selector) =>
  page.$$eval(`${selector} tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));

const ROPE_TITLE =
  'RoPE: the pair table is the engine\u2019s, half-split pairs (c, c + d_rot/2), the shift check in words';
test(ROPE_TITLE, async () => {
  const trace = env.engine.run({ preset: 'positions-rope' });
  await goToHash(page, '#chapter=positions&preset=positions-rope&stage=q_rot&head=1');
  await waitForStage(page, 'q_rot', 1);
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(trace, 'q_rot', 1)), 'q_rot of head 1');
  const [, theta, angle] = stageOf(trace, 'q_rot', 1).operands;
  const rows = await tableRows('.rope-table');
  assert.deepEqual(
    rows.map((r) => r.slice(0, 3)),
    [
      ['0', '(0, 1)', formatCell(theta.values[0])],
      ['1', '(2, 3)', formatCell(theta.values[1])],
    ],
  );
  assert.equal(rows[1][3 + 5], formatCell(angle.values[5 * 2 + 1]), 'the angle of pair 1 at position 5');
  const shift = trace.config.ropeShift;
  assert.match(await page.textContent('.rope-shift'), new RegExp(`Shift every position by ${shift.shift}`));
  assert.ok(shift.scores < 1e-12 && shift.qRot > 0.1, 'moving every position turns q, not the scores');

  // Switch the pairing in the form: the table and the cells follow the engine.
  await page.selectOption('#field-ropeConvention', 'half-split');
  await urlMatching(page, /ropeConv=half-split/);
  const half = env.engine.run({ ...specOf('positions-rope'), rope: { convention: 'half-split', offset: 0 } });
  await page.waitForFunction(
    () => document.querySelector('.rope-table tbody td:nth-child(2)').textContent === '(0, 2)',
  );
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(half, 'q_rot', 1)), 'half-split q_rot');
  // To the ALiBi preset and back: the RoPE example is its own again.
  await goToHash(page, '#chapter=positions&preset=positions-alibi&stage=biased&head=2');
  await waitForStage(page, 'biased', 2);
  await goToHash(page, '#chapter=positions&preset=positions-rope&stage=q_rot&head=1');
  await waitForStage(page, 'q_rot', 1);
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(trace, 'q_rot', 1)), 'back to interleaved');
  assert.deepEqual(page.problems, []);
});

test('ALiBi: a slope per head from the engine, S\u0303 + B in the cells, and the row constant check', async () => {
  const trace = env.engine.run({ preset: 'positions-alibi' });
  await goToHash(page, '#chapter=positions&preset=positions-alibi&stage=biased&head=2');
  await waitForStage(page, 'biased', 2);
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(trace, 'biased', 2)));
  const slopes = await page.$$eval('.alibi-slope', (li) => li.map((x) => x.textContent));
  assert.deepEqual(
    slopes,
    [...trace.config.alibi].map((m, h) => `head ${h}: m = ${formatCell(m)}`),
  );
  assert.deepEqual([...trace.config.alibi], [1 / 4, 1 / 16, 1 / 64, 1 / 256], 'four heads: 2^(\u22122(h+1))');
  assert.equal(await page.textContent('.alibi-slope.is-current'), slopes[2]);
  assert.match(await page.textContent('.alibi-shift'), /changes no weight/);
  await page.screenshot({ path: path.join(SHOTS, 'positions-alibi-1280.png'), fullPage: true });
  assert.deepEqual(page.problems, []);
});

test('masks: the window edited to a new width, the keys each query sees and the weights follow', async () => {
  await goToHash(page, '#chapter=masks&preset=masks-window&stage=weights&head=0');
  await waitForStage(page, 'weights', 0);
  const three = env.engine.run({ preset: 'masks-window' });
  assert.deepEqual(await resultTexts(page), weightTexts(stageOf(three, 'weights', 0)));
  assert.deepEqual(
    (await tableRows('.mask-rows')).map((r) => r.slice(1)),
    [['0', '1'], ['0\u20131', '2'], ...[2, 3, 4, 5, 6, 7].map((i) => [`${i - 2}\u2013${i}`, '3'])],
  );
  await page.fill('#field-window', '2');
  await urlMatching(page, /window=2/);
  const two = env.engine.run({ ...specOf('masks-window'), window: 2 });
  await page.waitForFunction(
    () => document.querySelector('.mask-rows tbody tr:last-child td:last-child').textContent === '2',
  );
  const w = stageOf(two, 'weights', 0);
  assert.deepEqual(await resultTexts(page), weightTexts(w), 'the weights of W = 2');
  for (let i = 0; i < 8; i += 1)
    for (let j = 0; j < 8; j += 1)
      if (j > i || j <= i - 2) assert.ok(Object.is(w.values[i * 8 + j], 0), `(${i}, ${j}) outside the band is 0`);
  await page.fill('#field-window', '0');
  await page.waitForSelector('#error-window:has-text("window")');
  assert.deepEqual(await resultTexts(page), weightTexts(w), 'a refused window keeps the last good view');
  // Window 2, then valid keys 1: query 2 would see no key. The engine refuses by name (it
  // trapped and stayed dead before), under the valid keys field; the last good view stays, and
  // the page computes again.
  await page.fill('#field-window', '2');
  await page.fill('#field-validKeys', '1');
  await page.waitForSelector('#error-validKeys:has-text("validKeys: 1 leaves query 2 no key")');
  assert.deepEqual(await resultTexts(page), weightTexts(w), 'a refused validKeys keeps the last good view');
  await page.fill('#field-validKeys', '7');
  await urlMatching(page, /valid=7/);
  const padded = stageOf(env.engine.run({ ...specOf('masks-window'), window: 2, validKeys: 7 }), 'weights', 0);
  await page.waitForFunction(() => !document.querySelector('#error-validKeys').textContent);
  assert.deepEqual(await resultTexts(page), weightTexts(padded), 'the weights of W = 2 over 7 valid keys');
  assert.deepEqual(page.problems, []);
});

test('masks: packed documents typed in, then the link opened cold; nothing crosses a document', async () => {
  const spec = { ...specOf('masks-documents'), documents: [2, 4, 2] };
  const trace = env.engine.run(spec);
  const want = cellsOf(stageOf(trace, 'masked', 3));
  await goToHash(page, '#chapter=masks&preset=masks-documents&stage=masked&head=3');
  await waitForStage(page, 'masked', 3);
  await page.fill('#field-documents', '2, 4, 2');
  await urlMatching(page, /docs=2/);
  await page.waitForFunction(
    () => document.querySelector('.mask-rows tbody tr:nth-child(3) td:nth-child(2)').textContent === '2',
  );
  assert.deepEqual(await resultTexts(page), want, 'L of the typed documents');
  const cold = await openPage(env, new URL(page.url()).hash);
  await waitForStage(cold.page, 'masked', 3);
  assert.deepEqual(await resultTexts(cold.page), want, 'L from the link');
  const seen = await cold.page.$$eval('.mask-rows tbody tr', (trs) => trs.map((tr) => tr.children[1].textContent));
  assert.deepEqual(seen, ['0', '0\u20131', '2', '2\u20133', '2\u20134', '2\u20135', '6', '6\u20137']);
  await cold.page.fill('#field-documents', '3, 3');
  await cold.page.waitForSelector('#error-documents:has-text("8")');
  assert.deepEqual(await resultTexts(cold.page), want, 'lengths not summing to T keep the last good view');
  await cold.page.screenshot({ path: path.join(SHOTS, 'masks-documents-1280.png'), fullPage: true });
  assert.deepEqual(cold.page.problems, []);
  await cold.context.close();
});

// Issue 34's evidence: every preset of the Positions, Masks, Backpropagation and Trained heads
// chapters opened from a link in a fresh document, as a learner's link opens it; at each stage
// whose formula states what the engine applied (scores, scaled, ALiBi's bias, the mask, the
// softmax), the page shows the title and formula that the stage table writes for the engine's own
// stage (its operands and terms), and its numbers. Screenshots of the mask stages at 1280 px.
const STATED = new Set(['scores', 'scaled', 'biased', 'masked', 'weights']);
const LINKED_CHAPTERS = ['positions', 'masks', 'backward', 'trained-heads'];
test('every preset of four chapters from a link: the formula and title are the engine\u2019s terms', async () => {
  let checked = 0;
  for (const preset of env.engine.presets().filter((p) => LINKED_CHAPTERS.includes(p.chapter))) {
    const trace = env.engine.run({ preset: preset.id });
    const firsts = []; // the first stage of each kind: the first head's, the first layer's
    for (const s of trace.stages) if (STATED.has(s.id) && !firsts.some((f) => f.id === s.id)) firsts.push(s);
    for (const [n, stage] of firsts.entries()) {
      const step = stage.step === null ? '' : `&step=${stage.step}`;
      const hash = `#chapter=${preset.chapter}&${stageHash(preset.id, stage).slice(1)}${step}`;
      if (n === 0) {
        await page.goto('about:blank');
        await page.goto(env.server.url + hash);
        await page.waitForSelector('body[data-ready="true"]');
      } else await goToHash(page, hash);
      await waitForStage(page, stage.id, stage.head);
      const entry = stageById(stage.id);
      const where = `${preset.id} ${stage.id}/${stage.head}@${stage.step}`;
      await page.waitForFunction(
        (tex) => document.querySelector('#formula > .formula')?.dataset.tex === tex,
        entry.formula(trace.config, stage),
      );
      assert.equal(await page.textContent('#stage-title'), titleOf(entry, trace.config, stage), where);
      const want = stage.id === 'weights' ? weightTexts(stage) : cellsOf(stage);
      assert.deepEqual(await resultTexts(page), want, `${where}: the engine's numbers`);
      if (stage.id === 'masked') await page.screenshot({ path: path.join(SHOTS, `linked-${preset.id}-masked.png`) });
      checked++;
    }
  }
  assert.ok(checked >= 40, `${checked} stages checked`);
  assert.deepEqual(page.problems, []);
});

// The mask stage of every linked preset that has one, at 375 px (light and dark) and at 1280 px in
// dark: the page never scrolls sideways, and a formula wider than its box scrolls inside it with a
// shadow at each edge it has more beyond (data-more), light grey in dark. Screenshots of each.
test('the mask stage of every linked preset at 375 px and in dark: a wide formula scrolls, and shows it', async () => {
  const views = [
    [375, 'light', '-375'],
    [375, 'dark', '-375-dark'],
    [1280, 'dark', '-dark'],
  ];
  let shown = 0;
  for (const preset of env.engine.presets().filter((p) => LINKED_CHAPTERS.includes(p.chapter))) {
    const stage = env.engine.run({ preset: preset.id }).stages.find((s) => s.id === 'masked');
    if (!stage) continue;
    await goToHash(page, `#chapter=${preset.chapter}&${stageHash(preset.id, stage).slice(1)}`);
    await waitForStage(page, stage.id, stage.head);
    for (const [width, colorScheme, suffix] of views) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme });
      // The edge follows the box's size (a ResizeObserver, after the next layout).
      await page
        .waitForFunction(
          () => {
            const a = document.querySelector('.formula-area');
            return (a.dataset.more ?? '') === (a.scrollWidth > a.clientWidth + 1 ? 'right' : '');
          },
          null,
          { timeout: 2000 },
        )
        .catch(() => {});
      const box = await page.$eval('.formula-area', (a) => ({
        more: a.dataset.more ?? '',
        wide: a.scrollWidth > a.clientWidth + 1,
        page: document.documentElement.scrollWidth - window.innerWidth,
      }));
      assert.equal(box.page <= 0, true, `${preset.id} at ${width} px: the page scrolls sideways by ${box.page} px`);
      assert.equal(box.more, box.wide ? 'right' : '', `${preset.id} at ${width} px: the formula's edge`);
      await page.$eval('#stage-title', (t) => t.scrollIntoView()); // on a phone the stage starts below the fold
      await page.screenshot({ path: path.join(SHOTS, `linked-${preset.id}-masked${suffix}.png`) });
      shown++;
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
  }
  assert.ok(shown >= 30, `${shown} views`);
  // Four rules do not fit a phone: the formula scrolls, its edges say where more of it is.
  await page.setViewportSize({ width: 375, height: 900 });
  await goToHash(
    page,
    '#chapter=masks&tokens=the+cat+sat+on+the+mat+and+slept&dModel=8&heads=2&seed=1&causal=1&window=3&docs=3+3+2' +
      '&valid=7&stage=masked&head=0',
  );
  await page.waitForFunction(() => document.querySelector('#formula > .formula')?.dataset.tex.includes('valid'));
  const more = () => page.$eval('.formula-area', (a) => a.dataset.more);
  await page.waitForFunction(() => document.querySelector('.formula-area').dataset.more === 'right');
  await page.$eval('.formula-area', (a) => a.scrollBy(40, 0));
  await page.waitForFunction(() => document.querySelector('.formula-area').dataset.more === 'left right');
  await page.$eval('.formula-area', (a) => a.scrollBy(10000, 0));
  await page.waitForFunction(() => document.querySelector('.formula-area').dataset.more === 'left');
  assert.equal(await more(), 'left');
  await page.$eval('#stage-title', (t) => t.scrollIntoView());
  await page.screenshot({ path: path.join(SHOTS, 'masks-four-rules-375.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  assert.deepEqual(page.problems, []);
});
