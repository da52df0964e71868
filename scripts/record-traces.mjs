// Records the engine's traces as the model tests' fixtures (tests/fixtures/traces/): the preset
// catalog, every preset's and each custom spec's trace with the explain answers the tests ask
// for, and what the engine made of the specs the page builds in the model tests.
// tests/wasm/trace-fixtures.test.mjs fails when the engine no longer gives exactly these.
// Usage: node scripts/record-traces.mjs   (after bash scripts/build.sh)
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stageById } from '../web/model/stage-table.js';
import { arrayPool, cellKey, encodeValue, FIXTURE_DIR, VERSION } from '../tests/model/fixture-format.mjs';

const GENERATOR = 'scripts/record-traces.mjs';

// Specs no preset covers: d_k ≠ d_v with causal, unscaled scores; a cross pass with padding keys
// and unscaled scores; 6 query heads over 2 K/V heads, causal; a causal encoder layer with its
// own d_ff; two heads without W_O (their concat is the output).
export const CUSTOM_SPECS = {
  'custom-flash-window': {
    kind: 'flash',
    seed: 5,
    seqLen: 6,
    dModel: 8,
    dK: 4,
    dV: 4,
    blockRows: 2,
    blockCols: 3,
    window: 3,
  },
  'custom-self-causal-unscaled': {
    seed: 7,
    seqLen: 6,
    dModel: 12,
    numHeads: 3,
    dK: 5,
    dV: 2,
    causal: true,
    outputProjection: true,
    scaleScores: false,
  },
  'custom-cross-valid-keys': {
    kind: 'cross',
    seed: 3,
    queryLen: 3,
    keyLen: 5,
    dModel: 6,
    numHeads: 3,
    dK: 2,
    dV: 3,
    validKeys: 4,
    outputProjection: true,
    scaleScores: false,
  },
  'custom-gqa-6-2-causal': {
    seed: 5,
    seqLen: 4,
    dModel: 12,
    numHeads: 6,
    numKvHeads: 2,
    causal: true,
    outputProjection: true,
  },
  'custom-encoder-dff7': {
    kind: 'encoder-layer',
    seed: 9,
    seqLen: 3,
    dModel: 10,
    numHeads: 2,
    dK: 3,
    dV: 4,
    dFF: 7,
    causal: true,
  },
  'custom-self-no-wo': {
    seed: 11,
    seqLen: 4,
    dModel: 8,
    numHeads: 2,
    causal: false,
    outputProjection: false,
  },
  'custom-backward-sinusoidal': {
    kind: 'backward',
    seed: 9,
    seqLen: 4,
    dModel: 8,
    numHeads: 2,
    positionalEncoding: 'sinusoidal',
  },
};

// Presets whose trace is not recorded, to keep the fixtures small (about 300 KiB each); the
// chapter is still covered by another preset of the same kind.
export const LEFT_OUT = {
  'kv-cache-mha': 'kv-cache-gqa walks the same decode stages (numKvHeads = numHeads: lesson-multi-head)',
};

// The specs the model tests have the page build from a form (a custom cross pass, an encoder
// layer with d_ff left blank, each real model's scaled geometry): only their config and stage
// count are kept (the real models' traces would be megabytes).
const model = (dModel, numHeads, numKvHeads) => ({
  kind: 'self',
  seqLen: 6,
  dModel,
  numHeads,
  numKvHeads,
  seed: 42,
  weightScale: 0.1,
  skip: 0,
  causal: true,
  outputProjection: true,
  scaleScores: true,
});
export const PAGE_SPECS = [
  {
    kind: 'cross',
    queryLen: 2,
    keyLen: 5,
    validKeys: 3,
    dModel: 8,
    numHeads: 2,
    dK: 4,
    dV: 4,
    seed: 42,
    weightScale: 0.1,
    skip: 0,
    outputProjection: true,
    scaleScores: true,
  },
  {
    kind: 'encoder-layer',
    seqLen: 5,
    dModel: 16,
    numHeads: 4,
    seed: 42,
    weightScale: 0.1,
    skip: 0,
    causal: false,
    scaleScores: true,
  },
  model(48, 12, 12),
  model(64, 16, 16),
  model(64, 16, 4),
  model(64, 16, 2),
];

// The cells the tests explain: three corners of every stage the stage table explains.
export function explainCells(stage) {
  if (!stageById(stage.id)?.explain) return [];
  const [rows, cols] = stage.shape;
  return [
    [0, 0],
    [rows - 1, cols - 1],
    [0, cols - 1],
  ].map(([row, col]) => ({ stage: stage.id, head: stage.head, step: stage.step, row, col }));
}

// An encoded list as text, an item (or a table's row) a line.
function tableLines(encoded) {
  const lines = (items) => `[\n${items.map((x) => JSON.stringify(x)).join(',\n')}\n]`;
  if (Array.isArray(encoded)) return lines(encoded);
  return `{"$keys":${JSON.stringify(encoded.$keys)},"$rows":${lines(encoded.$rows)}}`;
}

// One spec's fixture as text: a line per stage, per explained cell and answer, per stored array.
function traceFixture(engine, spec) {
  const pool = arrayPool();
  const { config, stages } = engine.run(spec);
  const cells = [...new Map(stages.flatMap(explainCells).map((c) => [cellKey(c), c])).values()];
  const answers = cells.map((cell) => engine.explain(spec, cell));
  return (
    `{"version":${VERSION},\n"trace":{"config":${JSON.stringify(encodeValue(config, pool))},\n` +
    `"stages":${tableLines(encodeValue(stages, pool))}},\n` +
    `"cells":${tableLines(encodeValue(cells, pool))},\n"answers":${tableLines(encodeValue(answers, pool))},\n` +
    `"arrays":${tableLines(pool.arrays)}}\n`
  );
}

/** Every fixture file's name → its text, from the engine as it is. */
export function recordFixtures(engine) {
  const presets = engine.presets();
  const models = engine.models();
  const specs = [
    ...presets.filter((p) => !(p.id in LEFT_OUT)).map((p) => ({ name: p.id, spec: { preset: p.id } })),
    ...Object.entries(CUSTOM_SPECS).map(([name, spec]) => ({ name, spec })),
  ];
  const files = new Map();
  const fileOf = new Map(); // text → file: a spec that traces like an earlier one shares its file
  const traces = specs.map(({ name, spec }) => {
    const text = traceFixture(engine, spec);
    if (!fileOf.has(text)) fileOf.set(text, `${name}.json`);
    files.set(fileOf.get(text), text);
    return { name, spec, file: fileOf.get(text) };
  });
  const runs = PAGE_SPECS.map((spec) => {
    const { config, stages } = engine.run(spec);
    return { spec, config: encodeValue(config, null), stageCount: stages.length };
  });
  const head = { version: VERSION, generator: GENERATOR };
  const catalog = { presets, models, latentModels: engine.latentModels(), limits: engine.limits() };
  files.set('catalog.json', `${JSON.stringify({ ...head, ...encodeValue(catalog, null) }, null, 1)}\n`);
  files.set('index.json', `${JSON.stringify({ ...head, leftOut: LEFT_OUT, traces, runs }, null, 1)}\n`);
  return files;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { createEngine } = await import('../dist/engine.js');
  const files = recordFixtures(await createEngine());
  const dir = fileURLToPath(FIXTURE_DIR);
  mkdirSync(dir, { recursive: true });
  for (const old of readdirSync(dir).filter((f) => f.endsWith('.json') && !files.has(f)))
    rmSync(new URL(old, FIXTURE_DIR));
  for (const [file, text] of files) writeFileSync(new URL(file, FIXTURE_DIR), text);
  const bytes = [...files.values()].reduce((n, text) => n + Buffer.byteLength(text), 0);
  console.log(`${files.size} files, ${(bytes / 1024).toFixed(0)} KiB in ${dir}`);
}
