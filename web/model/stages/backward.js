// The backward pass of one attention layer, in the order the chain rule visits it: from dO, the
// gradient of the loss with respect to the output, back through W_O, the concat, each head's
// A·V, softmax, scaling and Q·Kᵀ, to every weight and to X. Every dZ is ∂loss/∂Z and has Z's
// shape. Entry fields: see ../stage-table.js.

import { HEAD_GRADIENTS, kvSub, sub, transposed } from './backward-head.js';
import { entry } from './entry.js';
import { cell, dot } from './highlight.js';
import { ofGradient } from './numpy-paths.js';
import { formatFull } from '../format.js';
import { filledDot, n, f, shortList, sourceLabel, sourceOf } from './tex.js';

// BWD-6: the engine's check that dW is the slope of the loss (config.gradientChecks): its entry of
// this matrix (head and K/V head 0's W_Q, W_K, W_V, or W_O) beside the central difference.
function slopeCheck(c, matrix, stage) {
  const g = c.gradientChecks?.find((x) => x.matrix === matrix);
  if (!g || (stage.head ?? 0) !== 0) return '';
  const at = `${matrix}[${g.row}, ${g.col}]`;
  const whose = matrix === 'W_O' || c.numHeads === 1 ? '' : matrix === 'W_Q' ? 'head 0\u2019s ' : 'K/V head 0\u2019s ';
  return (
    ` Checked on the loss itself: nudging ${whose}${at} (the largest |dW| here) by \u00b1\u03b5 = ${g.step} moves ` +
    `\u2112 = \u27e8O, dO\u27e9 with slope (\u2112(W + \u03b5E) \u2212 \u2112(W \u2212 \u03b5E)) / 2\u03b5 = ` +
    `${formatFull(g.numeric)}, and d${at} = ${formatFull(g.analytic)}: the gradient is that slope.`
  );
}

const weightGradient = (letter, of, per) => ({
  id: `d_w_${letter.toLowerCase()}`,
  group: 'gradient-head',
  sharedByGroup: per === 'kv',
  title: `Gradient of W_${letter}`,
  result: `dW_${letter}`,
  figure: (c, stage) => [transposed(0, `${sourceLabel(stage)}\u1d40`), { glyph: '@' }, { operand: 1 }],
  formula: (c, stage) => {
    const w = per === 'kv' ? kvSub(c, `dW^{${letter}}`) : sub(c, `dW^{${letter}}`);
    const d = per === 'kv' ? kvSub(c, `d${of}`) : sub(c, `d${of}`);
    return `${w} = ${sourceOf(stage)}^{\\top} ${d}`;
  },
  explanation: ({ config: c, stage }) =>
    `${of} = ${sourceOf(stage)} \u00b7 W_${letter}, so entry (a, b) of W_${letter} reaches every token\u2019s ` +
    `column b of ${of}, scaled by that token\u2019s feature a: its gradient sums ` +
    `${sourceOf(stage)}[t, a]\u00b7d${of}[t, b] over ` +
    `the ${c.seqLen} tokens. Plain gradient descent subtracts it, times the learning rate, from W_${letter}; ` +
    `Adam (Heads that learn) rescales each entry first` +
    (per === 'kv' && c.numKvHeads < c.numHeads
      ? `; one W_${letter} serves ${c.numHeads / c.numKvHeads} query heads, and its gradient collects all of them.`
      : '.') +
    slopeCheck(c, `W_${letter}`, stage),
  explain: {
    symbolic: (i, j, c, stage) => `dW^{${letter}}_{${i},${j}} = \\sum_t ${sourceOf(stage)}_{t,${i}}\\,d${of}_{t,${j}}`,
    filled: (e, { i, j }) => filledDot(e, `dW^{${letter}}_{${i},${j}}`),
  },
  highlight: dot,
  operands: {
    X: 'X',
    x_pos: 'X + PE',
    ...(letter === 'V' ? {} : { [`d_${letter.toLowerCase()}_unrot`]: `d${letter}` }),
  },
  numpy: ofGradient(`d_w_${letter.toLowerCase()}`, per),
});

export const BACKWARD_STAGES = [
  entry({
    id: 'd_output',
    group: 'gradient',
    title: 'Gradient arriving at the output',
    result: 'dO',
    figure: () => [],
    formula: () => 'dO = \\frac{\\partial \\mathcal{L}}{\\partial O}',
    explanation: ({ config: c, stage }) =>
      'Backpropagation starts from the gradient of the loss with respect to this layer\u2019s output, dO: ' +
      'what the layer above sends down. It has the output\u2019s shape ' +
      `(${stage.shape.join(', ')}), one number per output entry saying how much the loss rises when that ` +
      'entry rises. A spec may give it (dOutput); otherwise the engine draws it (randn, after every other ' +
      'draw) as a stand-in for a real loss: the loss it stands for is \u27e8O, dO\u27e9, the sum of O \u2299 dO.',
    explain: null,
    highlight: null,
    numpy: ofGradient('d_output'),
  }),
  entry({
    id: 'd_w_o',
    group: 'gradient',
    title: 'Gradient of W_O',
    result: 'dW_O',
    figure: () => [transposed(0, 'concat\u1d40'), { glyph: '@' }, { operand: 1 }],
    formula: () => 'dW^{O} = \\text{concat}^{\\top}\\, dO',
    explanation: ({ config: c, stage }) =>
      `O = concat \u00b7 W_O, so W_O[m, j] meets column m of the concat in every one of the ${c.seqLen} ` +
      'output rows: its gradient is the sum over tokens of concat[t, m]\u00b7dO[t, j].' +
      slopeCheck(c, 'W_O', stage),
    explain: {
      symbolic: (i, j) => `dW^{O}_{${i},${j}} = \\sum_t \\text{concat}_{t,${i}}\\,dO_{t,${j}}`,
      filled: (e, { i, j }) => filledDot(e, `dW^{O}_{${i},${j}}`),
    },
    highlight: dot,
    numpy: ofGradient('d_w_o'),
  }),
  entry({
    id: 'd_concat',
    group: 'gradient',
    title: 'Gradient of the concatenated heads',
    result: 'dconcat',
    figure: () => [{ operand: 0 }, { glyph: '@' }, transposed(1, 'W_O\u1d40')],
    formula: () => 'd\\,\\text{concat} = dO\\, (W^{O})^{\\top}',
    explanation: () =>
      'Each entry of the concat reaches the output through one row of W_O, so its gradient is the row ' +
      'of dO times that row of W_O: W_O, which mixed the heads going forward, splits the gradient back ' +
      'among them.',
    explain: {
      symbolic: (i, j) => `d\\,\\text{concat}_{${i},${j}} = \\sum_m dO_{${i},m}\\,W^{O}_{${j},m}`,
      filled: (e, { i, j }) => filledDot(e, `d\\,\\text{concat}_{${i},${j}}`),
    },
    highlight: dot,
    operands: { W_O: 'W_O' },
    numpy: ofGradient('d_concat'),
  }),
  ...HEAD_GRADIENTS,
  entry(weightGradient('Q', 'Q', 'head')),
  entry(weightGradient('K', 'K', 'kv')),
  entry(weightGradient('V', 'V', 'kv')),
  entry({
    id: 'd_x',
    terms: ['sinusoidal'],
    group: 'gradient-input',
    title: 'Gradient of the input X',
    result: 'dX',
    figure: () => [
      { list: 'd_q·W_Qᵀ', glyph: '+' },
      { glyph: '+' },
      { list: 'd_k·W_Kᵀ', glyph: '+' },
      { glyph: '+' },
      { list: 'd_v·W_Vᵀ', glyph: '+' },
    ],
    formula: () =>
      'dX = \\sum_n dQ_n (W^{Q}_n)^{\\top} + \\sum_g \\bigl(dK_g (W^{K}_g)^{\\top} + dV_g (W^{V}_g)^{\\top}\\bigr)',
    explanation: ({ config: c, stage }) =>
      `X fed all three projections of every head, so its gradient adds ${c.numHeads + 2 * c.numKvHeads} parts: ` +
      `one through each W_Q (${c.numHeads}), and one through each W_K and W_V (${c.numKvHeads} each). In a deeper ` +
      'model this dX is the attention branch\u2019s share: with a residual connection x + MHA(x), the layer below ' +
      'receives dX plus the gradient carried along the residual path' +
      (stage.terms.includes('sinusoidal')
        ? '; PE is a constant added to X, so the gradient of X + PE is the gradient of X.'
        : '.'),
    explain: {
      symbolic: (i, j) => `dX_{${i},${j}} = \\sum_{\\text{parts}} (\\cdot)_{${i},${j}}`,
      filled: (e, { i, j }) => `dX_{${i},${j}} = ${shortList(Array.from(e.addends, f))} = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }, _e, _c, stage) =>
      Object.fromEntries(stage.operands.map((_o, k) => [k, cell(r, c)])),
    operands: {
      'd_q·W_Qᵀ': (op) => `dQ${op.head} W_Q\u1d40`,
      'd_k·W_Kᵀ': (op) => `dK W_K\u1d40 (head ${op.head})`,
      'd_v·W_Vᵀ': (op) => `dV W_V\u1d40 (head ${op.head})`,
    },
    numpy: ofGradient('d_x'),
  }),
];
