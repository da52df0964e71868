// The hint a wrong shape gets, derived from the stage's operands as its figure shows them (their
// names and the trace's shapes, a transposed operand swapped): "Q is (5, 4) and Kᵀ is (4, 5):
// a product takes the outer sizes". The rule is chosen by the figure's glyph (@, +, softmax, ÷,
// ⊕ rows, rowsum …), so a new stage whose figure uses a known glyph gets a hint for free.

import { formatShape } from './quiz-parse.js';
import { operandCaption } from './stage-table.js';

// The figure's items in order: { glyph } or { label, shape } for each operand drawn.
function figureItems(stage, entry, config) {
  const items = [];
  const operand = (op, item = {}) => ({
    label: item.label ?? operandCaption(entry, op),
    shape: item.transpose ? [op.shape[1], op.shape[0]] : op.shape,
  });
  for (const item of entry.figure(config, stage)) {
    if (item.list) {
      stage.operands
        .filter((op) => op.name === item.list)
        .forEach((op, k) => items.push(...(k ? [{ glyph: item.glyph }] : []), operand(op)));
    } else if (item.glyph) items.push({ glyph: item.glyph });
    else if (stage.operands[item.operand]) items.push(operand(stage.operands[item.operand], item));
  }
  return items;
}

const is = (o) => `${o.label} is ${formatShape(o.shape)}`;
const matrices = (items) => items.filter((i) => i.shape);

// Each rule: which glyph it reads, and the sentence it makes from the items around that glyph.
const RULES = [
  {
    glyph: (g) => g === '@',
    hint: (items, at) =>
      `${is(items[at - 1])} and ${is(items[at + 1])}: a product takes the outer sizes, ` +
      `the rows of ${items[at - 1].label} and the columns of ${items[at + 1].label}.`,
  },
  {
    glyph: (g) => /rowsum|rowmax/.test(g),
    hint: (items, at) =>
      `${is(items[at + 1])}: taking one number from each of its rows leaves a single column, as many rows as before.`,
  },
  {
    glyph: (g) => g.includes('rows'), // ⊕ rows: a cache with a new row appended
    hint: (items) =>
      `${is(matrices(items)[0])} and the new row ${is(matrices(items)[1])}: ` +
      `appending a row below adds one to the rows and keeps the columns.`,
  },
  {
    glyph: (g) => g === '|',
    hint: (items) =>
      `${matrices(items).length} heads, each ${formatShape(matrices(items)[0].shape)}, ` +
      `side by side: the rows stay and the columns add up.`,
  },
  {
    glyph: (g) => g === '+',
    hint: (items, at) => `${is(items[at - 1])} and ${is(items[at + 1])}: adding entry by entry keeps the shape.`,
  },
  {
    glyph: (g) => /^(softmax|norm|ReLU)$/.test(g),
    hint: (items, at) =>
      `${items[at].glyph} works on ${items[at + 1].label} ${formatShape(items[at + 1].shape)} ${
        items[at].glyph === 'ReLU' ? 'entry by entry' : 'row by row'
      }: it keeps the shape.`,
  },
  {
    glyph: (g) => g.startsWith('\u00f7'),
    hint: (items, at) =>
      `${is(items[at - 1])}; dividing it by a number (or each row by its own number) keeps the shape.`,
  },
];

// Stages drawn from nothing (inputs, stacked rows, references): their axes, read from the
// engine's symbolic equation, and the numbers they were built from when it has an arrow.
function axesHint(stage, entry) {
  const [left, result] = stage.symbolic.includes('\u2192')
    ? stage.symbolic.split('\u2192').map((s) => s.trim())
    : [null, stage.symbolic];
  const [rows, cols] = stage.axes;
  const rowWords = rows === '1' ? 'a single row (the new token)' : `one row per token (${rows})`;
  const built = left ? ` It is built from ${stage.equation.split('\u2192')[0].trim()}, one piece below the other.` : '';
  return `${entry.result} is ${result}: ${rowWords}, and ${cols} columns.${built}`;
}

/** The hint for a wrong shape of this stage (entry: its stage-table entry). */
export function shapeHint(stage, entry, config) {
  const items = figureItems(stage, entry, config);
  for (const rule of RULES) {
    const at = items.findIndex((i) => i.glyph && rule.glyph(i.glyph));
    if (at >= 0) {
      try {
        return rule.hint(items, at);
      } catch {
        break; // a figure laid out unlike the rule expects: fall back to the axes
      }
    }
  }
  return axesHint(stage, entry);
}
