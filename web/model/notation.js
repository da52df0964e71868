// The page's one notation, as a table a learner opens from any stage: each symbol, what it is and
// its shape, for the quantities this trace holds (each stage entry's notation; the shapes are the
// trace's own axes), then the indices. Plain text (Unicode), so it needs no typesetting.

import { stageById } from './stage-table.js';

const INDICES = [
  ['i, j', 'a query and a key position (a row and a column of S, A, M); in FlashAttention a query and a key block'],
  ['n', 'a query head, 0 \u2026 h \u2212 1'],
  ['g', 'a K/V head: query head n reads K/V head \u230an / group\u230b'],
  ['t', 'a decode step (the KV-cache chapter)'],
];

const ZERO_BASED =
  'Everything here counts from 0, as numpy and the engine\u2019s trace do: the heads that ' +
  'Vaswani et al. (2017) number head_1 \u2026 head_h are heads 0 \u2026 h \u2212 1, ' +
  'the first token is position 0, and decode step t is the (t + 1)-th token. ' +
  'Only the progress counter counts from 1, because it counts stages, not positions: ' +
  '\u201cStage 1 of N\u201d is the first.';

const shapeOf = (stage) => `(${stage.axes.join(', ')})`;

/** steps: the stepper's steps ({ id, stage }) → { rows: [[symbol, meaning, shape]], indices, note }. */
export function notationView(steps) {
  const first = new Map();
  for (const s of steps) if (!first.has(s.id)) first.set(s.id, s.stage);
  const rows = [...first].flatMap(([id, stage]) => {
    const notation = stageById(id)?.notation;
    return notation ? [[...notation, shapeOf(stage)]] : [];
  });
  return {
    table: { headers: ['symbol', 'is', 'meaning', 'shape'], rows },
    indices: { headers: ['index', 'counts'], rows: INDICES },
    note: ZERO_BASED,
  };
}
