// The bad-input table as data: each hostile input, where it enters, and the message it gets.
// tests/wasm/hostile.test.mjs runs the engine API's cases; tests/model/hostile-parsing.test.mjs
// reads every URL hash and attribute case without a browser (their parsing is pure);
// tests/browser/hostile.test.mjs shows the form fields' cases and those hash and attribute cases
// the page must render safely (inBrowser, below), and checks docs/bad-input.md's copy;
// tests/browser/hostile-readme.mjs prints the table into docs/bad-input.md.
//
// A message ending in "…" is matched as a prefix. `accepted` marks input that is no error: it
// is shown as text (the listed labels) and never parsed as markup. `engine`: the message comes
// from the engine (no parsing test can give it). `smoke`: also shown in the browser.
import { CHAPTERS } from '../../web/model/chapters.js';
import { I2 } from '../wasm/explicit-specs.mjs';

// Markup and script tried in every text field: if any of it ran, window.__hostile would be set.
export const MARKUP = '<img src=x onerror=window.__hostile=1>';
export const LONG = 'x'.repeat(100000);

const KV = { seqLen: 8192, dHead: 128, numKvHeads: 8, numLayers: 32, bytesPerValue: 2, batch: 1 };

// The refusals of validKeys that would leave a query no key (below).
const keyZero = 'but only key 0 is valid; give validKeys of at least';
const keysToOne = 'but only keys 0 to 1 are valid; give validKeys of at least';
const doc1 = 'its document, documents[1], starts it at key';

// engine.<method>(…): the call's source is its input in the table.
const api = (call, message) => ({ where: `engine.${/\be\.(\w+)\(/.exec(String(call))[1]}`, call, message });

export const API_CASES = [
  api((e) => e.run({ seqLen: 0, dModel: 4 }), 'seqLen: 0 is out of range [1, 1024]'),
  api((e) => e.run({ seqLen: -3, dModel: 4 }), 'seqLen: -3 is out of range [1, 1024]'),
  api((e) => e.run({ seqLen: 2.5, dModel: 4 }), 'seqLen: 2.5 is not a whole number'),
  api((e) => e.forward({ seqLen: NaN, dModel: 4 }), 'seqLen: NaN is not a finite number'),
  api((e) => e.forward({ seqLen: 4, dModel: -Infinity }), 'dModel: -Infinity is not a finite number'),
  api((e) => e.run({ seqLen: 1e308, dModel: 4 }), 'seqLen: 1e+308 is out of range [1, 1024]'),
  api(
    (e) => e.run({ seqLen: 2, dModel: 4, weightScale: 0 }),
    'weightScale: 0 is out of range (0, 10]; the seed-42 examples use 0.1',
  ),
  api(
    (e) => e.run({ seqLen: 2, dModel: 4, softcap: -1 }),
    'softcap: -1 is out of range (0, 1e+300]; Gemma 2 caps its attention logits at 50',
  ),
  api(
    (e) => e.run({ seqLen: 4, dModel: 4, sinkTokens: 2 }),
    'sinkTokens: needs a window of at least 2: the sink tokens stay seen while the window moves on ' +
      '(StreamingLLM keeps 4 sinks beside its window)',
  ),
  api(
    (e) => e.run({ seqLen: 4, dModel: 4, window: 3, sinkTokens: 3 }),
    'sinkTokens: 3 leaves window 3 no latest key: the window holds the sinks and the W \u2212 k latest; give at most 2',
  ),
  api(
    (e) => e.run({ seqLen: 2, dModel: 4, qNormGain: [1, 1, 1, 1] }),
    'qNormGain: is a gain of QK-norm; give qkNorm: true with it, or leave it out',
  ),
  api(
    (e) => e.run({ seqLen: 2, dModel: 4, qkNorm: true, kNormGain: [1, 2] }),
    'kNormGain: 2 gains for d_k = 4 columns; give one per column of a head (dK)',
  ),
  api(
    (e) => e.run({ seqLen: 2, dModel: 4, softcap: 30, alibi: true }),
    "softcap: and alibi together are not stepped here: ALiBi's bias would be added to the capped logits, which " +
      'no published model does; give one of them',
  ),
  api((e) => e.run({}), 'seqLen: is missing; give a whole number'),
  api((e) => e.run('lesson-causal'), 'spec: must be an object, got string'),
  api((e) => e.run({ seqLen: '5', dModel: 4 }), 'seqLen: must be a number, got string'),
  api((e) => e.run({ seqLen: 2n, dModel: 4 }), 'seqLen: must be a number, got bigint'),
  api(
    (e) => e.run({ seqLen: 2, dModel: 4, seed: () => 1 }),
    'spec: cannot be read as plain data (() => 1 could not be cloned.)',
  ),
  api(
    (e) =>
      e.run({
        seqLen: 2,
        get dModel() {
          throw new Error('boom');
        },
      }),
    'spec: cannot be read as plain data (boom)',
  ),
  api(
    (e) => e.run({ seqLen: 2, dModel: 4, sequenceLength: 3 }),
    'spec: unknown field "sequenceLength" for self-attention (known: …',
  ),
  api(
    (e) => e.run({ seqLen: 2, dModel: 4, '\u202Eevil': 1 }),
    'spec: unknown field "\u202Eevil" for self-attention (known: …',
  ),
  api(
    (e) => e.run(JSON.parse('{"preset": "lesson-causal", "preset": "lesson-nope"}')),
    'preset: "lesson-nope" is not one of …',
  ),
  api((e) => e.run({ preset: 'x'.repeat(1e6) }), `preset: "${'x'.repeat(40)}" is not one of …`),
  api((e) => e.run({ X: [], W_Q: [I2], W_K: [I2], W_V: [I2] }), 'X: needs at least one row and one column'),
  api(
    (e) => e.run({ X: [[1, 0], [1]], W_Q: [I2], W_K: [I2], W_V: [I2] }),
    'X: row 1 has 1 values but row 0 has 2 (rows must all have the same length)',
  ),
  api((e) => e.run({ X: I2, W_Q: I2, W_K: [I2], W_V: [I2] }), 'W_Q[0][0]: must be an array of numbers, got number'),
  api(
    (e) => e.run({ X: [[[1, 0]], [[0, 1]]], W_Q: [I2], W_K: [I2], W_V: [I2] }),
    'X[0][0]: must be a number, got array',
  ),
  api(
    (e) =>
      e.run({
        X: [
          [1, ,],
          [0, 1],
        ],
        W_Q: [I2],
        W_K: [I2],
        W_V: [I2],
      }),
    'X[0][1]: must be a number, got undefined',
  ),
  api(
    (e) =>
      e.run({
        X: [
          [1, 0],
          [0, 1e7],
        ],
        W_Q: [I2],
        W_K: [I2],
        W_V: [I2],
      }),
    'X[1][1]: 10000000 is outside [-1e6, 1e6]',
  ),
  api(
    (e) =>
      e.run({
        kind: 'backward',
        seqLen: 3,
        dModel: 4,
        dOutput: [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
      }),
    'dOutput: shape (3, 2) should be (3, 4) (T = 3 rows, 4 columns like the output X · … · W_O (d_model))',
  ),
  api(
    (e) => e.run({ kind: 'backward', seqLen: 2, dModel: 2, dOutput: [[1, 2], [3]] }),
    'dOutput: row 1 has 1 values but row 0 has 2 (rows must all have the same length)',
  ),
  api(
    (e) =>
      e.run({
        kind: 'backward',
        seqLen: 2,
        dModel: 2,
        dOutput: { shape: [2, 2], values: new Float64Array([1, NaN, 0, 0]) },
      }),
    'dOutput.values[1]: NaN is not a finite number (row 0, column 1)',
  ),
  api((e) => e.run({ kind: 'designed', tokens: [LONG] }), 'tokens[0]: is longer than 40 characters'),
  api((e) => e.run({ kind: 'designed', tokens: ['the', ''] }), 'tokens[1]: must be a word of 1 to 160 bytes'),
  api((e) => e.run({ kind: 'designed', tokens: 'the cat' }), 'tokens: must be an array of words, got string'),
  {
    ...api(
      (e) => e.run({ kind: 'designed', tokens: ['<img src=x onerror=alert(1)>', '</script>', 'a\u0000b'] }),
      'accepted: the words are compared, never parsed',
    ),
    accepted: [],
  },
  api((e) => e.run({ preset: 'lesson-causal' }, 'reuse'), 'options: must be an object such as { reuse: trace }'),
  api(
    (e) => e.run({ preset: 'lesson-causal' }, { reuse: { config: {}, stages: [] } }),
    'options.reuse: must be a trace that run() returned',
  ),
  api(
    (e) => e.run({ preset: 'lesson-causal' }, { reuse: undefined, [MARKUP]: 1 }),
    `options: unknown field "${MARKUP}"; the only field is reuse`,
  ),
  api(
    (e) => e.explain({ preset: 'lesson-causal' }, { stage: 'weights', head: 0, row: NaN, col: 0 }),
    'row: NaN is not a finite number',
  ),
  api(
    (e) => e.explain({ preset: 'lesson-causal' }, { stage: 'weights', head: 0, row: 0, col: Infinity }),
    'col: Infinity is not a finite number',
  ),
  api(
    (e) => e.explain({ preset: 'lesson-causal' }, { stage: MARKUP, head: 0, row: 0, col: 0 }),
    `stage: "${MARKUP}" is not a stage; the stages are …`,
  ),
  api(
    (e) =>
      e.explain(
        { preset: 'lesson-causal' },
        JSON.parse('{"stage": "weights", "head": 0, "row": 0, "row": 9, "col": 0}'),
      ),
    "cell: (9, 0) is outside weights's shape (4, 4)",
  ),
  api(
    (e) => e.explain({ preset: 'lesson-causal' }, 'weights'),
    'cell: must be an object { stage, head, step?, row, col }',
  ),
  api((e) => e.kvCacheBytes({ ...KV, seqLen: -1 }), 'seqLen: -1 is out of range [1, 4294967295]'),
  api((e) => e.kvCacheBytes({ ...KV, bytesPerValue: 1.5 }), 'bytesPerValue: 1.5 is not a whole number'),
  api(
    (e) => e.kvCacheBytes({ ...KV, dHead: undefined }),
    'dHead: is missing; give a whole number (or latentDims for an MLA cache)',
  ),
  api(
    (e) => e.kvCacheBytes({ ...KV, latentDims: 576 }),
    'latentDims: and dHead together: an MLA cache keeps one latent row per token that every head reads, not K ' +
      'and V per head; give one',
  ),
  api(
    (e) => e.kvCacheBytes('8192'),
    'query: must be an object { seqLen, dHead, numKvHeads (or latentDims), numLayers, bytesPerValue, batch }',
  ),
  api(
    (e) => e.pruneEach({ preset: 'lesson-self-attention' }),
    'spec: pruning needs the output projection W_O (self-, cross-, designed attention or the encoder layer)',
  ),
  api(
    (e) => e.pruneEach({ seqLen: 2, dModel: 4, numHeads: 2, prunedHeads: [0, 0] }),
    'prunedHeads: head 0 is listed twice',
  ),
  api(
    (e) => e.pruneEach({ seqLen: 2, dModel: 4, numHeads: 2, prunedHeads: [NaN] }),
    'prunedHeads: NaN is not a finite number',
  ),
  // validKeys ending before a window's or a document's first key (the hostile review of
  // 2026-12-06, section C): each left some query no key, and some trapped the instance.
  api(
    (e) => e.run({ seed: 3, seqLen: 5, dModel: 8, numHeads: 2, documents: [2, 3], validKeys: 2 }),
    `validKeys: 2 leaves query 2 no key: ${doc1} 2, ${keysToOne} 3, or leave it out`,
  ),
  api(
    (e) => e.run({ seqLen: 2, dModel: 2, window: 1, validKeys: 1 }),
    `validKeys: 1 leaves query 1 no key: window 1 starts it at key 1, ${keyZero} 2, or leave it out`,
  ),
  api(
    (e) => e.run({ seqLen: 3, dModel: 2, documents: [1, 2], validKeys: 1 }),
    `validKeys: 1 leaves query 1 no key: ${doc1} 1, ${keyZero} 2, or leave it out`,
  ),
  api(
    (e) => e.run({ kind: 'backward', seed: 2, seqLen: 3, dModel: 4, numHeads: 2, documents: [1, 2], validKeys: 1 }),
    `validKeys: 1 leaves query 1 no key: ${doc1} 1, ${keyZero} 2, or leave it out`,
  ),
  api(
    (e) => e.run({ X: I2, W_Q: [I2], W_K: [I2], W_V: [I2], window: 1, validKeys: 1 }),
    `validKeys: 1 leaves query 1 no key: window 1 starts it at key 1, ${keyZero} 2, or leave it out`,
  ),
  api(
    (e) => e.run({ seed: 3, seqLen: 5, dModel: 8, numHeads: 2, window: 1, validKeys: 1 }),
    `validKeys: 1 leaves query 1 no key: window 1 starts it at key 1, ${keyZero} 5, or leave it out`,
  ),
  api(
    (e) => e.run({ seed: 3, seqLen: 5, dModel: 8, numHeads: 2, documents: [3, 2], validKeys: 2 }),
    `validKeys: 2 leaves query 3 no key: ${doc1} 3, ${keysToOne} 4, or leave it out`,
  ),
  api(
    (e) => e.run({ seqLen: 3, dModel: 2, prefix: 1, window: 1, validKeys: 1 }),
    `validKeys: 1 leaves query 1 no key: window 1 starts it at key 1, ${keyZero} 3, or leave it out`,
  ),
  api(
    (e) => e.run({ kind: 'backward', seed: 2, seqLen: 3, dModel: 4, numHeads: 2, window: 1, validKeys: 1 }),
    `validKeys: 1 leaves query 1 no key: window 1 starts it at key 1, ${keyZero} 3, or leave it out`,
  ),
  api(
    (e) => e.forward({ seqLen: 5, dModel: 8, numHeads: 2, window: 2, validKeys: 1, causal: true }),
    `validKeys: 1 leaves query 2 no key: window 2 starts it at key 1, ${keyZero} 4, or leave it out`,
  ),
  api(
    (e) =>
      e.explain({ seqLen: 5, dModel: 8, numHeads: 2, window: 1, validKeys: 1 }, { stage: 'weights', row: 1, col: 0 }),
    `validKeys: 1 leaves query 1 no key: window 1 starts it at key 1, ${keyZero} 5, or leave it out`,
  ),
];

// Good links the hash cases start from: each case changes one of them (set: replace a key's
// value, add: append a key) and must then show `shows` (by default the link it started from).
export const BASES = {
  custom: '#chapter=attention&tokens=a+b+c&dModel=8&heads=2&seed=1&stage=scores&head=1',
  preset: '#preset=lesson-multi-head&stage=scores&head=1',
  cross: '#chapter=cross&tokens=le+chat&keys=the+cat+sat&dModel=8&heads=2&seed=1&stage=weights&head=1',
};

// The engine's ranges (config.hpp's limits, which engine.limits() hands the page), written out.
const LIMITS = { tokens: 1024, dModel: 1024, heads: 64, headDim: 1024, seed: 4294967295 };
const hash = (base, change, message, extra = {}) => ({ where: 'URL hash', base, ...change, message, ...extra });
const whole = (label, max, { min = 1, blank = '' } = {}) =>
  `${label} must be a whole number from ${min} to ${max}${blank}.`;
const TOKENS = (n) =>
  `Enter between 1 and ${LIMITS.tokens} tokens separated by spaces (T = number of tokens; now ${n}).`;
const tooLong = (label) => `${label} must each have at most 40 characters (token 1 has 100000).`;
const control = (label, i, cp) => `${label} must not hold control characters (token ${i} holds ${cp}).`;
const bidi = (label, i, cp) =>
  `${label} must not hold bidirectional controls, which reorder the text around them (token ${i} holds ${cp}).`;
const WS = 'weight scale must be a number above 0 and at most 10 (the seed-42 examples use 0.1).';
const DK = whole('d_k', LIMITS.headDim, { blank: ', or blank for d_model / h' });
const SEED = whole('seed', LIMITS.seed, { min: 0 });
const SKIP = whole('normals skipped', 1 << 24, { min: 0 });

export const HASH_CASES = [
  hash('custom', { set: { dModel: '0' } }, whole('d_model', LIMITS.dModel), { smoke: true }),
  hash('custom', { set: { heads: '-2' } }, whole('heads h', LIMITS.heads)),
  hash('custom', { set: { dK: '2.5' } }, DK),
  hash('custom', { set: { seed: 'NaN' } }, SEED),
  hash('custom', { set: { ws: 'Infinity' } }, WS),
  hash('custom', { set: { seed: '99999999999999999999' } }, SEED),
  hash('custom', { set: { dModel: '' } }, whole('d_model', LIMITS.dModel)),
  hash('custom', { set: { dModel: MARKUP } }, whole('d_model', LIMITS.dModel)),
  hash('custom', { set: { tokens: '' } }, TOKENS(0)),
  hash(
    'custom',
    {
      set: {
        tokens: Array(LIMITS.tokens + 1)
          .fill('w')
          .join(' '),
      },
    },
    TOKENS(LIMITS.tokens + 1),
  ),
  hash('custom', { set: { tokens: `${LONG} b c` } }, tooLong('Tokens')),
  hash('custom', { set: { tokens: 'a\u0000b c d' } }, control('Tokens', 1, 'U+0000')),
  hash('custom', { set: { tokens: 'a \u001b[31mred c' } }, control('Tokens', 2, 'U+001B')),
  hash('custom', { set: { tokens: 'abc\u202Edef b c' } }, bidi('Tokens', 1, 'U+202E')),
  hash('cross', { set: { keys: 'the \u2066cat sat' } }, bidi('Source tokens', 2, 'U+2066')),
  hash('cross', { set: { valid: MARKUP } }, whole('valid keys', LIMITS.tokens, { blank: ', or blank for no padding' })),
  hash('custom', { set: { tokens: MARKUP } }, 'accepted: three tokens, shown as text', { accepted: MARKUP.split(' ') }),
  hash('custom', { set: { tokens: '</script> <b>b</b> &amp;' } }, 'accepted: three tokens, shown as text', {
    accepted: ['</script>', '<b>b</b>', '&amp;'],
  }),
  hash('custom', { set: { prune: '1,1' } }, 'pruned heads must name each head once (head 1 is named twice).'),
  hash('custom', { set: { prune: '5' } }, 'prunedHeads: 5 is out of range [0, 1]', { engine: true }),
  hash('custom', { set: { skip: '-1' } }, SKIP),
  hash('custom', { add: { seed: '2' } }, 'seed: given more than once; the first, "1", is used.', { smoke: true }),
  hash('custom', { add: { stage: 'weights' } }, 'stage: given more than once; the first, "scores", is used.'),
  hash('custom', { add: { foo: '1' } }, `"foo": not a key of this page's links; ignored (the keys are …`),
  hash('custom', { add: { [MARKUP]: '1' } }, `"${MARKUP}": not a key of this page's links; ignored (the keys are …`),
  hash('custom', { add: { dFF: '64' } }, 'dFF: not a setting of chapter attention; ignored.'),
  hash('custom', { set: { causal: 'yes' } }, 'causal: "yes" is not 1 or 0; read as 0.'),
  hash(
    'preset',
    { add: { seed: '7' } },
    'seed: ignored beside preset=lesson-multi-head, whose settings are fixed (leave out preset= to set them).',
  ),
  hash('preset', { set: { preset: 'lesson-nope' } }, 'preset: "lesson-nope" is not one of the examples (…'),
  hash(
    'preset',
    { add: { chapter: '\u202Eattention' } },
    `chapter: "\\u202Eattention" is not one of ${CHAPTERS.map((c) => c.id).join(', ')}; chapter attention is shown.`,
  ),
  hash(
    'preset',
    { set: { head: '9' } },
    'head: 9 is not a head of this configuration (heads 0 to 3); head 0 is shown.',
    { shows: '#preset=lesson-multi-head&stage=scores&head=0', smoke: true },
  ),
  hash('preset', { set: { head: '-1' } }, 'head: "-1" is not a whole number; head 0 is shown.', {
    shows: '#preset=lesson-multi-head&stage=scores&head=0',
  }),
  hash('preset', { set: { stage: MARKUP } }, `stage: "${MARKUP}" is not a stage id (embedded, x, x_pos, \u2026`, {
    shows: '#preset=lesson-multi-head&stage=x',
  }),
  hash(
    'preset',
    { add: { cell: '1.99' } },
    "Could not explain that cell: cell: (1, 99) is outside scores's shape (5, 5)",
    { engine: true },
  ),
  hash(
    'preset',
    { add: { cell: '</script>' } },
    'cell: "</script>" is not row.column (e.g. 1.2); no number is explained.',
  ),
];

// The element's attributes: each case sets these on a good element (base) and must keep its view.
export const ATTRIBUTE_BASE = { preset: 'lesson-multi-head', stage: 'scores', head: '1' };
const attr = (set, message, extra = {}) => ({ where: 'attribute', set, message, ...extra });

export const ATTRIBUTE_CASES = [
  attr({ 'd-model': '0' }, `d-model: ${whole('d_model', LIMITS.dModel)}`, { smoke: true }),
  attr({ heads: '-1' }, `heads: ${whole('heads h', LIMITS.heads)}`),
  attr({ seed: '1.5' }, `seed: ${SEED}`),
  attr({ 'weight-scale': 'NaN' }, `weight-scale: ${WS}`),
  attr({ 'd-k': 'Infinity' }, `d-k: ${DK}`),
  attr({ skip: '1e9' }, `skip: ${SKIP}`),
  attr({ tokens: LONG }, `tokens: ${tooLong('Tokens')}`),
  attr({ tokens: 'a\u0007b c' }, `tokens: ${control('Tokens', 1, 'U+0007')}`),
  attr({ tokens: 'the \u202Ecat sat' }, `tokens: ${bidi('Tokens', 2, 'U+202E')}`),
  attr({ tokens: '</script> <b>b</b> <s> </s> &lt;' }, 'accepted: five tokens, shown as text', {
    accepted: ['</script>', '<b>b</b>', '<s>', '</s>', '&lt;'],
  }),
  attr({ 'pruned-heads': '1,1' }, 'pruned-heads: pruned heads must name each head once (head 1 is named twice).'),
  attr({ 'd-ff': '8' }, 'd-ff: not a setting of chapter "attention".'),
  attr({ stage: MARKUP }, `stage: "${MARKUP}" is not a stage; the stages are …`),
  attr({ stages: `scores,${MARKUP}` }, `stages: "${MARKUP}" is not a stage; the stages are …`),
  attr({ chapter: '\u202Egqa' }, 'chapter: "\\u202Egqa" is not one of "attention", …'),
  attr({ preset: LONG }, `preset: "${'x'.repeat(40)}\u2026" (100000 characters) is not one of …`),
  attr({ head: '9' }, 'head: 9 is not a head of this configuration (heads 0 to 3).', { smoke: true }),
  attr({ head: '-1' }, 'head: "-1" is not a whole number (heads count from 0).'),
  attr({ controls: '<b>full</b>' }, 'controls: "<b>full</b>" is not one of "none", "compact", "full", "locked".'),
  attr({ theme: 'dark\u0000' }, 'theme: "dark\\u0000" is not one of "light", "dark", "auto".'),
  attr({ chapters: `masks,${MARKUP}` }, `chapters: "${MARKUP}" is not a chapter; the chapters are …`),
  attr(
    { chapters: 'masks,cross', preset: 'lesson-causal' },
    'chapter: "attention" is not one of the chapters offered (chapters: masks, cross).',
  ),
];

// The page's form fields: each case types a value into a field of BASES.custom.
const form = (field, value, message, extra = {}) => ({ where: 'form field', field, value, message, ...extra });

export const FORM_CASES = [
  form('dModel', '0', whole('d_model', LIMITS.dModel)),
  form('heads', '-1', whole('heads h', LIMITS.heads)),
  form('seed', '3.5', SEED),
  form('seed', '9'.repeat(400), SEED),
  form('weightScale', 'NaN', WS),
  form('weightScale', '1e-400', WS),
  form('dK', 'Infinity', DK),
  form('heads', '\uFF13', whole('heads h', LIMITS.heads)),
  form('dModel', MARKUP, whole('d_model', LIMITS.dModel)),
  form('seed', '</script>', SEED),
  form('tokens', '', TOKENS(0)),
  form('tokens', LONG, tooLong('Tokens')),
  form('tokens', 'a\u0000 b c', control('Tokens', 1, 'U+0000')),
  form('tokens', 'cat \u2067dog\u2069 c', bidi('Tokens', 2, 'U+2067')),
  form('tokens', '<s> </s> <img>', 'accepted: three tokens, shown as text', { accepted: ['<s>', '</s>', '<img>'] }),
];

// Text a page could turn into markup, or that could reorder the text around it.
const RENDER_RISK = /[<>&]|[\p{Cc}\p{Cf}]/u;
const inputTexts = (c) => [c.set, c.add].flatMap((o) => Object.entries(o ?? {}).flat());

/** Whether the browser shows a hash or attribute case: its input could be rendered unsafely, it
 * is accepted (shown as text), its message is the engine's, or it is one of the smoke tests. */
export const inBrowser = (c) =>
  Boolean(c.accepted || c.engine || c.smoke) || inputTexts(c).some((t) => RENDER_RISK.test(t));

/** The hash a case opens: its base with the change applied. */
export function hashOf(c) {
  const params = new URLSearchParams(BASES[c.base].slice(1));
  for (const [k, v] of Object.entries(c.set ?? {})) params.set(k, v);
  for (const [k, v] of Object.entries(c.add ?? {})) params.append(k, v);
  return `#${params.toString()}`;
}

export const ALL_CASES = [...API_CASES, ...HASH_CASES, ...ATTRIBUTE_CASES, ...FORM_CASES];

/** Hidden characters (controls, bidi, lone surrogates) written as \uXXXX. */
export const escaped = (text) =>
  String(text).replace(
    /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu,
    (c) => `\\u${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
  );

/** Whether a message is a case's: equal, or starting with what precedes its final "…", with
 * hidden characters compared as \uXXXX (raw or escaped, the same message). */
export function sameMessage(got, want) {
  const [g, w] = [escaped(got), escaped(want)];
  return w.endsWith('\u2026') ? g.startsWith(w.slice(0, -1)) : g === w;
}
