// Shared by the WASM engine tests: numpy's fixtures (the presets and the named custom specs it
// computed, and their matrices), and a check_tensor that names the matrix, the max difference
// and the first bad cell. What a trace must look like from its config alone: forms.mjs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { groupOf, label } from './forms.mjs';

export { groupOf, label };

const FIXTURES = new URL('../fixtures/lesson-reference.json', import.meta.url);

let cache = null;

// The fixture's format: scripts/make-reference.py's VERSION.
const VERSION = 7;

/** The JSON fixture file: { version, numpy, generator, presets, custom, matrices }. */
export function fixtures() {
  cache ??= JSON.parse(readFileSync(FIXTURES, 'utf8'));
  if (cache.version !== VERSION)
    throw new Error(`lesson-reference.json: version ${cache.version}, not ${VERSION}: run scripts/make-reference.py`);
  return cache;
}

/**
 * Preset id → the sizes numpy used, defaults filled in and named like trace.config:
 * { kind, seed, skip, seqLen, kvLen, dModel, numHeads, numKvHeads, dK, dV, dFF, validKeys,
 * causal, outputProjection, scaleScores, blockRows, blockCols, weightScale, prunedHeads }. numpy
 * read the presets from the engine.
 */
export const PRESETS = fixtures().presets;

/** Custom spec name → { spec, sizes }: specs that are no preset, defined once in
 * scripts/make-reference.py (weightScale 1, prunedHeads [1, 3], positions and masks, the backward
 * pass's gradients-*). */
export const CUSTOM = fixtures().custom;

/** Every case numpy computed as [name, spec, sizes]: the presets ({ preset: id }), then the
 * custom specs. */
export const CASES = [
  ...Object.entries(PRESETS).map(([id, sizes]) => [id, { preset: id }, sizes]),
  ...Object.entries(CUSTOM).map(([name, { spec, sizes }]) => [name, spec, sizes]),
];

/** The sizes numpy used for a preset or a custom spec. */
export const sizesOf = (name) => PRESETS[name] ?? CUSTOM[name]?.sizes;

/**
 * One numpy matrix as { shape, values: Float64Array }, null (masked) read back as −∞. Keys:
 * "case:stage" or "case:stage/head" (see label), "case:label:operand" for an operand that
 * changes from step to step, "case:contribution/h", "case:outputChange", "randn/seed/RxC"; a
 * case is a preset id or a custom spec's name.
 */
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

/** A stage's label: its id, head and step. */
export const labelOf = (s) => label(s.id, s.head, s.step ?? null);

// Operands that change from step to step and are no stage of their own step.
const STEPPED = new Set(['K_cache', 'V_cache', 'Q_i', 'K_j', 'V_j', 'm', 'l', 'O', 'α', 'P']);

/** Whether numpy keyed this operand of stage s under the stage: "case:label:name". (The old
 * cache of step 0 has no rows, and no fixture: JSON cannot hold a (0, n) matrix's shape.) */
export const isStepped = (s, operand) => s.step !== null && STEPPED.has(operand.name);

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
    assert.fail(
      `${name}: ${bad} of ${got.values.length} cells off by more than ${tol}, max |diff| ` +
        `${maxDiff}; first bad ${at}: got ${got.values[first]}, want ${want.values[first]}`,
    );
  }
}

/** The stage with this id and head (null for the stages no single head owns), at this step
 * (decode step or tile) when given, else the first. */
export function stageOf(trace, id, head = null, step = undefined) {
  const at = (s) => step === undefined || s.step === step;
  const stage = trace.stages.find((s) => s.id === id && s.head === head && at(s));
  assert.ok(stage, `no stage ${label(id, head, step ?? null)} in the trace`);
  return stage;
}

/**
 * An explicit spec with the very matrices a preset or custom spec draws (or builds), taken from
 * numpy's fixtures: { X, … }, { kind: 'cross', X_q, X_kv, … } or { kind: 'backward', X, …,
 * dOutput }, one W_K and W_V per K/V head, and its prunedHeads; kind mla: latentSpecFor. (The
 * encoder layer takes no explicit matrices.)
 */
export function explicitSpecFor(preset) {
  const sizes = sizesOf(preset);
  if (sizes.kind === 'mla') return latentSpecFor(preset, sizes);
  const { kind, numHeads, numKvHeads, outputProjection, causal, validKeys, scaleScores } = sizes;
  assert.notEqual(kind, 'encoder-layer', 'the encoder layer has no explicit spec');
  const matrices = (name, count, step) =>
    Array.from({ length: count }, (_, i) => rowsOf(`${preset}:${name}/${i * step}`));
  const group = groupOf(sizes);
  const spec =
    kind === 'cross'
      ? { kind, X_q: rowsOf(`${preset}:x_q`), X_kv: rowsOf(`${preset}:x_kv`) }
      : { X: rowsOf(`${preset}:x`) };
  if (kind === 'backward') Object.assign(spec, { kind, dOutput: rowsOf(`${preset}:d_output`) });
  spec.W_Q = matrices('W_Q', numHeads, 1);
  spec.W_K = matrices('W_K', numKvHeads, group); // keyed by the first query head of each group
  spec.W_V = matrices('W_V', numKvHeads, group);
  if (outputProjection) spec.W_O = rowsOf(`${preset}:W_O`);
  if (causal) spec.causal = true;
  if (validKeys !== null) spec.validKeys = validKeys;
  if (!scaleScores) spec.scaleScores = false;
  if (sizes.prunedHeads.length > 0) spec.prunedHeads = sizes.prunedHeads;
  for (const field of [
    'positionalEncoding',
    'rope',
    'window',
    'sinkTokens',
    'prefix',
    'softcap',
    'qkNorm',
    'qNormGain',
    'kNormGain',
    'sinks',
  ])
    if (sizes[field] !== null) spec[field] = sizes[field];
  if (sizes.alibi) spec.alibi = true;
  if (sizes.documents.length > 0) spec.documents = sizes.documents;
  return spec;
}

// Kind mla's explicit spec: X, W_DKV, each head's W_UK, W_UV and W_Q, with d_r > 0 W_KR and each
// head's W_QR (and RoPE's base and convention: MLA takes no other RoPE field), W_O, causal.
function latentSpecFor(preset, sizes) {
  const heads = (name) => Array.from({ length: sizes.numHeads }, (_, i) => rowsOf(`${preset}:${name}/${i}`));
  const spec = { kind: 'mla', X: rowsOf(`${preset}:x`), W_DKV: rowsOf(`${preset}:W_DKV`) };
  Object.assign(spec, { W_UK: heads('W_UK'), W_UV: heads('W_UV'), W_Q: heads('W_Q') });
  if (sizes.dRope > 0) {
    Object.assign(spec, { W_KR: rowsOf(`${preset}:W_KR`), W_QR: heads('W_QR') });
    spec.rope = { base: sizes.rope.base, convention: sizes.rope.convention };
  }
  spec.W_O = rowsOf(`${preset}:W_O`);
  if (sizes.causal) spec.causal = true;
  return spec;
}

/**
 * After refused input: servingCheck(engine) notes every preset's trace now, and each call of the
 * function it returns runs the next preset in turn and asserts the same stages, values bit for
 * bit and config (checks included) as before any error.
 */
export function servingCheck(engine) {
  const baselines = engine.presets().map(({ id }) => [id, engine.run({ preset: id })]);
  let turn = 0;
  return () => {
    const [preset, baseline] = baselines[turn++ % baselines.length];
    const again = engine.run({ preset });
    assert.equal(again.stages.length, baseline.stages.length, `${preset} after the error`);
    again.stages.forEach((s, i) => assertClose(`${preset} after the error: ${s.id}`, s, baseline.stages[i], 0));
    assert.deepEqual(again.config, baseline.config, `${preset} after the error: config and checks`);
  };
}

/** Two arrays of numbers with the same bits (Object.is: +0 and −0 differ, NaN equals NaN). */
export function assertSameBits(name, got, want) {
  assert.equal(got.length, want.length, `${name}: length`);
  const at = got.findIndex((v, i) => !Object.is(v, want[i]));
  assert.equal(at, -1, `${name}: first different value at ${at}: ${got[at]} vs ${want[at]}`);
}

/** Two traces with the same config, stages, and values and operands bit for bit. */
export function assertSameTrace(got, want) {
  assert.deepEqual(got.config, want.config);
  assert.equal(got.stages.length, want.stages.length);
  got.stages.forEach((s, i) => {
    const w = want.stages[i];
    const name = `${s.id}/${s.head}`;
    assert.equal(s.id, w.id);
    assertSameBits(name, s.values, w.values);
    s.operands.forEach((o, j) => assertSameBits(`${name} operand ${o.name}`, o.values, w.operands[j].values));
  });
}

const serving = new WeakMap(); // engine → its servingCheck, taken before its first refusal here

/**
 * Asserts call() is refused with an Error whose message begins with the field's name
 * (`${field}: `), then that the engine still serves (servingCheck: the next preset in turn gives
 * the trace it gave before any error). The message's wording is asserted where it is made: the
 * core's in tests/native/test_validation*.cpp, the bindings' in tests/wasm/messages.mjs, the
 * page's in tests/browser/hostile-cases.mjs. Returns the message.
 */
export function assertRefused(engine, call, field) {
  if (!serving.has(engine)) serving.set(engine, servingCheck(engine));
  let message = null;
  assert.throws(call, (err) => {
    assert.ok(err instanceof Error, `expected an Error, got ${typeof err}: ${String(err)}`);
    message = err.message;
    return true;
  });
  assert.ok(message.startsWith(`${field}: `), `message ${JSON.stringify(message)} should name ${field}`);
  serving.get(engine)();
  return message;
}
