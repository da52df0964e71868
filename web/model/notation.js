// The page's one notation, as a table a learner opens from any stage: each symbol, what it is and
// its shape, for the quantities this trace holds (the shapes are the trace's own axes), then the
// indices. Plain text (Unicode), so it needs no typesetting.

// [stage id, symbol, what it is, meaning]; W_Q, W_K, W_V, W_O written as the operands are.
const MEANING = [
  ['x', 'X', 'the embeddings', 'one row a token'],
  ['x_q', 'X_q', 'the target', 'the sequence that asks (the queries)'],
  ['x_kv', 'X_kv', 'the source', 'the sequence asked (the keys and values)'],
  ['x_pos', 'X + PE', 'X with positions', 'the sinusoidal encoding added'],
  ['x_t', 'x_t', 'row t of X', 'the token decoded at step t'],
  ['q', 'Q\u2099', 'X \u00b7 W_Q of head n', 'head n\u2019s queries'],
  ['k', 'K_g', 'X \u00b7 W_K of K/V head g', 'the keys'],
  ['v', 'V_g', 'X \u00b7 W_V of K/V head g', 'the values'],
  ['q_rot', 'Q\u0302\u2099', 'Q\u2099 turned', 'each query turned by its position (RoPE)'],
  ['k_rot', 'K\u0302_g', 'K_g turned', 'each key turned by its position (RoPE)'],
  ['k_cache', 'K_\u2264t', 'the cached keys', 'the keys of tokens 0 \u2026 t'],
  ['v_cache', 'V_\u2264t', 'the cached values', 'the values of tokens 0 \u2026 t'],
  ['scores', 'S', 'Q \u00b7 K\u1d40', 'every query against every key'],
  ['scaled', 'S\u0303', 'S / \u221ad_k', 'the scores scaled'],
  ['biased', 'S\u0303 + B', 'ALiBi', 'B: a penalty growing with the distance i \u2212 j'],
  ['masked', 'L', 'S\u0303 + M', 'the logits; M is 0 where a key is seen, \u2212\u221e where it is hidden'],
  [
    'weights',
    'A',
    'softmax(L) by rows',
    'the attention weights, each row summing to 1 (softmax(S\u0303) without a mask)',
  ],
  ['head', 'H\u2099', 'A \u00b7 V', 'head n\u2019s output: each row a weighted average of value rows'],
  ['concat', 'concat', '[H\u2080 \u2026 H_h\u22121]', 'the heads side by side'],
  ['output', 'O', 'concat \u00b7 W_O', 'the layer\u2019s output'],
  ['tile_scores', 'S_ij', 'Q_i \u00b7 K_j\u1d40 / \u221ad_k', 'one tile: query block i against key block j'],
  ['tile_max', 'm', 'max(m, rowmax S_ij)', 'each row\u2019s running maximum'],
  [
    'tile_sum',
    'l',
    '\u03b1\u00b7l + rowsum P',
    'each row\u2019s running sum; P = exp(S_ij \u2212 m), \u03b1 = exp(m_old \u2212 m)',
  ],
  ['tile_out', 'O\u0303', '\u03b1\u00b7O\u0303 + P \u00b7 V_j', 'the running output, not yet divided by l'],
  ['block_out', 'O', 'O\u0303 / l', 'a query block\u2019s output'],
];

const INDICES = [
  ['i, j', 'a query and a key position (a row and a column of S, A, M); in FlashAttention a query and a key block'],
  ['n', 'a query head, 0 \u2026 h \u2212 1'],
  ['g', 'a K/V head: query head n reads K/V head \u230an / group\u230b'],
  ['t', 'a decode step (the KV-cache chapter)'],
];

const ZERO_BASED =
  'Everything here counts from 0, as numpy and the engine\u2019s trace do: the lesson\u2019s head_1 \u2026 head_h ' +
  'are heads 0 \u2026 h \u2212 1, its first token is position 0, and decode step t is the (t + 1)-th token. ' +
  'Only the progress counter counts from 1, because it counts stages, not positions: ' +
  '\u201cStage 1 of N\u201d is the first.';

const shapeOf = (stage) => `(${stage.axes.join(', ')})`;

/** steps: the stepper's steps ({ id, stage }) → { rows: [[symbol, meaning, shape]], indices, note }. */
export function notationView(steps) {
  const first = new Map();
  for (const s of steps) if (!first.has(s.id)) first.set(s.id, s.stage);
  const rows = MEANING.filter(([id]) => first.has(id)).map(([id, symbol, is, meaning]) => [
    symbol,
    is,
    meaning,
    shapeOf(first.get(id)),
  ]);
  return {
    table: { headers: ['symbol', 'is', 'meaning', 'shape'], rows },
    indices: { headers: ['index', 'counts'], rows: INDICES },
    note: ZERO_BASED,
  };
}
