// One step of the trace → everything the page shows for it: title, shape equation, formula,
// explanation, the figure (operands = result as heatmaps, plus the views the stage's entry
// asks for: arcs, the head overview, the sum over heads). Pure.

import { alignEquation } from './dims.js';
import { formatCell } from './format.js';
import { matrixView, maskedFrom } from './matrix-view.js';
import { fillRgb, rangeOf } from './palette.js';
import { scaleOf } from './scales.js';
import { operandCaption, operandNonNegative, stageById, titleOf } from './stage-table.js';

const KV_OPERANDS = ['K', 'V', 'W_K', 'W_V'];

// K, V and their weights belong to a K/V head when query heads share them: say which.
function ownerOf(op, stage, c) {
  const shared = c.numKvHeads < c.numHeads && KV_OPERANDS.includes(op.name);
  if (shared) return { head: null, suffix: ` of K/V head ${stage.kvHead}` };
  return { head: c.numHeads > 1 ? op.head : null, suffix: '' }; // one head: no badge to tell apart
}

// A matrix's key names its place (stage, head, decode step or tile, operand), not its index in
// this trace's steps: the same place in a new trace (a config change) keeps its view, refilled.
const placeKey = (step, part) => `${step.id}.${step.head ?? ''}.${step.step ?? ''}:${part}`;

// A full ring's old rows (the operands K_cache, V_cache) hold the tokens they held before the step.
function operandTokens(op, stage, ctx) {
  if (!['K_cache', 'V_cache'].includes(op.name) || ctx.config.window === null || !stage.step) return ctx.tokens;
  return { ...ctx.tokens, W: slotTokens(ctx.config, stage.step - 1).map((j) => ctx.tokens.T?.[j] ?? String(j)) };
}

function operandItem(step, entry, index, item, ctx) {
  const op = step.stage.operands[index];
  const lit =
    ctx.selection && entry.highlight ? entry.highlight(ctx.selection, ctx.explained, ctx.config, step.stage) : {};
  const owner = ownerOf(op, step.stage, ctx.config);
  return {
    kind: 'matrix',
    data: matrixView({
      key: placeKey(step, index),
      name: op.name,
      label: `${item.label ?? operandCaption(entry, op)}${item.transpose && !item.label ? 'ᵀ' : ''}${owner.suffix}`,
      head: owner.head,
      shape: op.shape,
      axes: op.axes,
      values: op.values,
      tokens: operandTokens(op, step.stage, ctx),
      theme: ctx.theme,
      config: ctx.config,
      transpose: item.transpose,
      highlight: lit[index] ?? null,
      scale: scaleOf({
        id: op.name,
        values: op.values,
        head: op.head,
        step: step.stage.step,
        trace: ctx.trace,
        nonNegative: operandNonNegative(entry, op),
      }),
    }),
  };
}

// Figure items (operands and glyphs) of a figure description from the stage table.
function figureItems(step, entry, description, ctx) {
  const items = [];
  for (const item of description) {
    if (item.list) {
      step.stage.operands.forEach((op, index) => {
        if (op.name !== item.list) return;
        if (items.length && item.glyph) items.push({ kind: 'glyph', text: item.glyph });
        items.push(operandItem(step, entry, index, {}, ctx));
      });
    } else if (item.operand !== undefined) {
      if (step.stage.operands[item.operand]) items.push(operandItem(step, entry, item.operand, item, ctx));
    } else if (item.glyph) {
      items.push({ kind: 'glyph', text: item.glyph });
    }
  }
  return items;
}

function resultItem(step, entry, ctx) {
  const { stage } = step;
  const view = entry.view ?? {};
  const selected = ctx.selection && entry.explain ? ctx.selection : null;
  // The row a decode step just wrote to its cache (its slot in a ring of W), lit until a cell is chosen.
  const slot = ctx.config.cacheSlots?.[stage.step] ?? stage.shape[0] - 1;
  const fresh = view.newRow && !selected ? { rows: [slot] } : null;
  return {
    kind: 'matrix',
    result: true,
    data: matrixView({
      key: placeKey(step, 'result'),
      name: entry.result,
      label: entry.result,
      head: ctx.config.numHeads > 1 ? stage.head : null,
      shape: stage.shape,
      axes: stage.axes,
      values: stage.values,
      tokens: ctx.tokens,
      theme: ctx.theme,
      config: ctx.config,
      selected,
      highlight: selected ? { cells: [[selected.row, selected.col]] } : fresh,
      interactive: Boolean(entry.explain),
      totals: view.rowTotals && stage.totals ? { label: '\u03a3', texts: Array.from(stage.totals, formatCell) } : null,
      maskedZero: view.maskedZero ? maskedFrom(stage.operands[0]?.values) : null,
      scale: scaleOf({
        id: step.id,
        values: stage.values,
        head: stage.head,
        step: stage.step,
        trace: ctx.trace,
        nonNegative: entry.nonNegative,
      }),
    }),
  };
}

// Small multiples of every head's weights at this step (fills only, as RGBA pixels), on one
// shared scale so heads compare. A matrix larger than OVERVIEW_SIDE a side is sampled (every k-th
// row and column, no arithmetic), so a 512 × 512 stage draws 128 × 128 fills a head. The pixels
// of a matrix are made once per scale and theme (a new trace brings new matrices).
const OVERVIEW_SIDE = 128;
const overviewPixels = new WeakMap(); // stage values → Map(scale key → { rows, cols, pixels })

const sampled = (n) =>
  Array.from({ length: Math.min(n, OVERVIEW_SIDE) }, (_, i) => Math.floor((i * n) / Math.min(n, OVERVIEW_SIDE)));

function thumbnailPixels(stage, range, theme, sequential) {
  const key = `${range}:${theme}:${sequential}`;
  if (!overviewPixels.has(stage.values)) overviewPixels.set(stage.values, new Map());
  const made = overviewPixels.get(stage.values);
  if (made.has(key)) return made.get(key);
  const [rows, cols] = stage.shape;
  const [rs, cs] = [sampled(rows), sampled(cols)];
  const pixels = new Uint8ClampedArray(rs.length * cs.length * 4);
  let k = 0;
  for (const r of rs) {
    for (const c of cs) {
      const rgb = fillRgb(stage.values[r * cols + c], range, theme, sequential);
      pixels[k] = rgb >> 16;
      pixels[k + 1] = (rgb >> 8) & 255;
      pixels[k + 2] = rgb & 255;
      pixels[k + 3] = 255;
      k += 4;
    }
  }
  made.set(key, { rows: rs.length, cols: cs.length, pixels });
  return made.get(key);
}

function headOverview(steps, step, ctx, sequential) {
  if (ctx.config.numHeads < 2) return null;
  const all = steps.filter((s) => s.id === step.id && s.stage.step === step.stage.step);
  // Weights on their fixed 0 … 1 (scales.js); other stages on the heads' largest |value|.
  const unit = scaleOf({ id: step.id, values: step.stage.values }).kind === 'unit';
  const range = unit ? 1 : Math.max(...all.map((s) => rangeOf(s.stage.values)));
  return all.map((s) => ({
    head: s.head,
    ...thumbnailPixels(s.stage, range, ctx.theme, Boolean(sequential)),
    current: s.head === step.head,
    label: `Head ${s.head}`,
  }));
}

// Arcs for every query–key pair read well up to this many tokens; beyond, the heatmap alone.
const ARC_TOKENS = 64;

function arcView(step, ctx) {
  const [rows, cols] = step.stage.shape;
  const [rowAxis, colAxis] = step.stage.axes;
  const labels = (axis, n) =>
    ctx.tokens[axis]?.length === n ? ctx.tokens[axis] : Array.from({ length: n }, (_, i) => String(i));
  return {
    head: step.head,
    rows,
    cols,
    rowLabels: labels(rowAxis, rows),
    colLabels: labels(colAxis, cols),
    strengths: step.stage.values,
    focusRow: ctx.selection ? ctx.selection.row : null,
  };
}

// "head 2", or for a K/V head that several query heads share, "K/V head 1 (heads 2–3)".
function headLabel(entry, stage, c) {
  if (stage.head === null || c.numHeads < 2) return null;
  if (!entry.sharedByGroup || c.numKvHeads === c.numHeads) return `head ${stage.head}`;
  const size = c.numHeads / c.numKvHeads;
  return `K/V head ${stage.kvHead} (heads ${stage.head}\u2013${stage.head + size - 1})`;
}

/** The token each row of a decode step's cache holds after the step: the engine's config.slotTokens
 * (a full ring's slots are out of order; sink tokens keep the first rows). */
export function slotTokens(config, step) {
  return Array.from(config.slotTokens[step]);
}

// Token labels for the axes of this step: a decode step's single row is token t and its cache
// rows tokens 0 … t (in a full ring of W, each slot's token); a tile's rows and columns are the
// tokens its query and key rows cover.
function tokensAt(tokens, stage, config) {
  const all = tokens.T ?? [];
  const at = { ...tokens };
  if (stage.step !== null && stage.step !== undefined && !stage.tile) {
    Object.assign(at, { 1: [all[stage.step]], t: all.slice(0, stage.step), 't+1': all.slice(0, stage.step + 1) });
    if (config.kind === 'kv-cache' && config.window !== null)
      at.W = slotTokens(config, stage.step).map((j) => all[j] ?? String(j));
  }
  if (stage.tile) {
    Object.assign(at, { B_r: all.slice(...stage.tile.queryRows), B_c: all.slice(...stage.tile.keyRows) });
  }
  return at;
}

/**
 * ctx: { trace, tokens: { [axis]: labels }, theme, selection: { row, col } | null, explained,
 *        showContributions, preset, models }
 */
export function stageView(steps, index, ctx) {
  const step = steps[index];
  const entry = stageById(step.id);
  if (!entry) throw new Error(`stage ${step.id}: not in the stage table`);
  const context = { ...ctx, config: ctx.trace.config, tokens: tokensAt(ctx.tokens, step.stage, ctx.trace.config) };
  const view = entry.view ?? {};
  const figure = figureItems(step, entry, entry.figure(context.config, step.stage), context);
  // all_heads has no result of its own: its operands are the figure.
  if (entry.result) {
    if (figure.length) figure.push({ kind: 'glyph', text: '=' });
    figure.push(resultItem(step, entry, context));
  }
  // A large view (more tokens than the arcs take): its operands are drawn summarised too.
  const large = Math.max(...step.stage.shape) > ARC_TOKENS;
  for (const item of figure) if (item.kind === 'matrix') item.data.large = large;
  if (view.arcs && !large) figure.push({ kind: 'aside', view: 'arcs', data: arcView(step, context) });
  // The second figure, toggled: the same result reached another way (each head's share of the output,
  // MLA's scores through the latent), when the stage has its operands.
  const second = view.sumFigure?.items(context.config, step.stage) ?? null;
  const sum = second && ctx.showContributions ? figureItems(step, entry, second, context) : null;
  return {
    id: step.id,
    head: step.head,
    step: step.step,
    title: titleOf(entry, context.config, step.stage),
    headLabel: headLabel(entry, step.stage, context.config),
    equation: {
      text: step.stage.equation,
      symbolic: step.stage.symbolic,
      tokens: alignEquation(step.stage.equation, step.stage.symbolic),
    },
    formula: entry.formula(context.config, step.stage),
    explanation: entry.explanation({
      config: context.config,
      stage: step.stage,
      tokens: context.tokens.T ?? [],
      labels: context.tokens,
      preset: ctx.preset,
      models: ctx.models ?? [],
    }),
    explainable: Boolean(entry.explain),
    figure,
    sumFigure: sum ? [...sum, { kind: 'glyph', text: view.sumFigure.result }] : null,
    hasSumToggle: Boolean(second),
    sumLabel: second ? view.sumFigure.label : null,
    overview: view.overview ? () => headOverview(steps, step, context, entry.nonNegative) : null, // made when drawn
  };
}
