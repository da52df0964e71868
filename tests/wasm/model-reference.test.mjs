// The attention-only model through the WASM engine against numpy (tests/fixtures/model-reference.json,
// made by scripts/make-reference.py from scripts/numpy_model.py): initModel's matrices bit for bit;
// lossAndGradients' loss and gradients, and headScores, within 1e-12 (absolute up to 1, relative
// above). Adam and the tasks' batches are compared natively (tests/native/test_model_reference.cpp).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { assertSameBits, fixtures } from './support.mjs';

const TOLERANCE = 1e-12;
const SIZES = ['vocab', 'seqLen', 'dModel', 'numLayers', 'numHeads', 'dK', 'dV'];
const SCORES = ['previousToken', 'firstToken', 'self', 'induction'];

const FILE = JSON.parse(readFileSync(new URL('../fixtures/model-reference.json', import.meta.url), 'utf8'));

let engine;
before(async () => {
  engine = await createEngine();
});

/** One numpy matrix as { shape, values: Float64Array }. */
function matrixOf(key) {
  const rows = FILE.matrices[key];
  assert.ok(rows, `fixture ${key} is missing`);
  return { shape: [rows.length, rows[0].length], values: Float64Array.from(rows.flat()) };
}

/** A model's matrices as [name, matrix] in the engine's order, named as matrix_names spells them. */
function named(params) {
  const out = [
    ['W_E', params.W_E],
    ['W_P', params.W_P],
  ];
  params.layers.forEach((layer, l) => {
    for (const key of ['W_Q', 'W_K', 'W_V']) layer[key].forEach((m, h) => out.push([`layers[${l}].${key}[${h}]`, m]));
    out.push([`layers[${l}].W_O`, layer.W_O]);
  });
  return [...out, ['W_U', params.W_U]];
}

/** A model case's config and its matrices as numpy drew them, shaped as initModel returns them. */
function modelOf(name) {
  const fields = FILE.models[name];
  const config = Object.fromEntries(SIZES.map((key) => [key, fields[key]]));
  const at = (key) => matrixOf(`${name}:${key}`);
  const heads = (l, key) => Array.from({ length: config.numHeads }, (_, h) => at(`layers[${l}].${key}[${h}]`));
  const layers = Array.from({ length: config.numLayers }, (_, l) => ({
    W_Q: heads(l, 'W_Q'),
    W_K: heads(l, 'W_K'),
    W_V: heads(l, 'W_V'),
    W_O: at(`layers[${l}].W_O`),
  }));
  return { config, params: { W_E: at('W_E'), W_P: at('W_P'), layers, W_U: at('W_U') } };
}

/** Asserts every cell of got within TOLERANCE of numpy's (scaled by |want| above 1), naming the matrix,
 * the worst difference and the first bad cell; returns the worst difference. */
function assertNear(key, got) {
  const want = matrixOf(key);
  assert.deepEqual(got.shape, want.shape, `${key}: shape ${got.shape} should be ${want.shape}`);
  let worst = 0;
  let first = -1;
  got.values.forEach((v, i) => {
    const off = Math.abs(v - want.values[i]) / Math.max(1, Math.abs(want.values[i]));
    worst = Math.max(worst, Number.isNaN(off) ? Infinity : off);
    if (!(off <= TOLERANCE) && first < 0) first = i;
  });
  const cell = first < 0 ? '' : `; first bad ${first}: got ${got.values[first]}, want ${want.values[first]}`;
  assert.ok(first < 0, `${key}: worst difference ${worst}${cell}`);
  return worst;
}

const scalar = (value) => ({ shape: [1, 1], values: Float64Array.of(value) });

describe('the model against numpy', () => {
  test('the model fixture is the version support.mjs expects', () => {
    assert.equal(FILE.version, fixtures().version);
    assert.ok(Object.keys(FILE.models).length > 0, 'no model cases');
  });

  for (const [name, fields] of Object.entries(FILE.models)) {
    const tokens = FILE.matrices[`${name}:tokens`];
    const mask = FILE.matrices[`${name}:mask`];

    test(`${name}: initModel draws numpy's matrices bit for bit`, () => {
      const config = Object.fromEntries(SIZES.map((key) => [key, fields[key]]));
      const drawn = engine.initModel({ ...config, seed: fields.seed });
      assert.deepEqual(drawn.config, config);
      const got = named(drawn.params);
      assert.equal(got.length, named(modelOf(name).params).length, 'matrix count');
      for (const [key, m] of got) {
        const want = matrixOf(`${name}:${key}`);
        assert.deepEqual(m.shape, want.shape, `${key}: shape`);
        assertSameBits(`${name}:${key}`, Array.from(m.values), Array.from(want.values));
      }
    });

    test(`${name}: lossAndGradients gives numpy's loss and every gradient`, (t) => {
      const { loss, grads } = engine.lossAndGradients(modelOf(name), { tokens, mask });
      let worst = assertNear(`${name}:loss`, scalar(loss));
      for (const [key, m] of named(grads)) worst = Math.max(worst, assertNear(`${name}:grad:${key}`, m));
      t.diagnostic(`largest difference from numpy: ${worst}`);
    });

    test(`${name}: headScores gives numpy's scores`, (t) => {
      const scores = engine.headScores(modelOf(name), tokens);
      const { numLayers, numHeads } = FILE.models[name];
      assert.equal(scores.length, numLayers * numHeads);
      const tables = Object.fromEntries(SCORES.map((key) => [key, new Float64Array(numLayers * numHeads)]));
      for (const s of scores) {
        assert.equal(typeof s.induction, 'number', `layer ${s.layer} head ${s.head}: induction`);
        for (const key of SCORES) tables[key][s.layer * numHeads + s.head] = s[key];
      }
      const worst = Math.max(
        ...SCORES.map((key) => assertNear(`${name}:${key}`, { shape: [numLayers, numHeads], values: tables[key] })),
      );
      t.diagnostic(`largest difference from numpy: ${worst}`);
    });
  }
});
