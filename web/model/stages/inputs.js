// The inputs: the tokens' rows X (X_q and X_kv in cross-attention) and a decode step's new
// token x_t, drawn, given or built from the words.
// Entry fields: see ../stage-table.js.

import { entry } from './entry.js';
import { named, ofLayer } from './numpy-paths.js';
import { cell } from './highlight.js';
import { f, n, shortList } from './tex.js';

// Whether the engine added the positions' encoding to this stage's rows (its term "sinusoidal").
const encoded = (stage) => stage?.terms?.includes('sinusoidal') ?? false;

function drawnFrom({ config: c, preset }) {
  if (preset?.seed42 && preset.spec.skip) {
    return (
      `These are the very numbers numpy draws when this causal example runs after the ` +
      `multi-head one without reseeding: X continues numpy\u2019s seed-${c.seed} ` +
      `stream after the ${preset.spec.skip} numbers the multi-head example drew.`
    );
  }
  if (preset?.seed42) return `These are the very numbers numpy draws: np.random.seed(${c.seed}), then np.random.randn.`;
  return c.seed === null
    ? 'These rows were given directly.'
    : `They are drawn like numpy\u2019s np.random.randn with seed ${c.seed}.`;
}

// The designed X's word block (columns T … T + d_v − 1): tokens whose rows set the same column
// are one word to the engine (compared without case). Read from the engine's X, not re-derived.
function repeatedWords(stage, tokens, c) {
  const byColumn = new Map();
  for (let r = 0; r < c.seqLen; r += 1) {
    const start = r * c.dModel + c.seqLen;
    const column = Array.from(stage.values.subarray(start, start + c.dV)).indexOf(1);
    byColumn.set(column, [...(byColumn.get(column) ?? []), r]);
  }
  return [...byColumn.values()].filter((rows) => rows.length > 1);
}

function builtFrom({ config: c, stage, tokens }) {
  const repeats = repeatedWords(stage, tokens, c).map(
    (rows) => `\u201c${tokens[rows[0]] ?? rows[0]}\u201d (tokens ${shortList(rows.map(String), ', ')})`,
  );
  const shared = repeats.length
    ? `so the rows of ${repeats.join(' and of ')} share a word column`
    : 'no word repeats here, so every token has a word column of its own';
  return (
    'These rows are built, not drawn: each token\u2019s position as a one-hot block, its ' +
    `word as a one-hot block (one column per distinct word: ${shared}), and a constant 1. ` +
    'Change the words and X changes with them.'
  );
}

// The model's x at layer l: the residual stream that layer reads (embedded, or layer l − 1's residual).
const streamRead = (l) =>
  l === 0
    ? 'Layer 0 reads the residual stream as the embeddings made it: R\u2080, one row per token. Its queries, ' +
      'keys and values are all computed from these rows.'
    : `Layer ${l} reads the residual stream after layer ${l - 1}: the embeddings plus everything the heads ` +
      `before it wrote. What a layer-${l - 1} head copied into a row (the previous token, say) is now part ` +
      'of that row, for this layer\u2019s heads to match on.';

const input = (id, title, tex, what) => ({
  id,
  group: 'inputs',
  title,
  result: id === 'x' ? 'X' : id === 'x_q' ? 'X_q' : 'X_kv',
  figure: () => [],
  formula: () => tex,
  explanation: (ctx) => {
    if (ctx.config.kind === 'model') return streamRead(ctx.stage.step);
    return ctx.config.kind === 'designed'
      ? `${what(ctx.config)} ${builtFrom(ctx)}`
      : `${what(ctx.config)} ${drawnFrom(ctx)} The tokens only label the ` +
          `rows: the vectors are random, not learned embeddings of those words.`;
  },
  explain: null,
  highlight: null,
});

// X + PE: the sinusoidal encoding added to the rows before any projection (engine: encoding.hpp).
const POSITIONED = entry({
  id: 'x_pos',
  group: 'inputs',
  title: 'Positions added: X + PE',
  optional: { flag: 'positionalEncoding', after: 'x' },
  result: 'X + PE',
  figure: () => [{ operand: 0 }, { glyph: '+' }, { operand: 1 }],
  formula: () =>
    'X + PE, \\quad PE_{t,2c} = \\sin\\frac{t}{10000^{2c/d_{\\text{model}}}}, \\quad ' +
    'PE_{t,2c+1} = \\cos\\frac{t}{10000^{2c/d_{\\text{model}}}}',
  explanation: () =>
    'Without a mask, attention does not know the order of the tokens: shuffle the rows of X and every output ' +
    'row moves with its token, unchanged. The original Transformer adds a fixed pattern to each row once, a sine ' +
    'and a cosine per pair of features, with wavelengths from 2\u03c0 to 10000\u00b72\u03c0, so every position has ' +
    'a row of its own and PE of position t + \u0394 is a linear function of PE of t ' +
    '(Vaswani et al. 2017, \u00a73.5). Every projection reads X + PE.',
  explain: {
    symbolic: (i, j) => `(X + PE)_{${i},${j}} = X_{${i},${j}} + PE_{${i},${j}}`,
    filled: (e, { i: r, j: c }) => `(X + PE)_{${r},${c}} = ${n(e.addends[0])} + ${f(e.addends[1])} = ${n(e.value)}`,
  },
  highlight: ({ row: r, col: c }) => ({ 0: cell(r, c), 1: cell(r, c) }),
  operands: { X: 'X', PE: 'PE' },
  numpy: named({ self: 'X_pos' }),
});

export const INPUT_STAGES = [
  entry({
    ...input(
      'x',
      (c) => (c.kind === 'model' ? 'The layer\u2019s input: the stream R\u2097' : 'Input embeddings X'),
      'X \\in \\mathbb{R}^{T \\times d_{\\text{model}}}, \\quad T = \\text{seq\\_len}',
      () =>
        'One row per token: T = seq_len rows of d_model numbers. Queries, keys and ' +
        'values are all computed from this one matrix: the sequence attends to itself.',
    ),
    firstView: true,
    // The model's x is each layer's input, which its pass keeps beside the layer's stages.
    numpy: (structure, at) =>
      structure === 'model'
        ? ofLayer('x')(structure, at)
        : named({ self: 'X', 'encoder-layer': 'X', flash: 'X', mla: 'X' })(structure),
  }),
  POSITIONED,
  entry({
    ...input(
      'x_q',
      'Target tokens X_q',
      'X_q \\in \\mathbb{R}^{T_q \\times d_{\\text{model}}}',
      () => 'The sequence being written, one row per token (T_q rows). Only the queries come from here.',
    ),
    numpy: named({ cross: 'X_q' }),
  }),
  entry({
    ...input(
      'x_kv',
      'Source tokens X_kv',
      'X_{kv} \\in \\mathbb{R}^{T_{kv} \\times d_{\\text{model}}}',
      () =>
        'The sequence being read (T_kv rows), e.g. the encoder\u2019s output in an encoder\u2013decoder ' +
        'Transformer. Keys and values come from here. Some retrieval models (RETRO, Fusion-in-Decoder) ' +
        'cross-attend to retrieved passages this way, but most retrieval-augmented systems put the retrieved ' +
        'text into the decoder\u2019s own context, where causal self-attention reads it.',
    ),
    numpy: named({ cross: 'X_kv' }),
  }),
  entry({
    id: 'x_t',
    group: 'inputs',
    decodeStep: true,
    title: (c) => (c.kind === 'kv-cache' ? 'The new token x_t' : 'x_t'),
    result: 'x_t',
    terms: ['sinusoidal'],
    figure: () => [],
    // Under the sinusoidal encoding the engine's x_t is row t of X + PE (its term "sinusoidal").
    formula: (c, stage) =>
      `x_t = ${encoded(stage) ? '(X + PE)_{t,:}' : 'X_{t,:}'} \\in \\mathbb{R}^{1 \\times d_{\\text{model}}}`,
    explanation: ({ stage, config: c }) =>
      `Decode step t = ${stage.step} (of t = 0\u2026${c.seqLen - 1}): the decoder sees one new token, ` +
      `row ${stage.step} of X${encoded(stage) ? ' with its position\u2019s encoding added (X + PE)' : ''}. ` +
      'It is the only token whose query, key and value are computed this step.',
    explain: null,
    highlight: null,
    numpy: ofLayer('x_t'),
  }),
];
