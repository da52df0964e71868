// Shared by the WASM engine tests: numpy fixtures, the stage order, and a check_tensor
// that names the matrix, the max difference and the first bad cell.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const FIXTURES = new URL('../fixtures/lesson-reference.json', import.meta.url);

/** The lesson's examples: preset name → the sizes numpy used (scripts/make-reference.py). */
export const PRESETS = {
  'lesson-self-attention': { seqLen: 5, dModel: 8, numHeads: 1, dK: 4, dV: 4, causal: false, outputProjection: false },
  'lesson-multi-head': { seqLen: 5, dModel: 16, numHeads: 4, dK: 4, dV: 4, causal: false, outputProjection: true },
  'lesson-causal': { seqLen: 4, dModel: 8, numHeads: 1, dK: 4, dV: 4, causal: true, outputProjection: false },
};

let cache = null;

/** The JSON fixture file: { version, numpy, generator, matrices }. */
export function fixtures() {
  cache ??= JSON.parse(readFileSync(FIXTURES, 'utf8'));
  return cache;
}

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

/** x, per head q k v scores scaled (masked) weights head, then concat output with W_O. */
export function expectedLabels({ numHeads, causal, outputProjection }) {
  const labels = ['x'];
  for (let h = 0; h < numHeads; h += 1) {
    const ids = ['q', 'k', 'v', 'scores', 'scaled', ...(causal ? ['masked'] : []), 'weights', 'head'];
    labels.push(...ids.map((id) => label(id, h)));
  }
  if (outputProjection) labels.push('concat', 'output');
  return labels;
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

/** The stage with this id and head (null for x, concat, output). */
export function stageOf(trace, id, head = null) {
  const stage = trace.stages.find((s) => s.id === id && s.head === head);
  assert.ok(stage, `no stage ${label(id, head)} in the trace`);
  return stage;
}

/** An explicit spec with the very matrices the preset draws, taken from numpy's fixtures. */
export function explicitSpecFor(preset) {
  const { numHeads, causal, outputProjection } = PRESETS[preset];
  const heads = (name) => Array.from({ length: numHeads }, (_, h) => rowsOf(`${preset}:${name}/${h}`));
  const spec = { X: rowsOf(`${preset}:x`), W_Q: heads('W_Q'), W_K: heads('W_K'), W_V: heads('W_V') };
  if (outputProjection) spec.W_O = rowsOf(`${preset}:W_O`);
  if (causal) spec.causal = true;
  return spec;
}
