// Shared by the WASM engine tests: numpy fixtures, what a trace of each kind must look like
// (stage order, shapes, axes, equations), and a check_tensor that names the matrix, the max
// difference and the first bad cell.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const FIXTURES = new URL('../fixtures/lesson-reference.json', import.meta.url);

let cache = null;

/** The JSON fixture file: { version, numpy, generator, presets, matrices }. */
export function fixtures() {
  cache ??= JSON.parse(readFileSync(FIXTURES, 'utf8'));
  return cache;
}

/**
 * Preset id → the sizes numpy used, defaults filled in and named like trace.config:
 * { kind, seed, skip, seqLen, kvLen, dModel, numHeads, numKvHeads, dK, dV, dFF, validKeys,
 * causal, outputProjection, scaleScores }. numpy read the presets from the engine.
 */
export const PRESETS = fixtures().presets;

/** One numpy matrix as { shape, values: Float64Array }, null (masked) read back as −∞. */
export function fixture(key) {
  const rows = fixtures().matrices[key];
  assert.ok(rows, `fixture ${key} is missing`);
  const values = Float64Array.from(rows.flat(), (v) => (v === null ? -Infinity : v));
  return { shape: [rows.length, rows[0].length], values };
}

/** The fixture matrix as the array of rows an explicit spec takes. */
export function rowsOf(key) {
  const rows = fixtures().matrices[key];
  assert.ok(rows, `fixture ${key} is missing`);
  return rows;
}

/** "scores/2" for a head stage, "output" for the others. */
export const label = (id, head) => (head === null ? id : `${id}/${head}`);

/** Query heads per K/V head: query head i reads K/V head ⌊i / group⌋. */
export const groupOf = ({ numHeads, numKvHeads = numHeads }) => numHeads / numKvHeads;

const hasMask = ({ causal, validKeys }) => Boolean(causal) || (validKeys ?? null) !== null;

const ENCODER_STAGES = ['residual1', 'norm1', 'ffn_pre', 'ffn_hidden', 'ffn_out', 'residual2', 'norm2'];

/**
 * The stage labels of a trace, in the lesson's order: the inputs (x, or x_q and x_kv); per query
 * head q, then k and v once per K/V head (at the first query head of its group), scores, scaled,
 * (masked), weights, head; concat and output with W_O; the encoder layer's stages after those.
 */
export function expectedLabels(sizes) {
  const { kind = 'self', numHeads, outputProjection } = sizes;
  const labels = kind === 'cross' ? ['x_q', 'x_kv'] : ['x'];
  for (let h = 0; h < numHeads; h += 1) {
    const kv = h % groupOf(sizes) === 0 ? ['k', 'v'] : [];
    const ids = ['q', ...kv, 'scores', 'scaled', ...(hasMask(sizes) ? ['masked'] : []), 'weights', 'head'];
    labels.push(...ids.map((id) => label(id, h)));
  }
  if (outputProjection) labels.push('concat', 'output');
  if (kind === 'encoder-layer') labels.push(...ENCODER_STAGES);
  return labels;
}

// Each dimension of a config as [number, symbol]. Cross-attention tells its two lengths apart.
function dimsOf({ kind, seqLen, kvLen = seqLen, dModel, numHeads, dK, dV, dFF, scaleScores = true }) {
  const cross = kind === 'cross';
  return {
    t: [seqLen, cross ? 'T_q' : 'T'],
    tkv: [kvLen, cross ? 'T_kv' : 'T'],
    d: [dModel, 'd_model'],
    dk: [dK, 'd_k'],
    dv: [dV, 'd_v'],
    dff: [dFF, 'd_ff'],
    h: [numHeads, 'h'],
    hdv: [numHeads * dV, 'h·d_v'],
    root: scaleScores ? [`√${dK}`, '√d_k'] : ['1', '1'],
  };
}

// Each stage's result as the dimensions of its rows and columns.
const RESULT = {
  x: ['t', 'd'], x_q: ['t', 'd'], x_kv: ['tkv', 'd'], q: ['t', 'dk'], k: ['tkv', 'dk'], v: ['tkv', 'dv'],
  scores: ['t', 'tkv'], scaled: ['t', 'tkv'], masked: ['t', 'tkv'], weights: ['t', 'tkv'], head: ['t', 'dv'],
  concat: ['t', 'hdv'], output: ['t', 'd'], residual1: ['t', 'd'], norm1: ['t', 'd'], ffn_pre: ['t', 'dff'],
  ffn_hidden: ['t', 'dff'], ffn_out: ['t', 'd'], residual2: ['t', 'd'], norm2: ['t', 'd'],
};

const pair = (a, b) => `(${a}, ${b})`;
const product = (m, k, n) => `${pair(m, k)} @ ${pair(k, n)} → ${pair(m, n)}`;
const same = (op) => (r, c) => `${op}${pair(r, c)} → ${pair(r, c)}`;
const sum = (r, c) => `${pair(r, c)} + ${pair(r, c)} → ${pair(r, c)}`;
const affine = (m, k, n) => `${pair(m, k)} @ ${pair(k, n)} + (${n}) → ${pair(m, n)}`;

// Each stage's equation over dims spelled one way (all numbers, or all symbols).
const EQUATION = {
  x: ({ t, d }) => pair(t, d),
  x_q: ({ t, d }) => pair(t, d),
  x_kv: ({ tkv, d }) => pair(tkv, d),
  q: ({ t, d, dk }) => product(t, d, dk),
  k: ({ tkv, d, dk }) => product(tkv, d, dk),
  v: ({ tkv, d, dv }) => product(tkv, d, dv),
  scores: ({ t, dk, tkv }) => product(t, dk, tkv),
  scaled: ({ t, tkv, root }) => `${pair(t, tkv)} ÷ ${root} → ${pair(t, tkv)}`,
  masked: ({ t, tkv }) => sum(t, tkv),
  weights: ({ t, tkv }) => same('softmax')(t, tkv),
  head: ({ t, tkv, dv }) => product(t, tkv, dv),
  concat: ({ h, t, dv, hdv }) => `${h} × ${pair(t, dv)} → ${pair(t, hdv)}`,
  output: ({ t, hdv, d }) => product(t, hdv, d),
  residual1: ({ t, d }) => sum(t, d),
  norm1: ({ t, d }) => same('norm')(t, d),
  ffn_pre: ({ t, d, dff }) => affine(t, d, dff),
  ffn_hidden: ({ t, dff }) => same('ReLU')(t, dff),
  ffn_out: ({ t, dff, d }) => affine(t, dff, d),
  residual2: ({ t, d }) => sum(t, d),
  norm2: ({ t, d }) => same('norm')(t, d),
};

/** A stage's { shape, axes, equation, symbolic } for a config (trace.config or PRESETS' sizes). */
export function expectedForm(id, sizes) {
  const dims = dimsOf(sizes);
  const spelled = (i) => Object.fromEntries(Object.entries(dims).map(([k, v]) => [k, v[i]]));
  return {
    shape: RESULT[id].map((k) => dims[k][0]),
    axes: RESULT[id].map((k) => dims[k][1]),
    equation: EQUATION[id](spelled(0)),
    symbolic: EQUATION[id](spelled(1)),
  };
}

// Equal infinities differ by 0; NaN differs from everything (NaN), including NaN.
const difference = (a, b) => (a === b ? 0 : Math.abs(a - b));

/**
 * Asserts got ≈ want cell by cell within tol (0: exactly; −∞ equals −∞), like llm.c's
 * check_tensor: the message names the matrix, the max difference and the first bad cell.
 */
export function assertClose(name, got, want, tol) {
  assert.deepEqual(got.shape, want.shape, `${name}: shape ${got.shape} should be ${want.shape}`);
  assert.equal(got.values.length, want.values.length, `${name}: value count`);
  let maxDiff = 0;
  let bad = 0;
  let first = -1;
  for (let i = 0; i < got.values.length; i += 1) {
    const d = difference(got.values[i], want.values[i]);
    const off = !(d <= tol); // NaN counts as off
    maxDiff = Math.max(maxDiff, Number.isNaN(d) ? Infinity : d);
    if (off && bad++ === 0) first = i;
  }
  if (bad > 0) {
    const cols = got.shape[1];
    const at = `(${Math.floor(first / cols)}, ${first % cols})`;
    assert.fail(`${name}: ${bad} of ${got.values.length} cells off by more than ${tol}, max |diff| ` +
      `${maxDiff}; first bad ${at}: got ${got.values[first]}, want ${want.values[first]}`);
  }
}

/** The stage with this id and head (null for the stages no single head owns). */
export function stageOf(trace, id, head = null) {
  const stage = trace.stages.find((s) => s.id === id && s.head === head);
  assert.ok(stage, `no stage ${label(id, head)} in the trace`);
  return stage;
}

/**
 * An explicit spec with the very matrices the preset draws, taken from numpy's fixtures:
 * { X, … } or { kind: 'cross', X_q, X_kv, … }, one W_K and W_V per K/V head. (The encoder
 * layer takes no explicit matrices.)
 */
export function explicitSpecFor(preset) {
  const sizes = PRESETS[preset];
  const { kind, numHeads, numKvHeads, outputProjection, causal, validKeys, scaleScores } = sizes;
  assert.notEqual(kind, 'encoder-layer', 'the encoder layer has no explicit spec');
  const matrices = (name, count, step) =>
    Array.from({ length: count }, (_, i) => rowsOf(`${preset}:${name}/${i * step}`));
  const group = groupOf(sizes);
  const spec = kind === 'cross'
    ? { kind, X_q: rowsOf(`${preset}:x_q`), X_kv: rowsOf(`${preset}:x_kv`) }
    : { X: rowsOf(`${preset}:x`) };
  spec.W_Q = matrices('W_Q', numHeads, 1);
  spec.W_K = matrices('W_K', numKvHeads, group); // keyed by the first query head of each group
  spec.W_V = matrices('W_V', numKvHeads, group);
  if (outputProjection) spec.W_O = rowsOf(`${preset}:W_O`);
  if (causal) spec.causal = true;
  if (validKeys !== null) spec.validKeys = validKeys;
  if (!scaleScores) spec.scaleScores = false;
  return spec;
}
