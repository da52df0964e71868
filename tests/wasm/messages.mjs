// The messages the bindings make (cpp/bindings/: a JS value of the wrong type, a field that is
// missing, a string that is no well-formed text): the one table of their wording. No native test
// can give these (the core never sees a JS value), so tests/wasm/messages.test.mjs asserts them
// here, once; every other test of a refusal asserts only the field it names (assertRefused in
// support.mjs). The core's messages are asserted in tests/native/test_validation*.cpp, the page's
// in tests/browser/hostile-cases.mjs.
import { I2, explicit } from './explicit-specs.mjs';

const generated = (fields) => ({ seqLen: 3, dModel: 4, ...fields });
const designed = (fields) => ({ kind: 'designed', tokens: ['the', 'cat', 'sat'], ...fields });
// An explicit spec whose X is this flat matrix { shape, values }.
const flat = (X) => explicit({ X });
const CELL = { stage: 'scores', head: 0, row: 0, col: 0 };
const LESSON = { preset: 'lesson-multi-head' };

// [title, call, the message (a prefix when it ends in …), the call through forward or null]:
// a spec alone is sent through run and forward (`both`), anything else once.
// A spec refused alike by run and forward; the run carries its spec for docs/bad-input.md's table.
const both = (title, spec, message) => [
  title,
  Object.assign((e) => e.run(spec), { spec }),
  message,
  (e) => e.forward(spec),
];
const once = (title, call, message) => [title, call, message, null];

export const BINDING_MESSAGES = [
  once('spec undefined', (e) => e.run(undefined), 'spec: must be an object, got undefined'),
  once('spec null', (e) => e.run(null), 'spec: must be an object, got null'),
  once('spec number', (e) => e.run(42), 'spec: must be an object, got number'),
  once('spec string', (e) => e.run('lesson-multi-head'), 'spec: must be an object, got string'),
  once('spec array', (e) => e.run([]), 'spec: must be an object, got array'),
  once('spec boolean', (e) => e.run(true), 'spec: must be an object, got boolean'),
  once('spec function', (e) => e.run(() => 1), 'spec: must be an object, got function'),
  once('forward of a non-object', (e) => e.forward(7), 'spec: must be an object, got number'),
  once(
    'unknown field beside a preset',
    (e) => e.run({ preset: 'lesson-multi-head', extra: 1 }),
    'spec: unknown field "extra" for a preset (known: …',
  ),
  once(
    'unknown generated field',
    (e) => e.run(generated({ heads: 2 })),
    'spec: unknown field "heads" for self-attention (known: …',
  ),
  once(
    'unknown explicit field',
    (e) => e.run(explicit({ seqLen: 2 })),
    'spec: unknown field "seqLen" for explicit self-attention (known: …',
  ),
  once(
    'causal on cross',
    (e) => e.run({ kind: 'cross', queryLen: 2, keyLen: 4, dModel: 8, causal: true }),
    'spec: unknown field "causal" for kind "cross" (known: …',
  ),
  once(
    'numKvHeads on encoder-layer',
    (e) => e.run({ kind: 'encoder-layer', seqLen: 3, dModel: 8, numKvHeads: 1 }),
    'spec: unknown field "numKvHeads" for kind "encoder-layer" (known: …',
  ),
  once(
    'seed on designed',
    (e) => e.run(designed({ seed: 1 })),
    'spec: unknown field "seed" for kind "designed" (known: causal, kind, prunedHeads, tokens)',
  ),
  once(
    'an unknown cell field, listing the known ones',
    (e) => e.explain(LESSON, { ...CELL, colour: 1 }),
    'cell: unknown field "colour" for a cell (known: col, head, row, stage, step)',
  ),
  both('seqLen string', generated({ seqLen: '5' }), 'seqLen: must be a number, got string'),
  both('dModel boolean', generated({ dModel: true }), 'dModel: must be a number, got boolean'),
  both('numHeads null', generated({ numHeads: null }), 'numHeads: must be a number, got null'),
  both('dK array', generated({ dK: [4] }), 'dK: must be a number, got array'),
  both('dV object', generated({ dV: {} }), 'dV: must be a number, got object'),
  both('seed string', generated({ seed: '42' }), 'seed: must be a number, got string'),
  both('causal number', generated({ causal: 1 }), 'causal: must be true or false, got number'),
  both(
    'outputProjection string',
    generated({ outputProjection: 'yes' }),
    'outputProjection: must be true or false, got string',
  ),
  both('scaleScores null', generated({ scaleScores: null }), 'scaleScores: must be true or false, got null'),
  both('preset number', { preset: 42 }, 'preset: must be a string, got number'),
  both('X string', explicit({ X: 'abc' }), 'X: must be an array of rows, got string'),
  both('X flat array', explicit({ X: [1, 2] }), 'X[0]: must be an array of numbers, got number'),
  both(
    'X string entry',
    explicit({
      X: [
        [1, '2'],
        [3, 4],
      ],
    }),
    'X[0][1]: must be a number, got string',
  ),
  both(
    'X null entry',
    explicit({
      X: [
        [1, 2],
        [null, 4],
      ],
    }),
    'X[1][0]: must be a number, got null',
  ),
  both(
    'X undefined entry',
    explicit({
      X: [
        [1, 2],
        [3, undefined],
      ],
    }),
    'X[1][1]: must be a number, got undefined',
  ),
  both('W_Q string', explicit({ W_Q: 'x' }), 'W_Q: must be an array with one matrix per head, got string'),
  both('W_K missing', explicit({ W_K: undefined }), 'W_K: must be an array with one matrix per head, got undefined'),
  both('W_V second head a number', explicit({ W_V: [I2, 5] }), 'W_V[1]: must be an array of rows, got number'),
  both('W_O object', explicit({ W_O: {} }), 'W_O: must be an array of rows, got object'),
  both('W_O null', explicit({ W_O: null }), 'W_O: must be an array of rows, got null'),
  both('explicit causal string', explicit({ causal: 'true' }), 'causal: must be true or false, got string'),
  both('tokens missing', designed({ tokens: undefined }), 'tokens: must be an array of words, got undefined'),
  both('tokens a string', designed({ tokens: 'the cat sat' }), 'tokens: must be an array of words, got string'),
  both('129 tokens', designed({ tokens: Array(129).fill('w') }), 'tokens: 129 words, more than the limit 128'),
  both('a token a number', designed({ tokens: ['the', 7] }), 'tokens[1]: must be a string, got number'),
  both('a 41-character word', designed({ tokens: ['the', 'x'.repeat(41)] }), 'tokens[1]: is longer than 40 characters'),
  both('prunedHeads a number', generated({ prunedHeads: 1 }), 'prunedHeads: must be an array of numbers, got number'),
  once(
    'kvCacheBytes of a non-object',
    (e) => e.kvCacheBytes(42),
    'query: must be an object { seqLen, dHead, numKvHeads (or latentDims), numLayers, bytesPerValue, batch }',
  ),
  once('kvCacheBytes field a string', (e) => e.kvCacheBytes({ seqLen: '8' }), 'seqLen: must be a number, got string'),
  both(
    'flat: a shape of one number',
    flat({ shape: [4], values: Float64Array.of(1, 2, 3, 4) }),
    'X.shape: must be [rows, cols], got an array of 1',
  ),
  both(
    'flat: a shape that is a string',
    flat({ shape: '2x2', values: Float64Array.of(1, 2, 3, 4) }),
    'X.shape: must be [rows, cols], got string',
  ),
  both('flat: no shape', flat({ values: Float64Array.of(1, 2, 3, 4) }), 'X.shape: must be [rows, cols], got undefined'),
  both(
    'flat: a size that is a string',
    flat({ shape: [2, '2'], values: Float64Array.of(1, 2, 3, 4) }),
    'X.shape[1]: must be a number, got string',
  ),
  both(
    'flat: values as a plain array',
    flat({ shape: [2, 2], values: [1, 2, 3, 4] }),
    'X.values: must be a Float64Array, got array',
  ),
  both(
    'flat: values as a Float32Array',
    flat({ shape: [2, 2], values: new Float32Array(4) }),
    'X.values: must be a Float64Array, got Float32Array',
  ),
  both('flat: no values', flat({ shape: [2, 2] }), 'X.values: must be a Float64Array, got undefined'),
  both(
    'flat: an unknown field',
    flat({ shape: [2, 2], values: Float64Array.of(1, 2, 3, 4), rows: 2 }),
    'X: unknown field "rows" for a flat matrix (known: shape, values)',
  ),
  once('kind a number', (e) => e.run(generated({ kind: 5 })), 'kind: must be a string, got number'),
  once(
    'queryLen missing',
    (e) => e.run({ kind: 'cross', keyLen: 3, dModel: 8 }),
    'queryLen: is missing; give a whole number',
  ),
  once('cell a string', (e) => e.explain(LESSON, 'q'), 'cell: must be an object { stage, head, step?, row, col }'),
  once('cell null', (e) => e.explain(LESSON, null), 'cell: must be an object { stage, head, step?, row, col }'),
  once(
    'a cell of a list that is a number',
    (e) => e.explain(LESSON, [CELL, 5]),
    'cells[1]: must be an object { stage, head, step?, row, col }',
  ),
  once(
    'a cell of a list whose row is text',
    (e) => e.explain(LESSON, [{ ...CELL, row: 'a' }]),
    'cells[0].row: must be a number, got string',
  ),
  once('a list of too many cells', (e) => e.explain(LESSON, new Array(65537).fill(CELL)), 'cells: …'),
  once('randn cols null', (e) => e.randn(42, 2, null), 'cols: must be a number, got null'),
  once('randn cols missing', (e) => e.randn(42, 2), 'cols: NaN is not a finite number'),
];

// Lone surrogates (which UTF-8 cannot hold) refused by index: [title, tokens, message].
export const LONE_SURROGATES = [
  [
    'a high surrogate alone',
    ['the', '\uD800'],
    'tokens[1]: holds a lone surrogate (U+D800 at index 0); give well-formed text',
  ],
  [
    'a low surrogate inside a word',
    ['a\uDC00b', 'cat'],
    'tokens[0]: holds a lone surrogate (U+DC00 at index 1); give well-formed text',
  ],
  [
    'a high surrogate ending a word',
    ['the', 'cat', 'sat\uD83D'],
    'tokens[2]: holds a lone surrogate (U+D83D at index 3); give well-formed text',
  ],
  ['a pair reversed', ['\uDE00\uD83D'], 'tokens[0]: holds a lone surrogate (U+DE00 at index 0); give well-formed text'],
];

// The training entry points' own arguments: a model, a batch, a training spec, options and a
// checkpoint, read by cpp/src/train_reader.cpp.
const MODEL = { vocab: 5, seqLen: 4, dModel: 6, numLayers: 2, numHeads: 2, seed: 3 };
const TOKENS = { tokens: [[0, 1, 2, 3, 4]] };
const TRAIN = { task: 'previous-token', seed: 1, steps: 4, dModel: 8, numHeads: 1, numLayers: 1, batch: 2 };
// TRAIN resumed from its step-2 checkpoint as change(checkpoint) gives it.
const resumed = (e, change) => e.train(TRAIN, { from: change(e.train(TRAIN, { steps: 2 }).checkpoints.at(-1)) });
// The checkpoint c with every value of the named moments' matrices set: { m: { W_P: 1e6 }, v: { W_P: 0 } }.
const withMoments = (c, set) => {
  const optimizer = { ...c.optimizer };
  for (const [moment, matrices] of Object.entries(set))
    for (const [name, x] of Object.entries(matrices)) {
      const m = optimizer[moment][name];
      optimizer[moment] = { ...optimizer[moment], [name]: { ...m, values: m.values.map(() => x) } };
    }
  return { ...c, optimizer };
};
const withParams = (e, params) => {
  const m = e.initModel(MODEL);
  return { ...m, params: { ...m.params, ...params(m.params) } };
};

export const TRAINING_MESSAGES = [
  once('a model that is null', (e) => e.lossAndGradients(null, TOKENS), 'model: must be an object { config, params }'),
  once(
    'a model with an extra field',
    (e) => e.lossAndGradients({ ...e.initModel(MODEL), extra: 1 }, TOKENS),
    'model: unknown field "extra" for a model (known: config, params)',
  ),
  once(
    'a layer short of a head',
    (e) =>
      e.lossAndGradients(
        withParams(e, (p) => ({ layers: [p.layers[0], { ...p.layers[1], W_Q: [p.layers[1].W_Q[0]] }] })),
        TOKENS,
      ),
    'model.params.layers[1].W_Q: 1 head, but config.numHeads is 2',
  ),
  once(
    'layers that are no array',
    (e) =>
      e.lossAndGradients(
        withParams(e, () => ({ layers: 3 })),
        TOKENS,
      ),
    'model.params.layers: must be an array, got number',
  ),
  // The hostile review's rows A1–A13: params hold the model the config describes and nothing else.
  once(
    'config.numLayers 1 and two layers (A1)',
    (e) => {
      const m = e.initModel(MODEL);
      return e.lossAndGradients({ ...m, config: { ...m.config, numLayers: 1 } }, { tokens: [[0, 1, 2, 3, 4]] });
    },
    'model.params.layers: 2 layers, but config.numLayers is 1',
  ),
  once(
    'a third layer (A2)',
    (e) =>
      e.lossAndGradients(
        withParams(e, (p) => ({ layers: [...p.layers, p.layers[0]] })),
        TOKENS,
      ),
    'model.params.layers: 3 layers, but config.numLayers is 2',
  ),
  ...['W_Q', 'W_K', 'W_V'].map((w) =>
    once(
      `a third head in ${w} (A3, A4)`,
      (e) =>
        e.lossAndGradients(
          withParams(e, (p) => ({
            layers: [p.layers[0], { ...p.layers[1], [w]: [...p.layers[1][w], p.layers[1][w][0]] }],
          })),
          TOKENS,
        ),
      `model.params.layers[1].${w}: 3 heads, but config.numHeads is 2`,
    ),
  ),
  once(
    'an unknown key in params (A5)',
    (e) =>
      e.lossAndGradients(
        withParams(e, () => ({ bogus: 1 })),
        TOKENS,
      ),
    'model.params: unknown field "bogus" for a model\'s params (known: W_E, W_P, W_U, layers)',
  ),
  once(
    'an own key __proto__ in params (A6)',
    (e) => {
      const m = e.initModel(MODEL);
      const params = { ...m.params };
      Object.defineProperty(params, '__proto__', { value: 1, enumerable: true });
      return e.lossAndGradients({ ...m, params }, TOKENS);
    },
    'model.params: unknown field "__proto__" for a model\'s params (known: W_E, W_P, W_U, layers)',
  ),
  once(
    'a layer with a key constructor (A7)',
    (e) =>
      e.lossAndGradients(
        withParams(e, (p) => ({ layers: [{ ...p.layers[0], constructor: 1 }, p.layers[1]] })),
        TOKENS,
      ),
    'model.params.layers[0]: unknown field "constructor" for a layer (known: W_K, W_O, W_Q, W_V)',
  ),
  once(
    'headScores of a model with a third layer (A8)',
    (e) =>
      e.headScores(
        withParams(e, (p) => ({ layers: [...p.layers, p.layers[0]] })),
        TOKENS.tokens,
      ),
    'model.params.layers: 3 layers, but config.numLayers is 2',
  ),
  once(
    'kind model with a third head in W_V (A10)',
    (e) =>
      e.run({
        kind: 'model',
        model: withParams(e, (p) => ({
          layers: [{ ...p.layers[0], W_V: [...p.layers[0].W_V, p.layers[0].W_V[0]] }, p.layers[1]],
        })),
        tokens: [0, 1, 2],
      }),
    'model.params.layers[0].W_V: 3 heads, but config.numHeads is 2',
  ),
  once(
    'kind model, forward, with an unknown key in params (A11)',
    (e) => e.forward({ kind: 'model', model: withParams(e, () => ({ bogus: 1 })), tokens: [0, 1, 2] }),
    'model.params: unknown field "bogus" for a model\'s params (known: W_E, W_P, W_U, layers)',
  ),
  once(
    'a checkpoint whose model has an extra layer (A12)',
    (e) =>
      resumed(e, (c) => {
        const params = c.model.params;
        return { ...c, model: { ...c.model, params: { ...params, layers: [...params.layers, params.layers[0]] } } };
      }),
    'from.model.params.layers: 2 layers, but config.numLayers is 1',
  ),
  once(
    'a checkpoint whose optimizer has an unknown key (A13)',
    (e) => resumed(e, (c) => ({ ...c, optimizer: { ...c.optimizer, bogus: 0 } })),
    'from.optimizer: unknown field "bogus" for an optimizer\'s state (known: m, step, v)',
  ),
  // Rows B14, B15: an optimizer state that Adam cannot reach is refused before a step runs.
  once(
    'a second moment v below 0 (B14)',
    (e) => resumed(e, (c) => withMoments(c, { v: { W_E: -1 } })),
    'from.optimizer.v.W_E[0][0]: -1 is no mean of squared gradients (finite and \u2265 0)',
  ),
  once(
    'm = 1e6 beside v = 0 (B15)',
    (e) => resumed(e, (c) => withMoments(c, { m: { W_P: 1e6 }, v: { W_P: 0 } })),
    'from.optimizer.m.W_P[0][0]: 1000000 is more than 2 Adam steps can give beside v = 0 ' +
      '(m\u00b2 \u2264 18.108108108108084 \u00b7 v)',
  ),
  once(
    'an optimizer a step behind its checkpoint',
    (e) => resumed(e, (c) => ({ ...c, optimizer: { ...c.optimizer, step: 1 } })),
    'from.optimizer.step: 1, but the checkpoint is at step 2 (one update a step)',
  ),
  once(
    'a batch that is null',
    (e) => e.lossAndGradients(e.initModel(MODEL), null),
    'batch: must be an object { tokens, mask? }',
  ),
  once(
    'an unknown initModel field',
    (e) => e.initModel({ ...MODEL, heads: 3 }),
    'config: unknown field "heads" for initModel (known: dK, dModel, dV, numHeads, numLayers, seed, seqLen, vocab)',
  ),
  once(
    'options that are a string',
    (e) => e.train({ task: 'induction' }, 'x'),
    'options: must be an object { from?, steps? }',
  ),
  once(
    'a checkpoint that is a number',
    (e) => e.train({ task: 'induction' }, { from: 5 }),
    'from: must be an object { step, model, optimizer }',
  ),
  once(
    'a checkpoint without its optimizer',
    (e) => e.train({ task: 'induction', steps: 10 }, { from: { step: 1, model: e.initModel(MODEL) } }),
    'from.optimizer: is missing',
  ),
  once(
    'an unknown training field',
    (e) => e.train({ task: 'induction', lr: 3 }),
    'spec: unknown field "lr" for a training spec (known: batch, checkpointEvery, dModel, learningRate, ' +
      'numHeads, numLayers, seed, seqLen, steps, task, vocab)',
  ),
  once('a spec without a task', (e) => e.train({}), 'task: must be a string, got undefined'),
  both(
    'kind model given a number for its model',
    { kind: 'model', model: 3, tokens: [1, 2] },
    'model: must be an object { config, params }',
  ),
  both(
    'kind model given a model whose config lacks its vocabulary',
    { kind: 'model', model: { config: {}, params: {} }, tokens: [1, 2] },
    'model.config.vocab: is missing; give a whole number',
  ),
  both(
    'kind model given a model without params',
    {
      kind: 'model',
      model: { config: { vocab: 4, seqLen: 3, dModel: 2, numLayers: 1, numHeads: 1, dK: 2, dV: 2 } },
      tokens: [1, 2],
    },
    'model.params: is missing',
  ),
];

// A preset, a kind, a stage and a field name holding one: [title, call, message].
export const LONE_SURROGATE_NAMES = [
  once(
    'a preset',
    (e) => e.run({ preset: 'lesson\uD800' }),
    'preset: holds a lone surrogate (U+D800 at index 6); give well-formed text',
  ),
  once(
    'a kind',
    (e) => e.run({ kind: '\uDC00', seqLen: 2, dModel: 4 }),
    'kind: holds a lone surrogate (U+DC00 at index 0); give well-formed text',
  ),
  once(
    'a stage',
    (e) => e.explain(LESSON, { ...CELL, stage: 'q\uD800' }),
    'stage: holds a lone surrogate (U+D800 at index 1); give well-formed text',
  ),
  once(
    'a field name',
    (e) => e.run({ seqLen: 2, dModel: 4, '\uDBFFx': 1 }),
    'spec: unknown field holding a lone surrogate (U+DBFF at index 0) for self-attention (known: …',
  ),
];
