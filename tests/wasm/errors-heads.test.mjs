// Refused input of the heads' fields, through JS: the designed heads' tokens, prunedHeads,
// weightScale, and engine.pruneEach. Each reaches JS as a real Error whose message names the
// field; after each one the next preset in turn gives exactly the trace and config it gave before
// any error (assertRefused). The wording: tests/native/test_validation*.cpp and, for the
// bindings' messages, messages.mjs. (The other kinds' errors: errors.test.mjs and
// errors-steps.test.mjs.)
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { assertRefused } from './support.mjs';

let engine;
before(async () => {
  engine = await createEngine();
});

const I2 = [
  [1, 0],
  [0, 1],
];
const generated = (fields) => ({ seqLen: 3, dModel: 8, numHeads: 4, ...fields }); // 4 heads, W_O
const designed = (fields) => ({ kind: 'designed', tokens: ['the', 'cat', 'sat'], ...fields });
const explicit = (fields) => ({ X: I2, W_Q: [I2, I2], W_K: [I2, I2], W_V: [I2, I2], W_O: [...I2, ...I2], ...fields });
const cross = (fields) => ({ kind: 'cross', queryLen: 2, keyLen: 3, dModel: 4, numHeads: 2, ...fields });
const encoder = (fields) => ({ kind: 'encoder-layer', seqLen: 3, dModel: 4, ...fields });
const decode = (fields) => ({ kind: 'kv-cache', seqLen: 3, dModel: 4, ...fields });
const flash = (fields) => ({ kind: 'flash', seqLen: 3, dModel: 4, blockRows: 1, blockCols: 1, ...fields });

// The designed heads' tokens: an array of 1 to 128 strings of 1 to 40 characters. [title, spec, field]
const TOKEN_CASES = [
  ['tokens missing', designed({ tokens: undefined }), 'tokens'],
  ['tokens a string', designed({ tokens: 'the cat sat' }), 'tokens'],
  ['tokens null', designed({ tokens: null }), 'tokens'],
  ['tokens an object', designed({ tokens: { 0: 'the', length: 1 } }), 'tokens'],
  ['tokens empty', designed({ tokens: [] }), 'tokens'],
  ['129 tokens', designed({ tokens: Array(129).fill('w') }), 'tokens'],
  ['2^31 tokens', designed({ tokens: new Array(2 ** 31) }), 'tokens'],
  ['a token a number', designed({ tokens: ['the', 7] }), 'tokens[1]'],
  ['a token null', designed({ tokens: [null] }), 'tokens[0]'],
  ['a token an array', designed({ tokens: ['a', 'b', ['c']] }), 'tokens[2]'],
  ['a 41-character word', designed({ tokens: ['the', 'x'.repeat(41)] }), 'tokens[1]'],
  ['an empty word', designed({ tokens: ['the', ''] }), 'tokens[1]'],
  ['causal a string', designed({ causal: 'yes' }), 'causal'],
  ['seed on designed', designed({ seed: 1 }), 'spec'],
  ['seqLen on designed', designed({ seqLen: 3 }), 'spec'],
  ['weightScale on designed', designed({ weightScale: 1 }), 'spec'],
  ['tokens on self', generated({ tokens: ['a'] }), 'spec'],
  ['designed with matrices', { kind: 'designed', X: I2 }, 'kind'],
];

// prunedHeads: an array of distinct whole numbers in [0, H − 1], with W_O.
const PRUNED_CASES = [
  ['not an array: a number', generated({ prunedHeads: 1 }), 'prunedHeads'],
  ['not an array: a string', generated({ prunedHeads: '1,3' }), 'prunedHeads'],
  ['not an array: null', generated({ prunedHeads: null }), 'prunedHeads'],
  ['not an array: an object', generated({ prunedHeads: { 0: 1, length: 1 } }), 'prunedHeads'],
  ['an element a string', generated({ prunedHeads: ['1'] }), 'prunedHeads[0]'],
  ['an element null', generated({ prunedHeads: [0, null] }), 'prunedHeads[1]'],
  ['an element an array', generated({ prunedHeads: [[1]] }), 'prunedHeads[0]'],
  ['an element a boolean', generated({ prunedHeads: [true] }), 'prunedHeads[0]'],
  ['head 4 of 4', generated({ prunedHeads: [4] }), 'prunedHeads'],
  ['head -1', generated({ prunedHeads: [-1] }), 'prunedHeads'],
  ['head 0.5', generated({ prunedHeads: [0.5] }), 'prunedHeads'],
  ['head NaN', generated({ prunedHeads: [NaN] }), 'prunedHeads'],
  ['head Infinity', generated({ prunedHeads: [Infinity] }), 'prunedHeads'],
  ['head 1 twice', generated({ prunedHeads: [1, 3, 1] }), 'prunedHeads'],
  ['65 heads listed', generated({ prunedHeads: Array(65).fill(0) }), 'prunedHeads'],
  ['2^31 heads listed', generated({ prunedHeads: new Array(2 ** 31) }), 'prunedHeads'],
  ['without W_O', generated({ outputProjection: false, prunedHeads: [0] }), 'prunedHeads'],
  ['explicit without W_O', explicit({ W_O: undefined, prunedHeads: [0] }), 'prunedHeads'],
  ['explicit head 2 of 2', explicit({ prunedHeads: [2] }), 'prunedHeads'],
  ['designed head 4', designed({ prunedHeads: [4] }), 'prunedHeads'],
  ['cross head 2 of 2', cross({ prunedHeads: [2] }), 'prunedHeads'],
  ['encoder head 1 of 1', encoder({ prunedHeads: [1] }), 'prunedHeads'],
  ['on kv-cache', decode({ prunedHeads: [0] }), 'spec'],
  ['on flash', flash({ prunedHeads: [0] }), 'spec'],
  ['beside a preset', { preset: 'lesson-multi-head', prunedHeads: [0] }, 'spec'],
];

// weightScale: a finite number in (0, 10], on every kind that draws.
const SCALE_CASES = [
  ['0', generated({ weightScale: 0 }), 'weightScale'],
  ['-1', generated({ weightScale: -1 }), 'weightScale'],
  ['NaN', generated({ weightScale: NaN }), 'weightScale'],
  ['11', generated({ weightScale: 11 }), 'weightScale'],
  ['1e309 (Infinity)', generated({ weightScale: 1e309 }), 'weightScale'],
  ['-Infinity', generated({ weightScale: -Infinity }), 'weightScale'],
  ['a string', generated({ weightScale: '0.5' }), 'weightScale'],
  ['null', generated({ weightScale: null }), 'weightScale'],
  ['an array', generated({ weightScale: [1] }), 'weightScale'],
  ['0 on cross', cross({ weightScale: 0 }), 'weightScale'],
  ['0 on encoder-layer', encoder({ weightScale: 0 }), 'weightScale'],
  ['12 on kv-cache', decode({ weightScale: 12 }), 'weightScale'],
  ['0 on flash', flash({ weightScale: 0 }), 'weightScale'],
  ['on explicit', explicit({ weightScale: 1 }), 'spec'],
  ['beside a preset', { preset: 'lesson-multi-head', weightScale: 1 }, 'spec'],
];

// Valid specs beside the refused ones: [title, spec, what the config then says].
const ACCEPTED = [
  ['a 40-character word', designed({ tokens: ['the', 'x'.repeat(40)] }), { dV: 2, dModel: 5 }],
  ['40 two-byte characters', designed({ tokens: ['é'.repeat(40)] }), { dV: 1, dModel: 3 }],
  ['128 tokens', designed({ tokens: Array(128).fill('w') }), { seqLen: 128, dV: 1, dModel: 130 }],
  ['The, the and THE: one word', designed({ tokens: ['The', 'the', 'THE'] }), { dV: 1, seed: null }],
  ['designed, causal, heads 0 and 3 pruned', designed({ causal: true, prunedHeads: [3, 0] }), { prunedHeads: [3, 0] }],
  ['prunedHeads empty', generated({ prunedHeads: [] }), { prunedHeads: [] }],
  ['every head pruned', generated({ prunedHeads: [0, 1, 2, 3] }), { outputChange: 1 }],
  ['weightScale 10', generated({ weightScale: 10 }), { weightScale: 10 }],
  ['weightScale 5e-324', generated({ weightScale: 5e-324 }), { weightScale: 5e-324 }],
  ['weightScale on kv-cache', decode({ weightScale: 2 }), { weightScale: 2 }],
  ['encoder-layer, its one head pruned', encoder({ prunedHeads: [0] }), { outputChange: 1 }],
];

const forms = [
  ['run', (spec) => engine.run(spec)],
  ['forward', (spec) => engine.forward(spec)],
];
for (const [group, cases] of [
  ['tokens', TOKEN_CASES],
  ['prunedHeads', PRUNED_CASES],
  ['weightScale', SCALE_CASES],
]) {
  describe(`errors heads: ${group}`, () => {
    for (const [title, spec, field] of cases) {
      for (const [call, f] of forms) test(`${call}: ${title}`, () => assertRefused(engine, () => f(spec), field));
    }
  });
}

describe('errors heads: accepted beside the refused', () => {
  for (const [title, spec, want] of ACCEPTED) {
    test(title, () => {
      const { config } = engine.run(spec);
      for (const [field, value] of Object.entries(want)) assert.deepEqual(config[field], value, field);
    });
  }
});

describe('errors heads: pruneEach', () => {
  const NEEDS = 'spec'; // pruning needs W_O: tests/native/test_pruning.cpp words it
  const CASES = [
    ["the lesson's single head without W_O", { preset: 'lesson-self-attention' }, NEEDS],
    ['KV-cache decoding', { preset: 'kv-cache-gqa' }, NEEDS],
    ['FlashAttention', { preset: 'flash-full' }, NEEDS],
    ['self-attention without W_O', generated({ outputProjection: false }), NEEDS],
    ['explicit without W_O', explicit({ W_O: undefined }), NEEDS],
    ['spec null', null, 'spec'],
    ['spec a string', 'lesson-multi-head', 'spec'],
    ['a bad field', generated({ seqLen: 0 }), 'seqLen'],
    ['a bad prunedHeads', generated({ prunedHeads: [9] }), 'prunedHeads'],
    ['a bad token', designed({ tokens: [''] }), 'tokens[0]'],
    ['an unknown field', { preset: 'designed-heads', causal: true }, 'spec'],
  ];
  for (const [title, spec, field] of CASES)
    test(title, () => assertRefused(engine, () => engine.pruneEach(spec), field));
  test('accepted: the spec used above with W_O gives one entry per head', () => {
    assert.deepEqual(
      engine.pruneEach(generated({})).map((e) => e.head),
      [0, 1, 2, 3],
    );
  });
});
