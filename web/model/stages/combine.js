// The heads combined: side by side (concat), pruned heads zeroed, then W_O.
// Entry fields: see ../stage-table.js.

import { formatCell, formatPercent } from '../format.js';
import { rowOf } from '../quiz-questions.js';
import { nonNegative } from './captions.js';
import { entry } from './entry.js';
import { cell, dot } from './highlight.js';
import { ofLayer } from './numpy-paths.js';
import { filledDot, logitsSymbol, n } from './tex.js';

// Where each head's last row puts its largest weight, read off the trace: "head 0 on “cat” (0.312)".
function lastRowPeaks(stage, labels) {
  const [rows, cols] = stage.shape;
  const [rowAxis, colAxis] = stage.axes;
  const name = (axis, i, n) => (labels[axis]?.length === n ? `\u201c${labels[axis][i]}\u201d` : `${i}`);
  const peaks = stage.operands.map((op) => {
    const row = rowOf(op, rows - 1);
    const col = row.indexOf(Math.max(...row)); // the first of equals
    return `head ${op.head} on ${name(colAxis, col, cols)} (${formatCell(row[col])})`;
  });
  return `In the last row (query ${name(rowAxis, rows - 1, rows)}) the largest weight falls ${peaks.join(', ')}.`;
}

export const COMBINE_STAGES = [
  entry({
    id: 'all_heads',
    composed: true,
    group: 'combine',
    title: 'All heads side by side',
    result: null,
    figure: () => [{ list: 'weights' }],
    formula: (c, stage) =>
      `A_n = \\operatorname{softmax}(${logitsSymbol(stage.read)}_n) \\text{ row by row}, \\quad n = 0, \\ldots, h-1`,
    explanation: ({ config: c, stage, labels }) =>
      `Every head ran the same steps with its own W_Q, W_K and W_V, so each of the h = ${c.numHeads} ` +
      `heads spreads its weights its own way; every row of every head still sums to 1. ` +
      `${lastRowPeaks(stage, labels)} Pick a head to walk its stages; next, their outputs H_n are laid side by side.`,
    explain: null,
    highlight: null,
    nonNegative: true,
    numpy: () => null,
  }),
  entry({
    id: 'concat',
    group: 'combine',
    title: 'Concatenate heads',
    result: 'concat',
    figure: () => [{ list: 'head', glyph: '|' }],
    formula: () => '\\operatorname{Concat}(H_0, \\ldots, H_{h-1})',
    explanation: ({ config: c, stage }) => {
      const width = c.numHeads * c.dV;
      const rows = c.kind === 'kv-cache' ? '1' : c.kind === 'cross' ? 'T_q' : 'T';
      const [r, w] = stage.shape;
      const back =
        width === c.dModel
          ? `, here equal to d_model = ${c.dModel} because h\u00b7d_v = d_model`
          : `, which is not d_model = ${c.dModel} here (h\u00b7d_v = ${width})` +
            (c.outputProjection ? '; W_O maps it back' : '');
      const last = c.outputProjection ? '' : ' Without W_O it is the layer\u2019s output: nothing mixes the heads.';
      return (
        `The heads\u2019 outputs are laid side by side along the feature axis, giving (${rows}, ` +
        `h\u00b7d_v) = (${r}, ${w})${back}. Nothing is computed: each column is copied from one head.${last}`
      );
    },
    explain: {
      symbolic: (i, j) => `\\text{concat}_{${i},${j}}`,
      filled: (e, { i: r, j: c }) =>
        `\\text{concat}_{${r},${c}} = (H_{${e.source.head}})_{${r},${e.source.col}} = ${n(e.value)}`,
    },
    highlight: ({ row: r }, e) => (e?.source ? { [e.source.head]: cell(r, e.source.col) } : {}),
    view: { pruning: true },
    numpy: ofLayer('concat'),
  }),
  entry({
    id: 'pruned',
    group: 'combine',
    title: 'Pruned heads',
    result: 'pruned',
    figure: () => [{ operand: 0 }, { glyph: '\u2299' }, { operand: 1 }],
    formula: () =>
      "\\text{concat}' = \\text{concat} \\odot \\gamma, \\quad \\gamma_a = \\begin{cases} 0 & " +
      '\\text{column } a \\text{ of a pruned head} \\\\ 1 & \\text{otherwise} \\end{cases}',
    explanation: ({ config: c }) =>
      `Head${c.prunedHeads.length > 1 ? 's' : ''} ${c.prunedHeads.join(', ')} ` +
      `${c.prunedHeads.length > 1 ? 'are' : 'is'} pruned: ` +
      `${c.prunedHeads.length > 1 ? 'their' : 'its'} columns become 0 before W_O, so the output ` +
      `mixes only the other heads. The output changes by ${formatPercent(c.outputChange)} of ` +
      `its size (\u2016\u0394output\u2016 / \u2016output\u2016, from the engine).`,
    explain: {
      symbolic: (i, j) => `\\text{concat}'_{${i},${j}} = \\text{concat}_{${i},${j}}\\, \\gamma_{${j}}`,
      filled: (e, { i: r, j: c }) => `\\text{concat}'_{${r},${c}} = ${n(e.input)} \\cdot ${e.gate} = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }) => ({ 0: cell(r, c), 1: cell(0, c) }),
    view: { pruning: true },
    operands: { gate: nonNegative('gate \u03b3') },
    numpy: ofLayer('pruned'),
  }),
  entry({
    id: 'output',
    group: 'combine',
    title: 'Output projection',
    optional: { flag: 'outputProjection', after: 'concat' },
    result: 'output',
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }],
    formula: () => 'O = \\operatorname{Concat}(H_0, \\ldots, H_{h-1})\\,W^{O} = \\sum_n H_n\\,W^{O}_{[n]}',
    explanation: () =>
      'W_O maps the concatenation back to d_model and mixes information across heads; ' +
      'without it each head\u2019s result would stay in its own columns in this layer. Read the product ' +
      'as a sum over heads: each head\u2019s output times the rows of W_O that belong to it. ' +
      'Head i\u2019s W_V times its rows of W_O acts as one low-rank map, so the output is a sum of ' +
      'per-head terms, and W_O is not the only place heads meet: the next layer\u2019s projections and ' +
      'feed-forward network read every head\u2019s columns anyway.',
    explain: {
      symbolic: (i, j) => `\\text{output}_{${i},${j}} = \\sum_m \\text{concat}_{${i},m}\\,W^{O}_{m,${j}}`,
      filled: (e, { i: r, j: c }) => filledDot(e, `\\text{output}_{${r},${c}}`),
    },
    highlight: ({ row: r, col: c }, _e, _c, stage) => {
      const out = dot({ row: r, col: c });
      stage.operands.forEach((o, k) => {
        if (o.name === 'contribution') out[k] = cell(r, c);
      });
      return out;
    },
    view: {
      sumFigure: {
        items: () => [{ list: 'contribution', glyph: '+' }],
        result: '= output',
        label: 'Show the output as a sum over heads: \u03a3 of head i \u00b7 W_O[rows of i]',
      },
      pruning: true,
    },
    operands: {
      pruned: "concat'",
      W_O: 'W_O',
      contribution: (op) => `head ${op.head} \u00b7 W_O`,
    },
    numpy: ofLayer('output'),
  }),
];
