// The lesson's counts on the page: h heads against one wide head, the causal prefix check and
// the training passes it saves (the attention chapter), FlashAttention's slow-memory traffic
// (the flash chapter); every number the engine's, checked against a run in node.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCount } from '../../web/model/format.js';
import { goToHash, pagePerTest, useEnv, waitForStage } from './harness.mjs';

const env = useEnv();
let page;

pagePerTest(
  () => env,
  '#chapter=attention',
  (opened) => ({ page } = opened),
);

const rowsOf = (selector) =>
  page.$$eval(`${selector} tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));

test('attention chapter: four heads cost what one wide head costs; the heads changed in the form follow', async () => {
  await goToHash(page, '#chapter=attention&preset=lesson-multi-head&stage=output');
  await waitForStage(page, 'output');
  await page.click('details.costs summary');
  const { heads, single } = env.engine.run({ preset: 'lesson-multi-head' }).config.headSplit;
  const rows = await rowsOf('.head-split');
  assert.deepEqual(rows[0], ['Q, K, V projections', formatCount(heads.projections), formatCount(single.projections)]);
  assert.deepEqual(rows.at(-1), ['softmax exponentials', '100', '25']);
  await page.fill('#field-heads', '8');
  await page.waitForFunction(() =>
    document.querySelector('.head-split th[scope="col"]:nth-child(2)')?.textContent.startsWith('8'),
  );
  const eight = env.engine.run({ seed: 42, seqLen: 5, dModel: 16, numHeads: 8 }).config.headSplit;
  assert.deepEqual((await rowsOf('.head-split')).at(-1), ['softmax exponentials', formatCount(eight.heads.exps), '25']);
  assert.deepEqual(page.problems, []);
});

test('attention chapter, causal: each row equals its prefix\u2019s pass; the passes a batch needs', async () => {
  await goToHash(page, '#chapter=attention&preset=lesson-causal&stage=weights');
  await waitForStage(page, 'weights');
  await page.click('details.costs summary');
  const c = env.engine.run({ preset: 'lesson-causal' }).config;
  assert.equal((await rowsOf('.causal-prefix')).length, c.seqLen);
  const note = await page.textContent('.causal-passes');
  assert.match(note, new RegExp(`${c.seqLen} passes for these ${c.seqLen} tokens against 1`));
  assert.match(note, /32,768 against 32/);
  assert.deepEqual(page.problems, []);
});

test('flash chapter: slow-memory traffic of this head and of the lesson\u2019s 2048 tokens', async () => {
  await goToHash(page, '#chapter=flash&preset=flash-causal&stage=tile_out&step=1');
  await waitForStage(page, 'tile_out', 0);
  const m = env.engine.run({ preset: 'flash-causal' }).config.memoryTraffic;
  const note = await page.textContent('.memory-traffic');
  for (const v of [m.standard, m.tiled, m.exampleStandard, m.exampleTiled])
    assert.ok(note.includes(formatCount(v)), `${v}`);
  assert.deepEqual(page.problems, []);
});

test('notation: at a decode step and a tile, the symbols of that formula with the trace\u2019s shapes', async () => {
  for (const [hash, id, symbol, others] of [
    ['#chapter=kv-cache&preset=kv-cache-gqa&stage=k_cache&step=2', 'k_cache', 'K_\u2264t, K_<t', ['k', 't']],
    ['#chapter=flash&preset=flash-causal&stage=tile_sum&step=1', 'tile_sum', 'Z', ['\u03b1', 'E', '\u03bc', 'L']],
  ]) {
    await goToHash(page, hash);
    await waitForStage(page, id, 0);
    await page.click('details.notation summary');
    const rows = await rowsOf('.notation-table');
    const stage = env.engine
      .run({ preset: new URLSearchParams(hash.slice(1)).get('preset') })
      .stages.find((s) => s.id === id);
    assert.deepEqual(rows.find((r) => r[0] === symbol)?.[2], `(${stage.axes.join(', ')})`, `${id}: ${symbol}`);
    for (const other of others)
      assert.ok(
        rows.some((r) => r[0] === other),
        `${id}: ${other} in ${rows.map((r) => r[0])}`,
      );
    assert.ok(!rows.some((r) => r[0] === 'S'), `${id}: no symbol its formula does not write`);
    assert.match(await page.textContent('.notation-base'), /counts from 0/);
  }
  assert.deepEqual(page.problems, []);
});
