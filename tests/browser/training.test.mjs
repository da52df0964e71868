// training.html in headless Chromium, a page per test: the shipped run shown cold with the
// engine's numbers (the table's full values are the checkpoint's; each head's weights are
// engine.run's of that layer's explicit causal pass); Train in the worker reproduces the shipped
// run's numbers, checkpoint by checkpoint, bit for bit; pause holds, resume goes on, reset shows
// the shipped run again; another task trains to its end; axe finds nothing in either theme.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { formatCell } from '../../web/model/format.js';
import { FORMED_AT } from '../../web/model/training-view.js';
import { readCheckpoint } from '../../web/training/checkpoint.js';
import { axeBuilder, downloadedText, openPage, resultFulls, useEnv, shownCells, watchShifts } from './harness.mjs';

const SHIPPED = readCheckpoint(
  JSON.parse(readFileSync(new URL('../../web/checkpoints/induction.json', import.meta.url))),
);

const env = useEnv();

// A fresh page per test; its problems (console errors, failed requests) checked at the end.
async function withPage(run, options = {}) {
  const { page, context } = await openPage(env, 'training.html', options);
  try {
    await run(page);
    assert.deepEqual(page.problems, []);
  } finally {
    await context.close();
  }
}

// The first run's table: each row's cells' full values (their titles).
async function tableTitles(page) {
  await page.$eval('.training-table', (d) => (d.open = true)); // the table is built once open
  return page.$$eval('.training-table', (tables) =>
    [...tables[0].querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.title)),
  );
}

// What the history's checkpoint shows in the table, in full: step, losses, every head's scores.
const rowOf = (c) => [
  String(c.step),
  String(c.loss),
  c.trainLoss === null ? 'none' : String(c.trainLoss),
  ...c.headScores.flatMap((h) => ['induction', 'previousToken', 'firstToken'].map((k) => String(h[k]))),
];

const progressAt = (page, step) =>
  page.waitForFunction(
    (s) =>
      document.getElementById('training-progress').max > 1 && document.getElementById('training-progress').value >= s,
    step,
    { timeout: 60000 },
  );

// Layer l's weights for held-out sequence k, as the engine in node computes them.
function engineWeights(k) {
  const e = env.engine;
  const tokens = e.taskBatch(SHIPPED.spec, { count: k + 1 }).tokens[k].slice(0, 24);
  const pass = e.modelForward(SHIPPED.model, tokens);
  return SHIPPED.model.params.layers.map((layer, l) =>
    e.run({ X: pass.residual[l], ...layer, causal: true }).stages.filter((s) => s.id === 'weights'),
  );
}

// Each head's cells as the page shows them (harness.mjs's shownCells reads the text strips).
async function shownHeads(page) {
  const heads = [];
  for (const box of await page.$$('.trained-head')) heads.push(await box.$$eval('td.hm-cell', shownCells));
  return heads;
}

test('cold: the shipped run, its table in full and every head drawn with the engine numbers', async () => {
  await withPage(async (page) => {
    assert.match(
      await page.textContent('#training-status'),
      /shipped run: trained by this engine at build time, 1000 steps/,
    );
    // Nothing has trained on this page yet: the bar is empty, the status says what Train will do.
    assert.equal(await page.$eval('#training-progress', (p) => p.value), 0);
    assert.match(await page.textContent('#training-status'), /Train retrains it here to watch its heads form/);
    assert.equal(Number(await page.textContent('#formed-at')), FORMED_AT);
    // The recipe's formulas typeset by KaTeX, as the stepper's are, none left as plain subscripts.
    assert.equal(await page.$$eval('.training-model .tex > .katex', (k) => k.length), 6);
    assert.equal(await page.$$eval('.training-model sub', (s) => s.length), 0);
    assert.deepEqual(await tableTitles(page), SHIPPED.history.map(rowOf));
    const want = engineWeights(0)
      .flat()
      .map((s) => Array.from(s.values, formatCell));
    assert.deepEqual(await shownHeads(page), want);
    assert.match(
      await page.textContent('#training-charts'),
      /an induction head has formed by step 550 \(layer 1, head 0/,
    );
    await page.click('.trained-heads details summary'); // what the model predicts, and where the loss counts
    const counted = await page.$$eval('.trained-heads details tbody tr', (rows) => rows.map((r) => r.lastChild.title));
    assert.deepEqual(counted, env.engine.taskBatch(SHIPPED.spec, { count: 1 }).mask[0].map(String));
    await page.selectOption('#training-sequence', '5');
    await page.waitForFunction(() =>
      document.querySelector('.trained-heads .panel-note').textContent.includes('sequence 5'),
    );
    assert.deepEqual(
      await shownHeads(page),
      engineWeights(5)
        .flat()
        .map((s) => Array.from(s.values, formatCell)),
    );
  });
});

test('Train reproduces the shipped run bit for bit; pause holds, resume goes on, reset shows it again', async () => {
  await withPage(async (page) => {
    await page.click('#training-train');
    // The charts come into view below the bar, and the bar stays at the top while they are read.
    await page.waitForFunction(() => {
      const bar = document.querySelector('.training-bar').getBoundingClientRect();
      const title = document.getElementById('charts-title').getBoundingClientRect();
      return bar.top >= 0 && title.top >= bar.bottom && title.bottom <= window.innerHeight;
    });
    await progressAt(page, 50);
    const barTop = await page.evaluate(() => {
      document.querySelector('#training-charts > :last-child').scrollIntoView({ block: 'end' });
      return document.querySelector('.training-bar').getBoundingClientRect().top;
    });
    assert.equal(barTop, 0);
    const paused = await page.$eval('#training-progress', (p) => {
      document.getElementById('training-pause').click();
      return p.value; // read in the same task as the click: no chunk can land between them
    });
    assert.equal(await page.textContent('#training-pause'), 'Resume');
    // The chunk under way, if any, still lands (the status says "pausing" until it has); none after it.
    await page.waitForFunction(() => document.getElementById('training-status').textContent.endsWith('(paused)'));
    const held = await page.$eval('#training-progress', (p) => p.value);
    assert.ok(held - paused <= 25, `paused at ${paused}, then ${held}`);
    const shown = await tableTitles(page);
    assert.ok(shown.length >= 3, `${shown.length} checkpoints`);
    assert.deepEqual(shown, SHIPPED.history.slice(0, shown.length).map(rowOf));
    await page.waitForTimeout(800);
    assert.equal(await page.$eval('#training-progress', (p) => p.value), held);
    await page.click('#training-pause');
    await progressAt(page, held + 50);
    assert.match(await page.textContent('#training-status'), /steps\/s/);
    await page.click('#training-reset');
    assert.match(await page.textContent('#training-status'), /shipped run/);
    assert.deepEqual(await tableTitles(page), SHIPPED.history.map(rowOf));
  });
});

test('previous-token trains to its end; its checkpoints step back to the drawn model; a weight explained', async () => {
  await withPage(async (page) => {
    await page.selectOption('#training-task', 'previous-token');
    assert.match(await page.textContent('#training-about'), /one position back/);
    await page.click('#training-train');
    await page.waitForFunction(() => document.getElementById('training-train').disabled === false, null, {
      timeout: 60000,
    });
    assert.match(await page.textContent('#training-status'), /step 300 of 300/);
    const heads = await page.$$eval('.trained-head .hm-caption', (c) => c.map((x) => x.textContent));
    assert.deepEqual(heads.length, 1);
    assert.match(heads[0], /Layer 0, head 0/);
    assert.equal(await page.textContent('#training-checkpoint-step'), 'step 300');
    // Checkpoint 0: the model as drawn, before any step (engine.initModel of the task's sizes).
    await page.$eval('#training-checkpoint', (r) => {
      r.value = '0';
      r.dispatchEvent(new Event('input', { bubbles: true }));
    });
    assert.equal(await page.textContent('#training-checkpoint-step'), 'step 0');
    const e = env.engine;
    const spec = { task: 'previous-token', seed: 0 };
    const model = e.initModel({ vocab: 32, seqLen: 23, dModel: 32, numLayers: 1, numHeads: 1, seed: 0 });
    const tokens = e.taskBatch(spec, { count: 1 }).tokens[0].slice(0, 23);
    const layerSpec = { X: e.modelForward(model, tokens).residual[0], ...model.params.layers[0], causal: true };
    const weights = e.run(layerSpec).stages.find((s) => s.id === 'weights');
    assert.deepEqual(await shownHeads(page), [Array.from(weights.values, formatCell)]);
    await page.click('.trained-head td.hm-cell[data-r="4"][data-c="3"]');
    const value = e.explain(layerSpec, { stage: 'weights', head: 0, row: 4, col: 3 }).value;
    await page.waitForSelector('#trained-explain .explain-panel:not([hidden])');
    assert.equal(await page.getAttribute('#trained-explain .explain-value', 'data-full'), String(value));
    await stepsCheckpoints(page, { spec, tokens, drawn: model });
  });
});

// The stepper below the heads steps the chosen checkpoint (here 0, the drawn model) on the same
// sequence, its loss over the positions the task scores: every number the engine's run of
// { kind: 'model', model }. Moved to the last checkpoint, it stays on its stage with that model.
async function stepsCheckpoints(page, { spec, tokens, drawn }) {
  const e = env.engine;
  const counted = e.taskBatch(spec, { count: 1 }).mask[0];
  const scored = tokens.slice(0, -1).flatMap((_, t) => (counted[t] ? [t] : []));
  const traceOf = (model) => e.run({ kind: 'model', model, tokens, scored });
  const fulls = (trace, id) => Array.from(trace.stages.find((s) => s.id === id).values, String);
  const atStep0 = traceOf(drawn);
  await page.waitForSelector('#training-stepper[data-stage="embedded"]');
  assert.match(await page.textContent('#training-stepper-what'), /^Held-out sequence 0, through the model at step 0/);
  assert.equal(await page.textContent('#training-stepper .step-text'), `Stage 1 of ${atStep0.stages.length}`);
  assert.deepEqual(await resultFulls(page), fulls(atStep0, 'embedded'));
  await page.click('#training-stepper #stage-title');
  await page.keyboard.press('End');
  await page.waitForSelector('#training-stepper[data-stage="loss"]');
  assert.deepEqual(await resultFulls(page), fulls(atStep0, 'loss'));
  await page.click('#training-stepper #figure .is-result td.hm-cell');
  await page.waitForSelector('#training-stepper .explain-panel:not([hidden])');
  const explained = e.explain({ kind: 'model', model: drawn, tokens, scored }, { stage: 'loss', row: 0, col: 0 });
  assert.equal(await page.getAttribute('#training-stepper .explain-value', 'data-full'), String(explained.value));
  // The last checkpoint: the same run retrained in node (deterministic), at its step 300.
  const last = e.train({ ...spec, checkpointEvery: 25 }).checkpoints.at(-1);
  await page.$eval('#training-checkpoint', (r) => {
    r.value = r.max;
    r.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await page.waitForFunction(() => /at step 300/.test(document.getElementById('training-stepper-what').textContent));
  await page.waitForSelector('#training-stepper[data-stage="loss"]');
  const trained = traceOf(last.model);
  assert.deepEqual(await resultFulls(page), fulls(trained, 'loss'));
  assert.ok(trained.stages.at(-1).values[0] < atStep0.stages.at(-1).values[0] / 2, 'training lowered the loss');
}

test('a typed sequence: heads and predictions from the engine; a token outside the vocabulary refused', async () => {
  await withPage(async (page) => {
    await page.fill('#training-tokens', '3 17 5 9 3 17');
    await page.press('#training-tokens', 'Enter');
    await page.waitForFunction(() =>
      document.querySelector('.trained-heads .panel-note').textContent.includes('typed'),
    );
    const e = env.engine;
    const tokens = [3, 17, 5, 9, 3, 17];
    const pass = e.modelForward(SHIPPED.model, tokens);
    const want = SHIPPED.model.params.layers.flatMap((layer, l) =>
      e
        .run({ X: pass.residual[l], ...layer, causal: true })
        .stages.filter((s) => s.id === 'weights')
        .map((s) => Array.from(s.values, formatCell)),
    );
    assert.deepEqual(await shownHeads(page), want);
    await page.click('.trained-heads details summary');
    const losses = await page.$$eval('.trained-heads details tbody tr', (rows) => rows.map((r) => r.lastChild.title));
    assert.deepEqual(losses, [...Array.from(pass.losses, String), 'none']);
    // The stepper below follows: the typed ids through the shipped model, every position's loss counted.
    const stepped = e.run({ kind: 'model', model: SHIPPED.model, tokens });
    await page.waitForFunction(() =>
      /^The typed sequence/.test(document.getElementById('training-stepper-what').textContent),
    );
    // One layer's path (embeddings; x, head 0's 8 stages, all heads, concat, output, residual; the
    // prediction's 4) of the 45 stages two layers of two heads trace.
    assert.equal(stepped.stages.length, 45);
    assert.equal(await page.textContent('#training-stepper .step-text'), `Stage 1 of ${1 + 13 + 4}`);
    await page.click('#training-stepper #stage-title');
    await page.keyboard.press('End');
    await page.waitForSelector('#training-stepper[data-stage="loss"]');
    const mean = Array.from(pass.losses).reduce((a, b) => a + b, 0) / pass.losses.length;
    const [shownLoss] = await resultFulls(page);
    assert.equal(shownLoss, String(stepped.stages.at(-1).values[0]));
    assert.ok(Math.abs(Number(shownLoss) - mean) <= 1e-12, `${shownLoss} against the mean ${mean}`);
    await page.fill('#training-tokens', '3 40');
    await page.press('#training-tokens', 'Enter');
    await page.waitForFunction(() => document.getElementById('training-tokens-error').textContent !== '');
    assert.match(
      await page.textContent('#training-tokens-error'),
      /^tokens\[1\]: 40 is outside the vocabulary \[0, 31\]/,
    );
    assert.equal((await shownHeads(page)).length, 4, 'the heads shown before stay');
    assert.deepEqual(await resultFulls(page), [shownLoss], 'and so does the stepper');
  });
});

test('a bad seed is refused by the engine, named, and the page can train again', async () => {
  await withPage(async (page) => {
    for (const [seed, message] of [
      ['-1', /seed: -1 is out of range \[0, 4294967295\]/],
      ['1.5', /seed: 1\.5 is not a whole number/],
      ['', /step 25 of 1000/], // blank: the engine's default seed 0, which trains
    ]) {
      await page.fill('#training-seed', seed);
      await page.click('#training-train');
      await page.waitForFunction(() => !/starting/.test(document.getElementById('training-status').textContent));
      assert.match(await page.textContent('#training-status'), message);
      if (seed === '') break;
      assert.equal(await page.isEnabled('#training-train'), true, 'Train can be pressed again');
    }
    await page.click('#training-reset');
  });
});

test('the take-away files are the model shown: its JSON in full, the script for its sequence', async () => {
  await withPage(async (page) => {
    const [json] = await Promise.all([page.waitForEvent('download'), page.click('#training-json')]);
    const model = JSON.parse(await downloadedText(json));
    assert.equal(json.suggestedFilename(), 'trained-model.json');
    assert.deepEqual(model.params.W_U.values, Array.from(SHIPPED.model.params.W_U.values));
    const [script] = await Promise.all([page.waitForEvent('download'), page.click('#training-script')]);
    const tokens = env.engine.taskBatch(SHIPPED.spec, { count: 1 }).tokens[0].slice(0, 24);
    assert.match(await downloadedText(script), new RegExp(`tokens = \\[${tokens.join(', ')}\\]`));
    await page.click('.training-npy summary');
    const [npy] = await Promise.all([page.waitForEvent('download'), page.click('#training-npy button >> nth=0')]);
    assert.equal(npy.suggestedFilename(), 'W_E.npy');
  });
});

for (const colorScheme of ['light', 'dark'])
  test(`axe finds no violation (${colorScheme})`, async () => {
    await withPage(
      async (page) => {
        // One trained head's heatmap of the four: the others are the same view (the stepper's, which
        // tests/browser/a11y-walk.mjs checks at every stage), and each adds ~600 cells to check.
        const { violations } = await axeBuilder(page).exclude('.trained-head ~ .trained-head').analyze();
        assert.deepEqual(
          violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`),
          [],
        );
        await page.screenshot({
          path: `${process.cwd()}/build/screenshots/training-1280-${colorScheme}.png`,
          fullPage: true,
        });
      },
      { colorScheme },
    );
  });

const HEAD_CELLS = '#trained-heads td.hm-cell';

test('training.html holds its shipped run as markup: read without JavaScript, drawn over unmoved', async () => {
  const off = await env.browser.newContext({ viewport: { width: 412, height: 823 }, javaScriptEnabled: false });
  const still = await off.newPage();
  await still.goto(`${env.server.url}training.html`);
  const drawn = await still.$$eval(HEAD_CELLS, shownCells);
  assert.equal(drawn.length, 4 * 24 * 24, "every trained head's weights");
  assert.match(await still.textContent('#training-status'), /^The shipped run: trained by this engine at build time/);
  assert.equal(await still.$$eval('#training-charts figure.training-chart', (f) => f.length), 4);
  assert.ok(await still.$('.training-model .katex .katex-html'), 'the formulas typeset');
  // Each cell is filled by a class of the page's rules, in the colour its number has live.
  const drawnFills = await still.$$eval(HEAD_CELLS, (tds) => tds.map((td) => getComputedStyle(td).backgroundColor));
  assert.ok(
    drawnFills.every((f) => /^rgb\(/.test(f)),
    `every drawn cell filled: ${drawnFills.find((f) => !/^rgb\(/.test(f))}`,
  );
  await off.close();
  await withPage(
    async (page) => {
      assert.deepEqual(await page.$$eval(HEAD_CELLS, shownCells), drawn, 'the live heads show the drawn numbers');
      const liveFills = await page.$$eval(HEAD_CELLS, (tds) => tds.map((td) => getComputedStyle(td).backgroundColor));
      assert.deepEqual(liveFills, drawnFills, 'and fill them in the drawn colours');
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      const shifted = await page.evaluate(() => window.shifted);
      assert.ok(shifted.reduce((sum, s) => sum + s.value, 0) < 1e-4, `layout shifts ${JSON.stringify(shifted)}`);
    },
    { width: 412, height: 823, init: watchShifts },
  );
});
