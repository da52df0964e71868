// The page's one notation, as a table a learner opens from any stage: each symbol, what it is and
// its shape, for the quantities this trace holds (each stage entry's notation; the shapes are the
// trace's own axes), then the indices. Plain text (Unicode), so it needs no typesetting.

import { stageById } from './stage-table.js';

const INDICES = [
  ['i, j', 'a query and a key position (a row and a column of S, A, M); in FlashAttention a query and a key block'],
  ['a', 'a feature column, the index a product sums over (S = \u03a3\u2090 Q\u1d62\u2090 K\u2c7c\u2090)'],
  ['n', 'a query head, 0 \u2026 h \u2212 1'],
  ['g', 'a K/V head: query head n reads K/V head \u230an / group\u230b'],
  ['t', 'a decode step (the KV-cache chapter)'],
  [
    '\u03bc\u1d62',
    'row i\u2019s largest logit, which a softmax subtracts first (m in FlashAttention\u2019s running form)',
  ],
];

// Symbols of the positions and masks, listed when the trace's config uses them.
const POSITION_SYMBOLS = [
  [(c) => c.rope, 'p, o', 'a row of the sequence and the position of row 0 (RoPE\u2019s offset): row p sits at o + p'],
  [(c) => c.rope, 'c', 'a pair of columns RoPE turns together, (2c, 2c+1) or (c, c + d_rot/2)'],
  [
    (c) => c.rope,
    '\u03b8_c, \u03c6_{p,c}',
    'pair c\u2019s rate base^(\u22122c/d_rot), and its angle (o + p)\u00b7\u03b8_c at row p',
  ],
  [(c) => c.positionalEncoding, 'p, c', 'a position, and a sine/cosine pair of PE\u2019s columns (2c, 2c+1)'],
  [(c) => c.alibi, 'm_n, B', 'head n\u2019s ALiBi slope, and its bias B = \u2212m_n\u00b7(i \u2212 j)'],
  [(c) => c.alibi, '\u0394', 'a distance in tokens from query to key, i \u2212 j'],
  [
    (c) => c.window !== null && c.window !== undefined,
    'W',
    'the window: each query sees at most W keys, itself included',
  ],
  [
    (c) => c.prefix !== null && c.prefix !== undefined,
    'P',
    'the prefix: the first P positions see each other both ways',
  ],
];

const ZERO_BASED =
  'Everything here counts from 0, as numpy and the engine\u2019s trace do: the heads that ' +
  'Vaswani et al. (2017) number head_1 \u2026 head_h are heads 0 \u2026 h \u2212 1, ' +
  'the first token is position 0, and decode step t is the (t + 1)-th token. ' +
  'Only the progress counter counts from 1, because it counts stages, not positions: ' +
  '\u201cStage 1 of N\u201d is the first.';

const shapeOf = (stage) => `(${stage.axes.join(', ')})`;

/** steps: the stepper's steps ({ id, stage }) → { rows: [[symbol, meaning, shape]], indices, note };
 * config (the trace's) adds the rows of the positions and masks it uses. */
export function notationView(steps, config = {}) {
  const first = new Map();
  for (const s of steps) if (!first.has(s.id)) first.set(s.id, s.stage);
  const rows = [...first].flatMap(([id, stage]) => {
    const notation = stageById(id)?.notation;
    return notation ? [[...notation, shapeOf(stage)]] : [];
  });
  return {
    table: { headers: ['symbol', 'is', 'meaning', 'shape'], rows },
    indices: {
      headers: ['index', 'counts'],
      rows: [...INDICES, ...POSITION_SYMBOLS.filter(([uses]) => uses(config)).map(([, ...row]) => row)],
    },
    note: ZERO_BASED,
  };
}
