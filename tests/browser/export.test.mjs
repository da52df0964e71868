// The export menu in headless Chromium: a stage of every chapter downloaded as JSON, CSV, .npy
// and a numpy script and checked against the engine's trace (the .npy byte for byte in node and
// through numpy.load, the script run by python3 to 1e-12); numpy scripts for every preset and
// some custom specs, and every gradient of two backward presets; the SVG alone in a browser and
// the PNG at twice its size; the link and the element snippet; downloads from file:// and from
// the element's shadow DOM under the CSP; axe with the menu open. Kind mla's scripts, every
// stage of three cases.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { formatCell } from '../../web/model/format.js';
import { numpyScript } from '../../web/model/export/numpy-script.js';
import { BACKWARD_STAGES } from '../../web/model/stages/backward.js';
import { DIST } from '../../scripts/serve.mjs';
import { CSP, SHOTS, axeBuilder, cellBands, newPage, openPage, shownCells, urlMatching, useEnv } from './harness.mjs';
import {
  caseHash,
  f64Bytes,
  limited,
  maxDifference,
  pngSize,
  python,
  readCsv,
  readNpy,
  readPrinted,
} from './export-helpers.mjs';

const env = useEnv();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'export-test-'));

const SERIOUS = new Set(['serious', 'critical']);
const presetOf = (id) => env.engine.presets().find((p) => p.id === id);

// One stage worth exporting per chapter (−∞ cells, a shared K/V head, a decode step, a tile);
// a chapter not listed here exports its first example's weights.
const PICKS = {
  attention: ['lesson-causal', (s) => s.id === 'masked'],
  cross: ['cross-padding', (s) => s.id === 'weights' && s.head === 1],
  gqa: ['gqa-4-2', (s) => s.id === 'k' && s.kvHead === 1],
  'encoder-layer': ['encoder-layer', (s) => s.id === 'ffn_pre'],
  'kv-cache': ['kv-cache-gqa', (s) => s.id === 'k_cache' && s.step === 3 && s.kvHead === 1],
  flash: ['flash-causal', (s) => s.id === 'tile_scores' && s.step === 2],
  backward: ['backward-gqa', (s) => s.id === 'd_v' && s.kvHead === 1],
};

function chapterCases() {
  const chapters = [...new Set(env.engine.presets().map((p) => p.chapter))];
  return chapters.map((chapter) => {
    const [preset, pick] = PICKS[chapter] ?? [
      env.engine.presets().find((p) => p.chapter === chapter).id,
      (s) => s.id === 'weights',
    ];
    const trace = env.engine.run({ preset });
    return { chapter, preset, trace, stage: trace.stages.find(pick) ?? trace.stages.at(-1) };
  });
}

async function waitForView(page, stage, root = 'body') {
  const want = [stage.id, stage.head === null ? '' : String(stage.head), stage.step === null ? '' : String(stage.step)];
  await page.waitForFunction(
    ([sel, w]) => {
      const d = document.querySelector(sel)?.dataset;
      return d && d.stage === w[0] && d.head === w[1] && (d.step ?? '') === w[2];
    },
    [root, want],
  );
}

async function openMenu(page, scope = '') {
  if (await page.isVisible(`${scope} .export-panel`)) return;
  await page.click(`${scope} .export-toggle`);
  await page.waitForSelector(`${scope} .export-panel:not([hidden])`);
}

// Chromium drops an <a download> click when one page has started about ten downloads within
// the last second (no person clicks that fast): the tests leave 150 ms between two.
let lastDownload = 0;

// Presses a format's button and returns the download: { name, file, bytes }.
async function download(page, format, scope = '') {
  await openMenu(page, scope);
  await new Promise((done) => setTimeout(done, Math.max(0, lastDownload + 150 - Date.now())));
  lastDownload = Date.now();
  const [dl] = await Promise.all([
    page.waitForEvent('download', { timeout: 10000 }),
    page.click(`${scope} .export-file[data-format="${format}"]`),
  ]).catch(async (e) => {
    throw new Error(
      `${format}: no download (${await page.textContent(`${scope} .export-status`)}; ${page.url()}): ${e.message}`,
    );
  });
  const file = path.join(tmp, dl.suggestedFilename());
  await dl.saveAs(file);
  return { name: dl.suggestedFilename(), file, bytes: readFileSync(file) };
}

const fromJson = (v) => (typeof v === 'string' ? Number(v) : v);

function checkJson(bytes, stage) {
  const doc = JSON.parse(bytes.toString('utf8'));
  assert.match(doc.nonFinite, /"-Infinity"/, 'the header says how −∞ is written');
  assert.deepEqual(
    [doc.id, doc.head, doc.step, doc.shape, doc.equation, doc.symbolic],
    [stage.id, stage.head, stage.step, [...stage.shape], stage.equation, stage.symbolic],
  );
  assert.deepEqual(doc.values.flat().map(fromJson), Array.from(stage.values), `${stage.id}: JSON values`);
}

async function checkCsv(bytes, stage, page, scope = '#figure') {
  const rows = readCsv(bytes.toString('utf8'));
  const labels = (sel) => page.$$eval(`${scope} .is-result ${sel}`, (t) => t.map((x) => x.textContent));
  assert.deepEqual(rows[0].slice(1), await labels('th.hm-col'), 'column labels as the heatmap shows them');
  assert.deepEqual(
    rows.slice(1).map((r) => r[0]),
    await labels('th.hm-row'),
    'row labels as the heatmap shows them',
  );
  assert.deepEqual(
    rows.slice(1).flatMap((r) => r.slice(1).map(Number)),
    Array.from(stage.values),
    `${stage.id}: CSV values`,
  );
}

function checkNpy(bytes, stage) {
  const npy = readNpy(bytes);
  assert.deepEqual(npy.shape, [...stage.shape]);
  assert.ok(npy.data.equals(f64Bytes(Array.from(stage.values))), `${stage.id}: .npy data byte for byte`);
}

// Runs a script with python3; its printed stage against the engine's, to 1e-12.
async function checkScript(file, stage, what) {
  const printed = readPrinted(await python([file]));
  assert.deepEqual(printed.shape, [...stage.shape], `${what}: shape`);
  const diff = maxDifference(printed.values, Array.from(stage.values));
  assert.ok(diff <= 1e-12, `${what}: numpy differs from the engine by ${diff}`);
  return diff;
}

const NPY_LOAD =
  'import sys, numpy\nfor f in sys.argv[1:]:\n    a = numpy.load(f)\n    ' +
  'print(a.dtype.str, a.shape, a.flags.c_contiguous, a.tobytes().hex())';

const EXPORT_EVERY_CHAPTER_TITLE =
  'a stage of every chapter: JSON, CSV and .npy are the engine\u2019s ' +
  'trace; numpy.load reads the .npy bit for bit; the script reprints it';
test(EXPORT_EVERY_CHAPTER_TITLE, async () => {
  const { page, context } = await openPage(env, '#chapter=attention');
  const npys = [];
  const scripts = [];
  for (const c of chapterCases()) {
    await page.evaluate((h) => {
      window.location.hash = h;
    }, caseHash(c));
    await waitForView(page, c.stage);
    checkJson((await download(page, 'json')).bytes, c.stage);
    await checkCsv((await download(page, 'csv')).bytes, c.stage, page);
    const npy = await download(page, 'npy');
    checkNpy(npy.bytes, c.stage);
    npys.push({ file: npy.file, stage: c.stage });
    scripts.push({ file: (await download(page, 'py')).file, stage: c.stage, what: `${c.preset} ${c.stage.id}` });
  }
  assert.ok(
    npys.some((n) => Array.from(n.stage.values).includes(-Infinity)),
    'a stage with −∞ was exported',
  );
  const loaded = (await python(['-c', NPY_LOAD, ...npys.map((n) => n.file)])).trim().split('\n');
  npys.forEach((n, i) => {
    const [r, c] = n.stage.shape;
    assert.equal(
      loaded[i],
      `<f8 (${r}, ${c}) True ${f64Bytes(Array.from(n.stage.values)).toString('hex')}`,
      `numpy.load(${path.basename(n.file)})`,
    );
  });
  await limited(scripts.map((s) => () => checkScript(s.file, s.stage, s.what)));
  assert.deepEqual(page.problems, []);
  await context.close();
});

// The stage a preset's script prints: a decode step, a tile, else the most derived stage (of a
// backward pass, dX; of the model, its loss).
function interesting(trace) {
  const last = trace.config.numHeads - 1;
  const find = (pred) => trace.stages.find(pred);
  return (
    find((s) => s.id === 'd_x') ??
    find((s) => s.id === 'loss') ??
    find((s) => s.id === 'tile_out' && s.step === 3) ??
    find((s) => s.id === 'weights' && s.step === trace.config.seqLen - 2 && s.head === last) ??
    find((s) => s.id === 'norm2') ??
    find((s) => s.id === 'capped' && s.head === last) ??
    find((s) => s.id === 'sink' && s.head === last) ??
    find((s) => s.id === 'output' && s.step === null) ??
    find((s) => s.id === 'masked' && s.head === last) ??
    find((s) => s.id === 'weights' && s.head === last)
  );
}

const r = (rows, cols, k) =>
  Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => Math.round(1000 * Math.sin(7 * i + 3 * j + k)) / 1000),
  );
// Decoding with RoPE at offset 2 into a window's ring of 3 cache rows, grouped K/V heads.
const RING = {
  kind: 'kv-cache',
  seed: 5,
  seqLen: 6,
  dModel: 8,
  numHeads: 4,
  numKvHeads: 2,
  weightScale: 1,
  rope: { offset: 2 },
  window: 3,
};

const CUSTOM = [
  {
    seed: 7,
    skip: 3,
    seqLen: 4,
    dModel: 6,
    numHeads: 3,
    numKvHeads: 1,
    dK: 2,
    dV: 3,
    causal: true,
    scaleScores: false,
  },
  { kind: 'cross', seed: 9, queryLen: 3, keyLen: 5, dModel: 4, numHeads: 2, validKeys: 2, outputProjection: false },
  {
    kind: 'encoder-layer',
    seed: 1,
    seqLen: 3,
    dModel: 8,
    numHeads: 2,
    dFF: 10,
    causal: true,
    weightScale: 0.3,
    prunedHeads: [0],
  },
  {
    kind: 'kv-cache',
    seed: 5,
    seqLen: 4,
    dModel: 8,
    numHeads: 2,
    numKvHeads: 1,
    outputProjection: false,
    weightScale: 0.7,
  },
  { kind: 'flash', seed: 11, seqLen: 7, dModel: 6, dK: 3, dV: 2, blockRows: 3, blockCols: 2, scaleScores: false },
  { seed: 42, seqLen: 5, dModel: 16, numHeads: 4, weightScale: 1 },
  { seed: 42, seqLen: 5, dModel: 16, numHeads: 4, numKvHeads: 2, prunedHeads: [1, 3] },
  { X: r(3, 4, 0), W_Q: [r(4, 2, 1), r(4, 2, 2)], W_K: [r(4, 2, 3)], W_V: [r(4, 2, 4)], W_O: r(4, 4, 5), causal: true },
  // Positions and masks: RoPE on 2 columns with ALiBi and a prefix inside documents and padding;
  // a sinusoidal encoding without a mask; decoding with RoPE, ALiBi and a window's ring; flash
  // with a window.
  {
    seed: 42,
    seqLen: 7,
    dModel: 12,
    numHeads: 3,
    weightScale: 1,
    rope: { base: 100, dims: 2, convention: 'half-split', offset: 1 },
    alibi: true,
    prefix: 2,
    documents: [4, 3],
    validKeys: 6,
  },
  { seed: 3, seqLen: 5, dModel: 6, numHeads: 2, positionalEncoding: 'sinusoidal', alibi: true },
  { ...RING, alibi: true },
  { kind: 'flash', seed: 2, seqLen: 8, dModel: 6, blockRows: 2, blockCols: 2, window: 3, weightScale: 1 },
  // QK-norm with gains: before RoPE under grouped K/V heads; in cross-attention (the queries'
  // gains 1); decoding, each new key normalised before it is turned and cached, in a window's ring.
  {
    seed: 42,
    seqLen: 6,
    dModel: 16,
    numHeads: 4,
    numKvHeads: 2,
    weightScale: 3,
    causal: true,
    rope: { convention: 'half-split' },
    qkNorm: true,
    qNormGain: [1.5, 0.5, -1, 2],
    kNormGain: [0.25, 1, 3, -0.5],
  },
  {
    kind: 'cross',
    seed: 9,
    queryLen: 3,
    keyLen: 5,
    dModel: 8,
    numHeads: 2,
    validKeys: 4,
    qkNorm: true,
    kNormGain: [2, -1, 0.5, 1],
  },
  {
    ...RING,
    qkNorm: true,
    qNormGain: [0.5, 2],
    kNormGain: [-1.5, 1],
  },
  // StreamingLLM's sink tokens: a window of 4 whose first 2 tokens stay seen, under grouped K/V
  // heads and RoPE; decoding, a cache of 5 rows (2 pinned, a ring of 3) with RoPE and ALiBi at
  // the tokens' own positions.
  {
    seed: 42,
    seqLen: 8,
    dModel: 16,
    numHeads: 4,
    numKvHeads: 2,
    weightScale: 1,
    window: 4,
    sinkTokens: 2,
    rope: {},
  },
  {
    kind: 'kv-cache',
    seed: 42,
    seqLen: 9,
    dModel: 16,
    numHeads: 4,
    numKvHeads: 2,
    weightScale: 1,
    window: 5,
    sinkTokens: 2,
    rope: { offset: 1 },
    alibi: true,
  },
  // The backward pass: sinusoidal positions and padding keys without W_O (dO as wide as the
  // concat); explicit matrices whose dO is drawn (the spec's default seed).
  {
    kind: 'backward',
    seed: 4,
    seqLen: 5,
    dModel: 6,
    numHeads: 2,
    positionalEncoding: 'sinusoidal',
    validKeys: 4,
    outputProjection: false,
    weightScale: 1,
  },
  {
    kind: 'backward',
    X: r(3, 4, 0),
    W_Q: [r(4, 2, 1), r(4, 2, 2)],
    W_K: [r(4, 2, 3)],
    W_V: [r(4, 2, 4)],
    causal: true,
  },
  {
    kind: 'cross',
    X_q: r(2, 4, 6),
    X_kv: r(3, 4, 7),
    W_Q: [r(4, 2, 8)],
    W_K: [r(4, 2, 9)],
    W_V: [r(4, 3, 10)],
    validKeys: 2,
  },
];

// Every gradient stage of these is run (every stage the table has, between them: RoPE's four
// in backward-rope); every other backward preset runs its dX.
const BACKWARD_PRESETS = ['backward-causal', 'backward-gqa', 'backward-rope'];
const ROPE_GRADIENTS = ['d_q_rot', 'd_q_unrot', 'd_k_rot', 'd_k_unrot'];

// QK-norm's stages, printed beside a preset's or a custom spec's picks (the last head's; a decode
// step's last): the output reads them only through RoPE and the scores.
const NORMED = ['q_norm', 'k_norm'];

// Under sink tokens, the stages their mask or their cache's pinned rows shape, printed beside a
// custom spec's picks (the last head's; a decode step's last, once the ring has wrapped).
const PINNED = ['masked', 'weights', 'k_cache', 'v_cache', 'causal_reference'];

const NUMPY_SCRIPTS_TITLE =
  'numpy scripts: every preset at an interesting stage and custom specs (weightScale, ' +
  'prunedHeads, explicit matrices, positions and masks, QK-norm, sink tokens, the backward pass) print the ' +
  'engine\u2019s values to 1e-12; every gradient stage of three backward presets (grouped K/V heads; RoPE)';
test(NUMPY_SCRIPTS_TITLE, async () => {
  const jobs = [];
  const gradient = []; // whether job i prints a gradient stage
  const add = (spec, preset, stage, trace, what) => {
    const text = numpyScript({
      config: trace.config,
      spec: preset?.spec ?? spec,
      trace,
      stage,
      title: what,
      preset: preset?.id ?? null,
      chapter: preset?.chapter ?? null,
    });
    const file = path.join(tmp, `script-${jobs.length}.py`);
    writeFileSync(file, text);
    jobs.push(() => checkScript(file, stage, what));
    gradient.push(stage.id.startsWith('d_'));
  };
  for (const preset of env.engine.presets()) {
    const trace = env.engine.run({ preset: preset.id });
    const stage = interesting(trace);
    add({ preset: preset.id }, preset, stage, trace, `${preset.id} ${stage.id}/${stage.head}@${stage.step}`);
    for (const normed of NORMED.map((id) => trace.stages.findLast((s) => s.id === id)).filter(Boolean))
      add({ preset: preset.id }, preset, normed, trace, `${preset.id} ${normed.id}/${normed.head}`);
  }
  assert.ok(jobs.length >= 13, 'every preset has a script');
  // The trained model: a layer-1 head's weights, the streams, the prediction, each position's loss.
  const model = env.engine.run({ preset: 'trained-induction' });
  const last = (id, step = null) => model.stages.findLast((s) => s.id === id && (step === null || s.step === step));
  for (const stage of [
    last('weights', 1),
    last('x', 1),
    last('residual', 1),
    last('probabilities'),
    last('token_loss'),
  ])
    add(
      { preset: 'trained-induction' },
      presetOf('trained-induction'),
      stage,
      model,
      `trained ${stage.id}@${stage.step}`,
    );
  for (const id of BACKWARD_PRESETS) {
    const trace = env.engine.run({ preset: id });
    const gradients = trace.stages.slice(trace.stages.findIndex((s) => s.id === 'd_output'));
    const lastOfEach = new Map(gradients.map((s) => [s.id, s])); // at the last head, or K/V head
    // Under RoPE d_q and d_k are each two stages: at the turned rows, then turned back.
    const absent = id === 'backward-rope' ? ['d_q', 'd_k'] : ROPE_GRADIENTS;
    const want = BACKWARD_STAGES.map((s) => s.id).filter((s) => !absent.includes(s));
    assert.deepEqual([...lastOfEach.keys()].sort(), want.sort(), `${id}: every gradient`);
    for (const stage of lastOfEach.values())
      add({ preset: id }, presetOf(id), stage, trace, `${id} ${stage.id}/${stage.head}/${stage.kvHead}`);
  }
  for (const spec of CUSTOM) {
    const trace = env.engine.run(spec);
    const pinned = spec.sinkTokens === undefined ? [] : PINNED;
    const also = ['x_pos', ...NORMED, 'q_rot', 'k_rot', 'biased', 'd_w_k', ...pinned].map((id) =>
      trace.stages.findLast((s) => s.id === id),
    );
    const picked = [interesting(trace), trace.stages.at(-1), trace.stages[1], ...also.filter(Boolean)];
    for (const stage of new Set(picked))
      add(spec, null, stage, trace, `${JSON.stringify(spec).slice(0, 60)} ${stage.id}/${stage.head}@${stage.step}`);
  }
  const diffs = await limited(jobs);
  console.log(`# ${diffs.length} scripts, largest difference ${Math.max(...diffs)}`);
  const backward = diffs.filter((_, i) => gradient[i]);
  console.log(`# ${backward.length} of them gradient stages, largest difference ${Math.max(...backward)}`);
});

// Kind mla (DeepSeek-V2's multi-head latent attention), every stage of each: the preset; given
// matrices, 2 heads with a RoPE part of 2 (half-split, base 100), not causal; drawn without a RoPE
// part (d_r = 0), after 2 skipped normals, unscaled scores.
const LATENT = [
  { preset: 'modern-mla' },
  {
    kind: 'mla',
    X: r(4, 6, 0),
    W_DKV: r(6, 3, 1),
    W_UK: [r(3, 2, 2), r(3, 2, 3)],
    W_UV: [r(3, 3, 4), r(3, 3, 5)],
    W_Q: [r(6, 2, 6), r(6, 2, 7)],
    W_KR: r(6, 2, 8),
    W_QR: [r(6, 2, 9), r(6, 2, 10)],
    W_O: r(6, 6, 11),
    rope: { base: 100, convention: 'half-split' },
  },
  {
    kind: 'mla',
    seed: 3,
    skip: 2,
    seqLen: 5,
    dModel: 8,
    numHeads: 2,
    dK: 3,
    dV: 2,
    dLatent: 4,
    dRope: 0,
    causal: true,
    scaleScores: false,
  },
];
// The stages of each head, beside x, c_kv, k_rope, concat and output: with a RoPE part q_rope,
// under a causal mask masked.
const LATENT_HEAD = ['q', 'k', 'v', 'q_absorbed', 'scores', 'scaled', 'weights', 'latent_head', 'head'];

const LATENT_TITLE =
  'numpy scripts of kind mla: every stage of the preset, of given matrices with a half-split RoPE part ' +
  'and of a drawn spec without one prints the engine\u2019s values to 1e-12';
test(LATENT_TITLE, async () => {
  const jobs = [];
  for (const [n, spec] of LATENT.entries()) {
    const preset = spec.preset ? presetOf(spec.preset) : null;
    const trace = env.engine.run(spec);
    const c = trace.config;
    const perHead = [...LATENT_HEAD, ...(c.dRope ? ['q_rope'] : []), ...(c.causal ? ['masked'] : [])];
    const want = [
      'x',
      'c_kv',
      ...(c.dRope ? ['k_rope'] : []),
      ...Array.from({ length: c.numHeads }, (_, h) => perHead.map((id) => `${id}/${h}`)).flat(),
      'concat',
      'output',
    ];
    const got = trace.stages.map((s) => (s.head === null ? s.id : `${s.id}/${s.head}`));
    assert.deepEqual(got.toSorted(), want.toSorted(), `case ${n}: the stages`);
    for (const stage of trace.stages) {
      const what = `mla case ${n} ${stage.id}/${stage.head}`;
      const text = numpyScript({ config: c, spec: preset?.spec ?? spec, trace, stage, preset: preset?.id ?? null });
      const file = path.join(tmp, `latent-${n}-${jobs.length}.py`);
      writeFileSync(file, text);
      jobs.push(() => checkScript(file, stage, what));
    }
  }
  const diffs = await limited(jobs);
  console.log(`# ${diffs.length} MLA scripts, largest difference ${Math.max(...diffs)}`);
});

const svgSize = (svg) => /<svg[^>]* width="(\d+)" height="(\d+)"/.exec(svg).slice(1).map(Number);

const SVG_PNG_TITLE =
  'the figure as SVG opens on its own in Chromium with the page\u2019s ' +
  'colours, numbers and labels; the PNG is drawn at twice its size';
test(SVG_PNG_TITLE, async () => {
  const cases = [
    ['#chapter=attention&preset=lesson-causal&stage=weights&head=0', 'light'],
    ['#chapter=encoder-layer&preset=encoder-layer&stage=output', 'dark'],
  ];
  for (const [hash, colorScheme] of cases) {
    const { page, context } = await openPage(env, hash, { colorScheme });
    const svg = await download(page, 'svg');
    const png = await download(page, 'png');
    const text = svg.bytes.toString('utf8');
    assert.doesNotMatch(
      text,
      /<style|<script|<image|href=|@import|url\((?!#)/,
      'self-contained: no CSS, script, image or outside reference',
    );
    const fills = await page.$$eval('#figure td.hm-cell', cellBands);
    const values = await page.$$eval('#figure td.hm-cell', shownCells);
    assert.equal(fills.length, values.length);
    for (const [i, fill] of fills.entries()) {
      const value = values[i];
      const hex = `#${(fill.match(/\d+/g) ?? []).map((n) => Number(n).toString(16).padStart(2, '0')).join('')}`;
      if (fill.startsWith('rgb'))
        assert.ok(
          text.includes(`fill="${fill}"`) || text.includes(`fill="${hex}"`),
          `the cell colour ${fill} is in the SVG`,
        );
      assert.ok(text.includes(`>${value}</text>`), `the number ${value} is in the SVG`);
    }
    for (const label of await page.$$eval('#figure .is-result th', (t) => t.map((x) => x.textContent)))
      assert.ok(text.includes(`>${label}</text>`), `label ${label}`);
    const [width, height] = svgSize(text);
    assert.deepEqual(pngSize(png.bytes), { width: 2 * width, height: 2 * height }, 'PNG at 2×');
    writeFileSync(path.join(SHOTS, `export-${png.name}`), png.bytes);
    const view = await context.newPage();
    for (const w of [1280, 375]) {
      await view.setViewportSize({ width: w, height: Math.min(height, 1600) });
      await view.goto(pathToFileURL(svg.file).href);
      assert.equal(
        await view.evaluate(
          () => `${document.documentElement.localName}:${document.getElementsByTagName('parsererror').length}`,
        ),
        'svg:0',
        'well-formed SVG',
      );
      await view.screenshot({ path: path.join(SHOTS, `export-${svg.name.replace('.svg', '')}-svg-${w}.png`) });
    }
    assert.deepEqual(page.problems, []);
    await context.close();
  }
});

const EXPORT_MENU_TITLE =
  'x opens the menu (aria-keyshortcuts), Escape closes it, axe finds nothing serious with it open; ' +
  'the link reopens this stage; Copy copies or selects; the snippet is an element at this stage';
test(EXPORT_MENU_TITLE, async () => {
  const hash =
    '#chapter=gqa&tokens=a+b+c+d&dModel=8&heads=4&kvHeads=2&seed=7&causal=1&wo=1&scale=1&stage=weights&head=3';
  const { page, context } = await openPage(env, hash);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url.replace(/\/$/, '') });
  await waitForView(page, { id: 'weights', head: 3, step: null });
  assert.equal(await page.getAttribute('.export-toggle', 'aria-keyshortcuts'), 'x');
  await page.click('h2#stage-title');
  await page.keyboard.press('x');
  await page.waitForSelector('.export-panel:not([hidden])');
  assert.equal(await page.getAttribute('.export-toggle', 'aria-expanded'), 'true');
  assert.equal(
    await page.evaluate(() => document.activeElement.dataset.format),
    'json',
    'the first download has the focus',
  );
  const link = await page.inputValue('#export-link');
  const escaped = link.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  assert.equal(link, await urlMatching(page, new RegExp(`^${escaped}$`)), 'the page\u2019s URL with its hash');
  await page.click('.export-copy-button[aria-describedby="export-link"]');
  await page.waitForFunction(() => /Copied|clipboard/.test(document.querySelector('.export-status').textContent));
  if ((await page.textContent('.export-status')) === 'Copied.')
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
  else
    assert.equal(
      await page.evaluate(() =>
        document.activeElement.value.slice(document.activeElement.selectionStart, document.activeElement.selectionEnd),
      ),
      link,
    );
  const snippet = await page.inputValue('#export-snippet');
  assert.equal(
    snippet,
    '<attention-stepper chapter="gqa" tokens="a b c d" d-model="8" ' +
      'seed="7" causal stage="weights" head="3"></attention-stepper>',
  );
  const trace = env.engine.run({
    kind: 'self',
    seqLen: 4,
    dModel: 8,
    numHeads: 4,
    numKvHeads: 2,
    seed: 7,
    causal: true,
    outputProjection: true,
    scaleScores: true,
  });
  const stage = trace.stages.find((s) => s.id === 'weights' && s.head === 3);
  await checkScript((await download(page, 'py')).file, stage, 'custom gqa weights/3 from the page');
  const { violations } = await axeBuilder(page).analyze();
  assert.deepEqual(
    violations.filter((v) => SERIOUS.has(v.impact)).map((v) => `${v.id}: ${v.nodes[0].target}`),
    [],
    'axe with the menu open',
  );
  await page.focus('.export-file[data-format="json"]');
  await page.keyboard.press('Escape');
  assert.equal(await page.isVisible('.export-panel'), false);
  assert.equal(
    await page.evaluate(() => document.activeElement.className),
    'export-toggle',
    'the focus goes back to the button',
  );
  const again = await context.newPage();
  await again.goto(link);
  await again.waitForSelector('body[data-ready="true"][data-stage="weights"][data-head="3"]');
  const cells = (p, scope) => p.$$eval(`${scope} .is-result td.hm-cell`, shownCells);
  const shown = await cells(page, '#figure');
  assert.deepEqual(
    shown.filter((t) => t !== '0'),
    Array.from(stage.values, formatCell).filter((t) => t !== '0.000'),
    'the engine\u2019s weights (masked ones shown as 0)',
  );
  assert.deepEqual(await cells(again, '#figure'), shown, 'the link shows the same stage');
  await again.route(`${env.server.url}snippet.html`, (route) =>
    route.fulfill({
      status: 200,
      headers: { 'Content-Type': 'text/html', 'Content-Security-Policy': CSP },
      body:
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>snippet</title><script ` +
        `defer src="attention-wasm.classic.js"></script><script defer ` +
        `src="attention-stepper.classic.js"></script></head><body>${snippet}</body></html>`,
    }),
  );
  await again.goto(`${env.server.url}snippet.html`);
  await again.waitForSelector('attention-stepper[data-ready="true"][data-stage="weights"][data-head="3"]');
  assert.deepEqual(await cells(again, 'attention-stepper'), shown, 'the snippet shows the same stage');
  assert.deepEqual(page.problems, []);
  await context.close();
});

const FILE_URL_DOWNLOADS_TITLE =
  'downloads from file:// and from the element\u2019s shadow DOM under the CSP, with ' +
  'no console error; axe finds nothing serious in the element with the menu open';
test(FILE_URL_DOWNLOADS_TITLE, async () => {
  const { page, context } = await newPage(env);
  const kv = env.engine
    .run({ preset: 'kv-cache-gqa' })
    .stages.find((s) => s.id === 'weights' && s.head === 1 && s.step === 2);
  await page.goto(
    `${pathToFileURL(path.join(DIST, 'index.html')).href}#chapter=kv-cache&preset=kv-cache-gqa` +
      '&stage=weights&head=1&step=2',
  );
  await waitForView(page, kv);
  checkJson((await download(page, 'json')).bytes, kv);
  assert.ok((await download(page, 'png')).bytes.length > 1000, 'a PNG from file://');
  assert.match(
    await page.inputValue('#export-link'),
    /^file:\/\/.*index\.html#chapter=kv-cache&preset=kv-cache-gqa&stage=weights&head=1&step=2$/,
  );
  assert.deepEqual(page.problems, []);

  const tile = env.engine.run({ preset: 'flash-causal' }).stages.find((s) => s.id === 'tile_out' && s.step === 3);
  await page.route(`${env.server.url}element.html`, (route) =>
    route.fulfill({
      status: 200,
      headers: { 'Content-Type': 'text/html', 'Content-Security-Policy': CSP },
      body:
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>element</title><script defer ' +
        'src="attention-wasm.classic.js"></script><script defer ' +
        'src="attention-stepper.classic.js"></script></head><body><main><attention-stepper chapter="flash" ' +
        'preset="flash-causal" stage="tile_out" step="3"></attention-stepper></main></body></html>',
    }),
  );
  await page.goto(`${env.server.url}element.html`);
  await page.waitForSelector('attention-stepper[data-ready="true"]');
  await waitForView(page, tile, 'attention-stepper');
  await page.click('attention-stepper h2#stage-title');
  await page.keyboard.press('x');
  await page.waitForSelector('attention-stepper .export-panel:not([hidden])');
  checkNpy((await download(page, 'npy', 'attention-stepper')).bytes, tile);
  await checkCsv((await download(page, 'csv', 'attention-stepper')).bytes, tile, page, 'attention-stepper #figure');
  await checkScript(
    (await download(page, 'py', 'attention-stepper')).file,
    tile,
    'flash-causal tile_out@3 from the element',
  );
  assert.match((await download(page, 'svg', 'attention-stepper')).bytes.toString('utf8'), /^<\?xml/);
  assert.ok((await download(page, 'png', 'attention-stepper')).bytes.length > 1000, 'a PNG from the shadow DOM');
  assert.deepEqual(page.problems, [], 'no console error or CSP violation');
  // axe itself injects a <style> (a CSP violation of its own): checked last.
  const found = (await axeBuilder(page).analyze()).violations
    .filter((v) => SERIOUS.has(v.impact))
    .map((v) => `element: ${v.id}`);
  const link = await page.inputValue('attention-stepper #export-link');
  // From inside an embed, the full page at the same view.
  assert.equal(link, `${env.server.url}index.html#chapter=flash&preset=flash-causal&stage=tile_out&head=0&step=3`);
  assert.equal(
    await page.inputValue('attention-stepper #export-snippet'),
    '<attention-stepper chapter="flash" preset="flash-causal" stage="tile_out" head="0" step="3"></attention-stepper>',
  );
  await page.goto(link);
  await page.waitForSelector('body[data-ready="true"][data-stage="tile_out"][data-step="3"]');
  assert.deepEqual(found, []);
  await context.close();
});
