// Every stage the stepper can show, as data: one entry per engine stage id, declared once in
// web/model/stages/ and listed here in the engine's order (the files in order, each file's
// entries in order). The stage list, Prev/Next, the figures, the explanations, the explain
// panel, the quiz, the first view, the numpy export and the browser tests all read this table.
// Each entry is made by entry() (stages/entry.js), which fills the defaults of the five fields
// most entries leave out. tests/wasm/stage-declarations.test.mjs holds its ids equal to
// engine.stages() (but the composed ones) and checks that every entry states every field of the first list below.
//
// Per entry, stated by each:
//   id            the engine's stage id
//   group         where the stage list puts it: inputs, head, tile, combine, layer, result,
//                 prediction (the model's logits to loss), gradient, gradient-head,
//                 gradient-input (the backward pass)
//   title         a string, or (config, stage) → string (stage: the trace's, or null for a stage
//                 listed while its checkbox leaves it out)
//   result        the result matrix's label
//   figure(c, stage)  what stands left of "=": { operand: index (into the stage's operands),
//                 transpose?, label? } | { glyph } | { list: name, glyph } (every operand so named)
//   formula(c, stage)  TeX; stage: the trace's (its operands and terms say what the engine applied)
//   explanation(ctx)  text; ctx: { config, stage, tokens (the row labels), preset, models }
//   explain       null (drawn, not computed) or { symbolic(i, j, c, stage),
//                 filled(e, { row, col, i, j, config, stage }) }:
//                 the explain panel's two TeX lines for a cell and engine.explain's answer e; row and
//                 col index the stage's matrix, i and j name the positions they stand for (a decode
//                 step's row is token t, a tile's rows and columns its blocks': explain-view.js)
//   highlight     null, or (cell, e, c, stage) → { [operand index]: { rows, cols, cells } } lit by a cell
//   numpy         (structure, { head, kvHead, step }) → where the exported numpy script keeps it,
//                 or null (stages/numpy-paths.js)
// Filled by entry() when left out (the default in brackets):
//   operands      { [the engine's operand name]: caption | { label, nonNegative } | (op) → caption }
//                 for every operand the engine may record for this stage that is not named after
//                 a stage (those take that stage's result label and sign: operandCaption) ({})
//   nonNegative   the result cannot be negative: the sequential palette from 0 (false)
//   quiz          the value questions the stage asks after its shape (model/quiz-questions.js) ([])
//   firstView     the stage may open a first view from the first bundles (web/later/first-view.js)
//                 (false)
//   terms         the terms of the engine's stage (engine.stages()) its title, formula and text render
//                 ([]): exactly those the engine declares for it
// Optional:
//   composed      the page composes the stage from the trace's own stages (all_heads: every
//                 head's weights side by side; model/navigation.js); the engine has no such stage
//   sharedByGroup k and v: listed under every query head of their K/V group
//   decodeStep    a KV-cache decode step's own: x_t, and per K/V head k_new, v_new, k_cache, v_cache
//   optional      { flag, after }: a checkbox of the form adds the stage (flag: the form's field
//                 and the config's key), after the stage `after` of its head or step; while it is
//                 off, the stage list keeps its place (model/navigation.js)
//   part          the encoder layer's sub-layer the stage belongs to (attention when absent)
//   view          per-stage view options: arcs, overview (all heads' weights), rowTotals,
//                 maskedZero (cells the mask set to 0), sumFigure ({ items(c, stage) → a figure or
//                 null, result, label }: the same result reached another way, a second figure toggled),
//                 newRow, pruning

import { BACKWARD_STAGES } from './stages/backward.js';
import { COMBINE_STAGES } from './stages/combine.js';
import { HEAD_STAGES } from './stages/head.js';
import { INPUT_STAGES } from './stages/inputs.js';
import { LATENT_STAGES } from './stages/latent.js';
import { LAYER_STAGES } from './stages/layer.js';
import { EMBEDDING_STAGES, MODEL_STAGES } from './stages/model.js';
import { PROJECTION_STAGES } from './stages/projections.js';
import { RESULT_STAGES } from './stages/results.js';
import { TILE_STAGES } from './stages/tiles.js';

/** The fields every entry states (tests/wasm/stage-declarations.test.mjs checks them); entry()
 * fills the others. */
export const ENTRY_FIELDS = [
  'id',
  'group',
  'title',
  'result',
  'figure',
  'formula',
  'explanation',
  'explain',
  'highlight',
  'numpy',
];

export const STAGES = [
  ...EMBEDDING_STAGES,
  ...INPUT_STAGES,
  ...PROJECTION_STAGES,
  ...LATENT_STAGES,
  ...TILE_STAGES,
  ...HEAD_STAGES,
  ...COMBINE_STAGES,
  ...LAYER_STAGES,
  ...RESULT_STAGES,
  ...MODEL_STAGES,
  ...BACKWARD_STAGES,
];

export const GROUPS = [
  { id: 'inputs', title: 'Inputs' },
  { id: 'head', title: 'Per head', perHead: true },
  { id: 'tile', title: 'This tile' },
  { id: 'combine', title: 'Combine heads' },
  { id: 'layer', title: 'Add & norm, feed-forward' },
  { id: 'result', title: 'Result' },
  { id: 'prediction', title: 'Prediction and loss' },
  { id: 'gradient', title: 'Backward: from the output' },
  { id: 'gradient-head', title: 'Backward, per head', perHead: true },
  { id: 'gradient-input', title: 'Backward: to the input' },
];

const BY_ID = new Map(STAGES.map((s) => [s.id, s]));

export function stageById(id) {
  return BY_ID.get(id) ?? null;
}

/** The caption the figure gives an operand of this stage: its entry's own, else (an operand
 * named after a stage) that stage's result label. */
export function operandCaption(entry, op) {
  const own = entry.operands[op.name];
  if (typeof own === 'function') return own(op);
  if (own !== undefined) return typeof own === 'object' ? own.label : own;
  return stageById(op.name)?.result ?? op.name;
}

/** Whether the operand can never be negative (drawn with the sequential palette from 0). */
export function operandNonNegative(entry, op) {
  const own = entry.operands[op.name];
  return own === undefined ? Boolean(stageById(op.name)?.nonNegative) : Boolean(own.nonNegative);
}

export function titleOf(entry, config, stage = null) {
  return typeof entry.title === 'function' ? entry.title(config, stage) : entry.title;
}
