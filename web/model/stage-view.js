// One step of the trace → everything the page shows for it: title, shape equation, formula,
// explanation, the figure (operands = result as heatmaps, the arc view beside the weights), the
// head overview at weights and the sum over heads at output. Pure.

import { alignEquation } from './dims.js';
import { matrixView, maskedFrom } from './matrix-view.js';
import { cellColours, symmetricRange } from './palette.js';
import { rowTotalsForDisplay } from './row-totals.js';
import { stageById, operandKey } from './stage-table.js';

const LABELS = {
  X: 'X', W_Q: 'W_Q', W_K: 'W_K', W_V: 'W_V', Q: 'Q', K: 'K', V: 'V',
  scores: 'scores', scaled: 'scaled', masked: 'masked', weights: 'weights',
  head: 'head', concat: 'concat', W_O: 'W_O', contribution: 'head · W_O[rows of head]', output: 'output',
};

function operandItem(step, entry, op, item, ctx) {
  const key = operandKey(entry, op);
  const highlight = ctx.selection && entry.highlight ? entry.highlight(ctx.selection, ctx.explained, ctx.config)[key] : null;
  const listed = entry.listOperand === op.name;
  const label = item.label ?? (listed && op.name === 'contribution' ? `head ${op.head} · W_O` : LABELS[op.name] ?? op.name);
  return {
    kind: 'matrix',
    data: matrixView({
      key: `${step.index}:${key}`,
      name: op.name,
      label,
      head: op.head,
      shape: op.shape,
      values: op.values,
      tokens: ctx.tokens,
      theme: ctx.theme,
      config: ctx.config,
      transpose: item.transpose,
      highlight,
    }),
  };
}

// Figure items (operands and glyphs) of a figure description from the stage table.
function figureItems(step, entry, description, ctx) {
  const items = [];
  for (const item of description) {
    if (item.list) {
      const ops = step.stage.operands.filter((o) => o.name === item.list);
      ops.forEach((op, i) => {
        if (i > 0) items.push({ kind: 'glyph', text: item.glyph });
        items.push(operandItem(step, entry, op, {}, ctx));
      });
    } else if (item.operand) {
      const op = step.stage.operands.find((o) => o.name === item.operand);
      if (op) items.push(operandItem(step, entry, op, item, ctx));
    } else if (item.glyph) {
      items.push({ kind: 'glyph', text: item.glyph });
    }
  }
  return items;
}

function resultItem(step, entry, ctx) {
  const { stage } = step;
  const [rows, cols] = stage.shape;
  const logits = entry.id === 'weights' && ctx.config.causal ? stage.operands[0]?.values : null;
  const selected = ctx.selection && entry.explainable ? ctx.selection : null;
  return {
    kind: 'matrix',
    result: true,
    data: matrixView({
      key: `${step.index}:result`,
      name: entry.result,
      label: LABELS[entry.result] ?? entry.result,
      head: stage.head,
      shape: stage.shape,
      values: stage.values,
      tokens: ctx.tokens,
      theme: ctx.theme,
      config: ctx.config,
      selected,
      highlight: selected ? { cells: [[selected.row, selected.col]] } : null,
      interactive: entry.explainable,
      totals: entry.rowTotals ? { label: 'Σ', texts: rowTotalsForDisplay(stage.values, rows, cols) } : null,
      maskedZero: maskedFrom(logits),
    }),
  };
}

// Small multiples of every head's weights (fills only), on one shared scale so heads compare.
function headOverview(steps, step, ctx) {
  if (ctx.config.numHeads < 2) return null;
  const all = steps.filter((s) => s.id === 'weights');
  const range = Math.max(...all.map((s) => symmetricRange(s.stage.values)));
  return all.map((s) => {
    const [rows, cols] = s.stage.shape;
    const fills = Array.from(s.stage.values, (v) => cellColours(v, range, ctx.theme).fill);
    return { head: s.head, rows, cols, fills, current: s.head === step.head, label: `Head ${s.head}` };
  });
}

function arcView(step, ctx) {
  const [rows, cols] = step.stage.shape;
  return {
    head: step.head,
    rows,
    cols,
    labels: ctx.tokens.length === rows ? ctx.tokens : Array.from({ length: rows }, (_, i) => String(i)),
    strengths: step.stage.values,
    focusRow: ctx.selection ? ctx.selection.row : null,
  };
}

/**
 * ctx: { trace, steps, tokens, theme, selection: { row, col } | null, explained, showContributions }
 */
export function stageView(steps, index, ctx) {
  const step = steps[index];
  const entry = stageById(step.id);
  if (!entry) throw new Error(`stage ${step.id}: not in the stage table`);
  const context = { ...ctx, config: ctx.trace.config };
  const figure = [...figureItems(step, entry, entry.figure(context.config), context)];
  if (figure.length) figure.push({ kind: 'glyph', text: '=' });
  figure.push(resultItem(step, entry, context));
  if (step.id === 'weights') figure.push({ kind: 'aside', view: 'arcs', data: arcView(step, context) });
  const sum = entry.sumFigure && ctx.showContributions ? figureItems(step, entry, entry.sumFigure(), context) : null;
  return {
    id: step.id,
    head: step.head,
    title: entry.title,
    headLabel: step.head !== null && context.config.numHeads > 1 ? `head ${step.head}` : null,
    equation: { text: step.stage.equation, symbolic: step.stage.symbolic, tokens: alignEquation(step.stage.equation, step.stage.symbolic) },
    formula: entry.formula(context.config),
    explanation: entry.explanation(context.config),
    explainable: entry.explainable,
    figure,
    sumFigure: sum ? [...sum, { kind: 'glyph', text: '= output' }] : null,
    hasSumToggle: Boolean(entry.sumFigure),
    overview: step.id === 'weights' ? headOverview(steps, step, context) : null,
  };
}
