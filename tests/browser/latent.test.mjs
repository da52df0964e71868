// The latent attention (MLA) chapter in headless Chromium, used as a learner breaks it: the example
// opened cold from a link, the absorbed route switched on, d_c edited to another value of the same
// length, an odd d_r refused by name and d_r 0 taking the RoPE part away. Every number the heatmaps,
// the text and the panel show is checked against the engine run in node on the same spec; axe, and
// screenshots at 1280 px (light) and 375 px (dark).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { formatCell, formatSci } from '../../web/model/format.js';
import {
  SHOTS,
  axeBuilder,
  measuredRows,
  openPage,
  pagePerTest,
  resultTexts,
  shownCells,
  shownEquation,
  urlMatching,
  useEnv,
  waitForStage,
} from './harness.mjs';

const env = useEnv();
let page;

pagePerTest(
  () => env,
  '#chapter=latent&preset=modern-mla&stage=scores&head=1',
  (opened) => ({ page } = opened),
);

const stageOf = (trace, id, head = null) => trace.stages.find((s) => s.id === id && s.head === head);
const cellsOf = (values) => Array.from(values, formatCell);
const specOf = (id) => env.engine.presets().find((p) => p.id === id).spec;
const explanation = () => page.textContent('#explanation');

const COLD =
  'MLA cold from a link: the two-term scores, the engine\u2019s difference of the routes, the cache it keeps';
test(COLD, async () => {
  await waitForStage(page, 'scores', 1);
  const trace = env.engine.run({ preset: 'modern-mla' });
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(trace, 'scores', 1).values));
  assert.equal(await shownEquation(page), '(8, 4) @ (4, 8) + (8, 2) @ (2, 8) \u2192 (8, 8)');
  const text = await explanation();
  assert.ok(text.includes(`apart by at most ${formatSci(trace.config.absorbedDifference)}`), text);
  assert.ok(trace.config.absorbedDifference <= 1e-12);
  const { mla, mha, gqa } = trace.config.kv.perToken;
  assert.deepEqual(
    [mla, mha, gqa.map((g) => [g.kvHeads, g.floats])],
    [
      10,
      32,
      [
        [1, 8],
        [2, 16],
      ],
    ],
  );
  const rows = await measuredRows(page);
  assert.deepEqual(rows.slice(0, 2), [
    ['MLA: d_c + d_r = 8 + 2', '10', '1\u00d7'],
    ['multi-head: h\u00b7(d_k + d_v), 4 K/V heads', '32', '3.2\u00d7 MLA\u2019s'],
  ]);
  assert.match(await page.textContent('.chapter-panel'), /DeepSeek-V2-Lite \(16B\)/);
  await page.screenshot({ path: path.join(SHOTS, 'latent-mla-1280.png'), fullPage: true });
  const serious = (await axeBuilder(page).analyze()).violations.filter((v) =>
    ['serious', 'critical'].includes(v.impact),
  );
  assert.deepEqual(
    serious.map((v) => v.id),
    [],
  );
  page.problems.length = 0; // axe's own <style> is a CSP violation of its own
});

test('MLA: the absorbed route shows q_absorbed against the cached c_kv, the engine\u2019s own operands', async () => {
  await waitForStage(page, 'scores', 1);
  await page.click('#sum-toggle input');
  await urlMatching(page, /sum=1(&|$)/);
  const scores = stageOf(env.engine.run({ preset: 'modern-mla' }), 'scores', 1);
  const operand = (name) => scores.operands.find((o) => o.name === name).values;
  // c_kv and k_rope stand transposed, as K does: column j is key j.
  const transposed = (name) => {
    const { values, shape } = scores.operands.find((o) => o.name === name);
    return Array.from(
      { length: values.length },
      (_, at) => values[(at % shape[0]) * shape[1] + Math.floor(at / shape[0])],
    );
  };
  const slots = [];
  for (const slot of await page.$$('#sum-figure .figure-slot')) slots.push(await slot.$$eval('td.hm-cell', shownCells));
  assert.deepEqual(
    slots.filter((cells) => cells.length),
    [
      cellsOf(operand('q_absorbed')),
      cellsOf(transposed('c_kv')),
      cellsOf(operand('q_rope')),
      cellsOf(transposed('k_rope')),
    ],
  );
  assert.match(await page.textContent('#sum-figure'), /= scores/);
});

test('MLA: d_c 8 → 6 (the same length) changes the latent, the text and the cache as the engine does', async () => {
  await page.fill('#field-dLatent', '6');
  await urlMatching(page, /dLatent=6(&|$)/);
  const trace = env.engine.run({ ...specOf('modern-mla'), dLatent: 6 });
  await page.waitForFunction(() => /d_c \+ d_r = 6 \+ 2/.test(document.querySelector('.chapter-panel').textContent));
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(trace, 'scores', 1).values));
  assert.deepEqual((await measuredRows(page))[0], ['MLA: d_c + d_r = 6 + 2', '8', '1\u00d7']);
  await page.click('#stage-nav >> text=Latent c_kv');
  await waitForStage(page, 'c_kv');
  assert.deepEqual(await resultTexts(page), cellsOf(stageOf(trace, 'c_kv').values));
  assert.match(await explanation(), /one latent row of d_c = 6 numbers/);
  // An odd RoPE part is refused by the engine, naming its field; d_r 0 takes the RoPE part away.
  await page.fill('#field-dRope', '3');
  await page.waitForSelector('#error-dRope:has-text("dRope: 3 is odd")');
  await page.fill('#field-dRope', '0');
  await page.waitForFunction(() => !document.querySelector('#error-dRope')?.textContent);
  await page.waitForFunction(() => !/RoPE/.test(document.querySelector('#stage-nav').textContent));
  const plain = env.engine.run({ ...specOf('modern-mla'), dLatent: 6, dRope: 0 });
  assert.equal(
    plain.stages.some((s) => s.id === 'k_rope' || s.id === 'q_rope'),
    false,
  );
});

test('MLA on a phone, dark: the scores and the panel fit 375 px', async () => {
  const phone = await openPage(env, '#chapter=latent&preset=modern-mla&stage=scores&head=0', {
    width: 375,
    height: 800,
    colorScheme: 'dark',
  });
  await waitForStage(phone.page, 'scores', 0);
  const sideways = await phone.page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  assert.equal(sideways, false, 'no sideways scroll');
  await phone.page.screenshot({ path: path.join(SHOTS, 'latent-mla-375-dark.png'), fullPage: true });
  assert.deepEqual(phone.page.problems, []);
  await phone.context.close();
});
