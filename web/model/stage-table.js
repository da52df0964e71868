// Every stage the stepper can show, as data: one entry per engine stage id. The stage list,
// Prev/Next, the figures, the explanations, the explain panel and the browser tests all read
// this table; adding a stage is one entry here plus one record() call in the engine.
//
// Per entry:
//   id            the engine's stage id
//   group         where the stage list puts it: inputs, head, combine, layer
//   title         a string, or (config) → string
//   result        the result matrix's label
//   figure(c)     what stands left of "=": { operand: index (into the stage's operands),
//                 transpose?, label? } | { glyph } | { list: name, glyph } (every operand so named)
//   formula(c)    TeX
//   explanation(ctx)  text; ctx: { config, stage, tokens (the row labels), preset, models }
//   explain       null (drawn, not computed) or { symbolic(i, j, c), filled(e, { row, col, config }) }:
//                 the explain panel's two TeX lines for a cell and engine.explain's answer e
//   highlight(cell, e, c, stage)  → { [operand index]: { rows, cols, cells } } lit by a cell
//   sharedByGroup k and v: listed under every query head of their K/V group
//   decodeStep    a KV-cache decode step's own: x_t, and per K/V head k_new, v_new, k_cache, v_cache
//   optional      { flag, after }: a checkbox of the form adds the stage (flag: the form's field
//                 and the config's key), after the stage `after` of its head or step; while it is
//                 off, the stage list keeps its place (model/navigation.js)
//   part          the encoder layer's sub-layer the stage belongs to (attention when absent)
//   view          per-stage view options: arcs, overview (all heads' weights), rowTotals,
//                 maskedZero (cells the mask set to 0), sumFigure (a second figure, toggled),
//                 sequential (never negative: the sequential palette from 0), newRow, pruning

import { ATTENTION_STAGES } from './stages/attention-stages.js';
import { DECODE_STAGES } from './stages/decode-stages.js';
import { FLASH_STAGES } from './stages/flash-stages.js';
import { LAYER_STAGES } from './stages/layer-stages.js';

// The order stages are listed and fall back in: the lesson's, a decode step's new key and value
// and its caches beside k and v, the tiles before the results.
const ORDER = [
  'x',
  'x_q',
  'x_kv',
  'x_t',
  'q',
  'k',
  'v',
  'k_new',
  'v_new',
  'k_cache',
  'v_cache',
  'tile_scores',
  'tile_max',
  'tile_sum',
  'tile_out',
  'block_out',
  'scores',
  'scaled',
  'masked',
  'weights',
  'head',
  'concat',
  'pruned',
  'output',
  'residual1',
  'norm1',
  'ffn_pre',
  'ffn_hidden',
  'ffn_out',
  'residual2',
  'norm2',
  'stacked',
  'causal_reference',
  'reference',
];
const ALL = [...ATTENTION_STAGES, ...LAYER_STAGES, ...DECODE_STAGES, ...FLASH_STAGES];

export const STAGES = ORDER.map((id) => ALL.find((s) => s.id === id));

export const GROUPS = [
  { id: 'inputs', title: 'Inputs' },
  { id: 'head', title: 'Per head' },
  { id: 'tile', title: 'This tile' },
  { id: 'combine', title: 'Combine heads' },
  { id: 'layer', title: 'Add & norm, feed-forward' },
  { id: 'result', title: 'Result' },
];

// Operand captions, by the engine's operand names.
const OPERAND_LABELS = {
  X: 'X',
  X_q: 'X_q',
  X_kv: 'X_kv',
  W_Q: 'W_Q',
  W_K: 'W_K',
  W_V: 'W_V',
  Q: 'Q',
  K: 'K',
  V: 'V',
  scores: 'scores',
  scaled: 'scaled',
  masked: 'L',
  M: 'mask M',
  weights: 'weights',
  head: 'head',
  concat: 'concat',
  W_O: 'W_O',
  output: 'MultiHead(X)',
  residual1: 'R\u207d\u00b9\u207e',
  norm1: 'X\u207d\u00b9\u207e',
  W1: 'W\u2081',
  b1: 'b\u2081',
  ffn_pre: 'H',
  ffn_hidden: 'H\u207a',
  W2: 'W\u2082',
  b2: 'b\u2082',
  ffn_out: 'F',
  residual2: 'R\u207d\u00b2\u207e',
  x_t: 'x_t',
  k_new: 'k_t',
  v_new: 'v_t',
  K_cache: 'K (cached)',
  V_cache: 'V (cached)',
  Q_i: 'Q_i',
  K_j: 'K_j',
  V_j: 'V_j',
  tile_scores: 'S',
  m: 'm',
  l: 'l',
  P: 'P',
  O: 'O',
  pruned: "concat'",
  gate: 'gate g',
};

// Operands that cannot be negative: drawn with the sequential palette from 0, like the stages
// whose view says `sequential`.
export const NON_NEGATIVE_OPERANDS = new Set(['weights', 'ffn_hidden', 'l', 'P', '\u03b1', 'gate']);

export function operandLabel(op) {
  if (op.name === 'contribution') return `head ${op.head} \u00b7 W_O`;
  return OPERAND_LABELS[op.name] ?? op.name;
}

const BY_ID = new Map(STAGES.map((s) => [s.id, s]));

export function stageById(id) {
  return BY_ID.get(id) ?? null;
}

export function titleOf(entry, config) {
  return typeof entry.title === 'function' ? entry.title(config) : entry.title;
}
