// The page's form and the engine's rules: each number field is checked by the engine's own range
// (engine.limits(), which run() enforces), and a rule between fields is the engine's alone — its
// refusal goes under the field it names, or above the form when it names none of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { runForm } from '../../web/app/actions.js';
import { FIELDS } from '../../web/model/fields.js';
import { catalogFrom } from '../../web/model/presets.js';
import { fieldOfMessage, validateForm } from '../../web/model/validate.js';
import { presetForm } from '../../web/state/form.js';

const engine = await createEngine();
const catalog = catalogFrom(engine);
const custom = (id, patch) => ({ ...presetForm(catalog, id), preset: 'custom', ...patch });

test('limits: each range engine.limits() gives is the one run() enforces', () => {
  const base = { seqLen: 2, dModel: 4, numHeads: 1 };
  const refusal = (spec) => {
    try {
      engine.run(spec);
      return null;
    } catch (error) {
      return error.message;
    }
  };
  const { limits } = catalog;
  // Fields whose range bounds them alone (the others are bounded by a field of the same spec too).
  for (const field of ['seqLen', 'dModel', 'numHeads', 'dK', 'dV', 'seed', 'skip']) {
    const { min, max } = limits[field];
    const spec = { ...base, dK: 2, dV: 2 };
    assert.equal(refusal({ ...spec, [field]: max + 1 }), `${field}: ${max + 1} is out of range [${min}, ${max}]`);
    assert.equal(refusal({ ...spec, [field]: min - 1 }), `${field}: ${min - 1} is out of range [${min}, ${max}]`);
  }
  assert.equal(refusal({ ...base, weightScale: limits.weightScale.max }), null);
  assert.equal(
    refusal({ ...base, weightScale: limits.weightScale.above }),
    'weightScale: 0 is out of range (0, 10]; the seed-42 examples use 0.1',
  );
  assert.equal(
    refusal({ kind: 'cross', queryLen: 1, keyLen: limits.keyLen.max + 1, dModel: 2 }),
    'keyLen: 1025 is out of range [1, 1024]',
  );
  assert.equal(refusal({ ...base, window: limits.window.max }), null, 'the widest window');
  assert.equal(
    refusal({ ...base, window: limits.window.max + 1 }),
    'window: 4294967296 is out of range [1, 4294967295]',
  );
  assert.equal(
    refusal({ kind: 'designed', tokens: Array(limits.words.max + 1).fill('a') }),
    'tokens: 129 words, more than the limit 128',
  );
  assert.equal(
    refusal({ kind: 'designed', tokens: ['x'.repeat(limits.wordLength.max + 1)] }),
    'tokens[0]: is longer than 40 characters',
  );
  // The figures themselves (config.hpp's limits), so that a change to them shows here.
  assert.deepEqual(
    [limits.seqLen, limits.dModel, limits.numHeads, limits.dK, limits.dFF, limits.seed, limits.weightScale],
    [
      { min: 1, max: 1024 },
      { min: 1, max: 1024 },
      { min: 1, max: 64 },
      { min: 1, max: 1024 },
      { min: 1, max: 4096 },
      { min: 0, max: 4294967295 },
      { above: 0, max: 10 },
    ],
  );
});

test('limits: every number field of the form has the engine range of its spec field', () => {
  const numbers = FIELDS.filter((f) => ['whole', 'auto', 'decimal'].includes(f.type));
  assert.ok(numbers.length >= 15);
  for (const f of numbers) assert.ok(catalog.limits[f.spec], `${f.field}: engine.limits() has no ${f.spec}`);
  const form = custom('lesson-multi-head', { dModel: '64', heads: '64' });
  assert.deepEqual(validateForm(catalog, form).errors, {});
  assert.equal(runForm(engine, catalog, form).trace.config.numHeads, 64, 'the engine\u2019s largest head count runs');
});

test('rules between fields: the engine\u2019s refusal under the field it names', () => {
  const cases = [
    ['lesson-multi-head', { dModel: '15' }, 'heads', /^numHeads: 4 does not divide dModel 15; give dK and dV/],
    ['gqa-4-2', { kvHeads: '3' }, 'kvHeads', /^numKvHeads: 3 does not divide numHeads 4 /],
    ['cross-padding', { validKeys: '5' }, 'validKeys', /^validKeys: 5 is out of range \[1, 4\]$/],
    ['lesson-multi-head', { prunedHeads: '4' }, 'prunedHeads', /^prunedHeads: 4 is out of range \[0, 3\]$/],
    ['flash-causal', { blockRows: '9' }, 'blockRows', /^blockRows: 9 is out of range \[1, 5\]$/],
    ['masks-window', { validKeys: '1' }, 'validKeys', /^validKeys: 1 leaves query 3 no key: window 3 starts/],
    ['masks-prefix', { prefix: '9' }, 'prefix', /^prefix: 9 is out of range \[0, 8\]$/],
    ['masks-documents', { documents: '3, 3' }, 'documents', /^documents: lengths sum to 6 tokens, but there are 8/],
  ];
  for (const [id, patch, field, message] of cases) {
    const form = custom(id, patch);
    assert.deepEqual(validateForm(catalog, form).errors, {}, `${id}: each field alone is in range`);
    const r = runForm(engine, catalog, form);
    assert.deepEqual([Object.keys(r.errors), r.engineError, r.trace], [[field], null, undefined], id);
    assert.match(r.errors[field], message);
  }
  const weights = runForm(
    engine,
    catalog,
    custom('lesson-multi-head', { dModel: '1024', heads: '64', dK: '1024', dV: '1024' }),
  );
  assert.deepEqual(weights.errors, {});
  assert.match(
    weights.engineError,
    /^weights: 268435456 values in W_Q, W_K, W_V, W_O/,
    'no field of the form: above it',
  );
});

test('fieldOfMessage: the spec field a message names, as the chapter\u2019s form field', () => {
  assert.equal(fieldOfMessage('attention', 'numHeads: 3 does not divide dModel 8'), 'heads');
  assert.equal(fieldOfMessage('masks', 'documents[1]: 0 is out of range [1, 8]'), 'documents');
  assert.equal(fieldOfMessage('positions', 'rope.dims: 3 is odd; each pair turns two columns'), 'ropeDims');
  assert.equal(fieldOfMessage('cross', 'keyLen: 1025 is out of range [1, 1024]'), 'keyTokens');
  assert.equal(fieldOfMessage('attention', 'keyLen: 1025 is out of range [1, 1024]'), null, 'not a field of attention');
  assert.equal(fieldOfMessage('attention', 'spec: unknown field "x"'), null);
  assert.equal(fieldOfMessage('attention', 'W_Q[0][1]: NaN is not a finite number'), null);
  assert.equal(fieldOfMessage('attention', 'no field here'), null);
});
