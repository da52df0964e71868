// Refused input of the heads' fields, through JS: the designed heads' tokens, prunedHeads,
// weightScale, and engine.pruneEach. Each reaches JS as a real Error whose message names the
// field, the value and the rule (or the wrong type); after each one the next preset in turn
// gives exactly the trace and config it gave before any error. (The other kinds' errors:
// errors.test.mjs and errors-steps.test.mjs.)
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { servingCheck } from './support.mjs';

let engine;
let stillServes; // after each refusal: the next preset gives the trace it gave before any error
before(async () => {
  engine = await createEngine();
  stillServes = servingCheck(engine);
});

// Calls f, expecting an Error naming `text`; then the next preset in turn must give exactly the
// trace it gave before any error.
function assertRefused(f, text) {
  assert.throws(f, (err) => {
    assert.ok(err instanceof Error, `expected an Error, got ${typeof err}: ${String(err)}`);
    assert.ok(
      err.message.includes(text),
      `message ${JSON.stringify(err.message)} should contain ${JSON.stringify(text)}`,
    );
    return true;
  });
  stillServes();
}

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
const unknown = (field, what) => `spec: unknown field "${field}" for ${what}`;
const NO_W_O = 'prunedHeads: needs the output projection W_O';
const SCALE = (v) => `weightScale: ${v} is out of range (0, 10]; the lesson uses 0.1`;

// The designed heads' tokens: an array of 1 to 128 strings of 1 to 40 characters. [title, spec, text]
const TOKEN_CASES = [
  ['tokens missing', designed({ tokens: undefined }), 'tokens: must be an array of words, got undefined'],
  ['tokens a string', designed({ tokens: 'the cat sat' }), 'tokens: must be an array of words, got string'],
  ['tokens null', designed({ tokens: null }), 'tokens: must be an array of words, got null'],
  ['tokens an object', designed({ tokens: { 0: 'the', length: 1 } }), 'tokens: must be an array of words, got object'],
  ['tokens empty', designed({ tokens: [] }), 'tokens: 0 tokens; give between 1 and 128 words'],
  ['129 tokens', designed({ tokens: Array(129).fill('w') }), 'tokens: 129 words, more than the limit 128'],
  ['2^31 tokens', designed({ tokens: new Array(2 ** 31) }), 'tokens: 2147483648 words, more than the limit 128'],
  ['a token a number', designed({ tokens: ['the', 7] }), 'tokens[1]: must be a string, got number'],
  ['a token null', designed({ tokens: [null] }), 'tokens[0]: must be a string, got null'],
  ['a token an array', designed({ tokens: ['a', 'b', ['c']] }), 'tokens[2]: must be a string, got array'],
  ['a 41-character word', designed({ tokens: ['the', 'x'.repeat(41)] }), 'tokens[1]: is longer than 40 characters'],
  ['an empty word', designed({ tokens: ['the', ''] }), 'tokens[1]: must be a word of 1 to 160 bytes'],
  ['causal a string', designed({ causal: 'yes' }), 'causal: must be true or false, got string'],
  [
    'seed on designed',
    designed({ seed: 1 }),
    unknown('seed', 'kind "designed" (known: causal, kind, prunedHeads, tokens)'),
  ],
  ['seqLen on designed', designed({ seqLen: 3 }), unknown('seqLen', 'kind "designed"')],
  ['weightScale on designed', designed({ weightScale: 1 }), unknown('weightScale', 'kind "designed"')],
  ['tokens on self', generated({ tokens: ['a'] }), unknown('tokens', 'self-attention')],
  [
    'designed with matrices',
    { kind: 'designed', X: I2 },
    'kind: "designed" takes no explicit matrices; give sizes and a seed (or tokens)',
  ],
];

// prunedHeads: an array of distinct whole numbers in [0, H − 1], with W_O.
const PRUNED_CASES = [
  ['not an array: a number', generated({ prunedHeads: 1 }), 'prunedHeads: must be an array of numbers, got number'],
  ['not an array: a string', generated({ prunedHeads: '1,3' }), 'prunedHeads: must be an array of numbers, got string'],
  ['not an array: null', generated({ prunedHeads: null }), 'prunedHeads: must be an array of numbers, got null'],
  [
    'not an array: an object',
    generated({ prunedHeads: { 0: 1, length: 1 } }),
    'prunedHeads: must be an array of numbers, got object',
  ],
  ['an element a string', generated({ prunedHeads: ['1'] }), 'prunedHeads[0]: must be a number, got string'],
  ['an element null', generated({ prunedHeads: [0, null] }), 'prunedHeads[1]: must be a number, got null'],
  ['an element an array', generated({ prunedHeads: [[1]] }), 'prunedHeads[0]: must be a number, got array'],
  ['an element a boolean', generated({ prunedHeads: [true] }), 'prunedHeads[0]: must be a number, got boolean'],
  ['head 4 of 4', generated({ prunedHeads: [4] }), 'prunedHeads: 4 is out of range [0, 3]'],
  ['head -1', generated({ prunedHeads: [-1] }), 'prunedHeads: -1 is out of range [0, 3]'],
  ['head 0.5', generated({ prunedHeads: [0.5] }), 'prunedHeads: 0.5 is not a whole number'],
  ['head NaN', generated({ prunedHeads: [NaN] }), 'prunedHeads: NaN is not a finite number'],
  ['head Infinity', generated({ prunedHeads: [Infinity] }), 'prunedHeads: Infinity is not a finite number'],
  ['head 1 twice', generated({ prunedHeads: [1, 3, 1] }), 'prunedHeads: head 1 is listed twice'],
  ['65 heads listed', generated({ prunedHeads: Array(65).fill(0) }), 'prunedHeads: 65 numbers, more than the limit 64'],
  [
    '2^31 heads listed',
    generated({ prunedHeads: new Array(2 ** 31) }),
    'prunedHeads: 2147483648 numbers, more than the limit 64',
  ],
  ['without W_O', generated({ outputProjection: false, prunedHeads: [0] }), NO_W_O],
  ['explicit without W_O', explicit({ W_O: undefined, prunedHeads: [0] }), NO_W_O],
  ['explicit head 2 of 2', explicit({ prunedHeads: [2] }), 'prunedHeads: 2 is out of range [0, 1]'],
  ['designed head 4', designed({ prunedHeads: [4] }), 'prunedHeads: 4 is out of range [0, 3]'],
  ['cross head 2 of 2', cross({ prunedHeads: [2] }), 'prunedHeads: 2 is out of range [0, 1]'],
  ['encoder head 1 of 1', encoder({ prunedHeads: [1] }), 'prunedHeads: 1 is out of range [0, 0]'],
  ['on kv-cache', decode({ prunedHeads: [0] }), unknown('prunedHeads', 'kind "kv-cache"')],
  ['on flash', flash({ prunedHeads: [0] }), unknown('prunedHeads', 'kind "flash"')],
  ['beside a preset', { preset: 'lesson-multi-head', prunedHeads: [0] }, unknown('prunedHeads', 'a preset')],
];

// weightScale: a finite number in (0, 10], on every kind that draws.
const SCALE_CASES = [
  ['0', generated({ weightScale: 0 }), SCALE(0)],
  ['-1', generated({ weightScale: -1 }), SCALE(-1)],
  ['NaN', generated({ weightScale: NaN }), SCALE('NaN')],
  ['11', generated({ weightScale: 11 }), SCALE(11)],
  ['1e309 (Infinity)', generated({ weightScale: 1e309 }), SCALE('Infinity')],
  ['-Infinity', generated({ weightScale: -Infinity }), SCALE('-Infinity')],
  ['a string', generated({ weightScale: '0.5' }), 'weightScale: must be a number, got string'],
  ['null', generated({ weightScale: null }), 'weightScale: must be a number, got null'],
  ['an array', generated({ weightScale: [1] }), 'weightScale: must be a number, got array'],
  ['0 on cross', cross({ weightScale: 0 }), SCALE(0)],
  ['0 on encoder-layer', encoder({ weightScale: 0 }), SCALE(0)],
  ['12 on kv-cache', decode({ weightScale: 12 }), SCALE(12)],
  ['0 on flash', flash({ weightScale: 0 }), SCALE(0)],
  ['on explicit', explicit({ weightScale: 1 }), unknown('weightScale', 'explicit self-attention')],
  ['beside a preset', { preset: 'lesson-multi-head', weightScale: 1 }, unknown('weightScale', 'a preset')],
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
    for (const [title, spec, text] of cases) {
      for (const [call, f] of forms) test(`${call}: ${title}`, () => assertRefused(() => f(spec), text));
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
  const NEEDS =
    'spec: pruning needs the output projection W_O (self-, cross-, designed attention or the encoder layer)';
  const CASES = [
    ["the lesson's single head without W_O", { preset: 'lesson-self-attention' }, NEEDS],
    ['KV-cache decoding', { preset: 'kv-cache-gqa' }, NEEDS],
    ['FlashAttention', { preset: 'flash-full' }, NEEDS],
    ['self-attention without W_O', generated({ outputProjection: false }), NEEDS],
    ['explicit without W_O', explicit({ W_O: undefined }), NEEDS],
    ['spec null', null, 'spec: must be an object, got null'],
    ['spec a string', 'lesson-multi-head', 'spec: must be an object, got string'],
    ['a bad field', generated({ seqLen: 0 }), 'seqLen: 0 is out of range [1, 1024]'],
    ['a bad prunedHeads', generated({ prunedHeads: [9] }), 'prunedHeads: 9 is out of range [0, 3]'],
    ['a bad token', designed({ tokens: [''] }), 'tokens[0]: must be a word of 1 to 160 bytes'],
    ['an unknown field', { preset: 'designed-heads', causal: true }, unknown('causal', 'a preset')],
  ];
  for (const [title, spec, text] of CASES) test(title, () => assertRefused(() => engine.pruneEach(spec), text));
  test('accepted: the spec used above with W_O gives one entry per head', () => {
    assert.deepEqual(
      engine.pruneEach(generated({})).map((e) => e.head),
      [0, 1, 2, 3],
    );
  });
});
