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
//   explanation(ctx)  text; ctx: { config, stage, preset, models }
//   explain       null (drawn, not computed) or { symbolic(i, j, c), filled(e, { row, col, config }) }:
//                 the explain panel's two TeX lines for a cell and engine.explain's answer e
//   highlight(cell, e, c, stage)  → { [operand index]: { rows, cols, cells } } lit by a cell
//   sharedByGroup k and v: listed under every query head of their K/V group
//   part          the encoder layer's sub-layer the stage belongs to (attention when absent)
//   view          per-stage view options: arcs, overview (all heads' weights), rowTotals,
//                 maskedZero (cells the mask set to 0), sumFigure (a second figure, toggled)

import { ATTENTION_STAGES } from './stages/attention-stages.js';
import { LAYER_STAGES } from './stages/layer-stages.js';

export const STAGES = [...ATTENTION_STAGES, ...LAYER_STAGES];

export const GROUPS = [
  { id: 'inputs', title: 'Inputs' },
  { id: 'head', title: 'Per head' },
  { id: 'combine', title: 'Combine heads' },
  { id: 'layer', title: 'Add & norm, feed-forward' },
];

// Operand captions, by the engine's operand names.
const OPERAND_LABELS = {
  X: 'X', X_q: 'X_q', X_kv: 'X_kv', W_Q: 'W_Q', W_K: 'W_K', W_V: 'W_V', Q: 'Q', K: 'K', V: 'V',
  scores: 'scores', scaled: 'scaled', masked: 'L', M: 'mask M', weights: 'weights', head: 'head',
  concat: 'concat', W_O: 'W_O', output: 'MultiHead(X)', residual1: 'R\u207d\u00b9\u207e', norm1: 'X\u207d\u00b9\u207e',
  W1: 'W\u2081', b1: 'b\u2081', ffn_pre: 'H', ffn_hidden: 'H\u207a', W2: 'W\u2082', b2: 'b\u2082',
  ffn_out: 'F', residual2: 'R\u207d\u00b2\u207e',
};

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
