// The encoder layer's stages after attention: residual and layer norm, the position-wise
// feed-forward network, residual and layer norm again. Entry fields: see ../stage-table.js.

import { entry } from './entry.js';
import { cell, col, row } from './highlight.js';
import { ofLayer } from './numpy-paths.js';
import { n, f, productSum } from './tex.js';

// The result's caption: the symbol the formula gives it.
const SYMBOL = {
  residual1: 'R\u207d\u00b9\u207e',
  norm1: 'X\u207d\u00b9\u207e',
  ffn_pre: 'Y',
  ffn_hidden: 'Y\u207a',
  ffn_out: 'F',
  residual2: 'R\u207d\u00b2\u207e',
  norm2: 'X\u207d\u00b2\u207e',
};

const NORM_NOTE =
  'Layer norm here is (x \u2212 mean) / (std + \u03b5) over each row, with the population ' +
  'standard deviation and \u03b5 = 10\u207b\u2076, then \u03b3 = 1 and \u03b2 = 0. Most libraries divide ' +
  'by \u221a(variance + \u03b5) instead; the two differ only when the variance is near 0.';

function residual(id, part, title, sum, tex, what) {
  return {
    id,
    group: 'layer',
    part,
    title,
    result: SYMBOL[id],
    figure: () => [{ operand: 0 }, { glyph: '+' }, { operand: 1 }],
    formula: () => tex,
    explanation: () => what,
    explain: {
      symbolic: (i, j) => `${sum(i, j)}`,
      filled: (e, { i: r, j: c }) => `${n(e.addends[0])} + ${f(e.addends[1])} = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }) => ({ 0: cell(r, c), 1: cell(r, c) }),
  };
}

function norm(id, part, title, input, output, what) {
  const mean = (at) => `\\operatorname{mean}_{${at}}`;
  const std = (at) => `\\operatorname{std}_{${at}}`;
  return {
    id,
    group: 'layer',
    part,
    title,
    result: SYMBOL[id],
    figure: () => [{ glyph: 'norm' }, { operand: 0 }],
    formula: () =>
      `${output}_{t,:} = \\frac{${input}_{t,:} - ${mean('t')}}{${std('t')} + \\varepsilon}, ` +
      `\\quad ${mean('t')}, ${std('t')} \\text{ of row } t`,
    explanation: () => `${what} ${NORM_NOTE}`,
    explain: {
      symbolic: (i, j) =>
        `{${output}}_{${i},${j}} = \\frac{{${input}}_{${i},${j}} - ${mean(i)}}{${std(i)} + \\varepsilon}`,
      filled: (e, { i: r, j: c }) =>
        `${mean(r)} = ${n(e.norm.mean)}, \\ ${std(r)} = ${n(e.norm.std)}, \\quad {${output}}_{${r},${c}} ` +
        `= \\dfrac{${n(e.input)} - ${f(e.norm.mean)}}{${n(e.norm.std)} + 10^{-6}} = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }) => ({ 0: { rows: [r], cells: [[r, c]] } }),
  };
}

function affine(id, title, input, weight, bias, output, what) {
  return {
    id,
    group: 'layer',
    part: 'ffn',
    title,
    result: SYMBOL[id],
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }, { glyph: '+' }, { operand: 2 }],
    formula: () => `${output} = ${input}\\,${weight} + ${bias}`,
    explanation: () => what,
    explain: {
      symbolic: (i, j) =>
        `${output}_{${i},${j}} = \\sum_m {${input}}_{${i},m}\\,{${weight}}_{m,${j}} + {${bias}}_{${j}}`,
      filled: (e, { i: r, j: c }) =>
        `${output}_{${r},${c}} = ${productSum(e.terms)} + ${f(e.bias)} = ${n(e.sum)} + ${f(e.bias)} = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }) => ({ 0: row(r), 1: col(c), 2: cell(0, c) }),
  };
}

export const LAYER_STAGES = [
  entry({
    ...residual(
      'residual1',
      'norm1',
      'Residual: X + attention',
      (i, j) => `R^{(1)}_{${i},${j}} = X_{${i},${j}} + \\text{MultiHead}(X)_{${i},${j}}`,
      'R^{(1)} = X + \\text{MultiHead}(X)',
      'The attention output is added to the layer\u2019s own input. This residual connection lets every token ' +
        'keep what it had and add what it gathered, and it gives gradients a path around each sub-layer. In this ' +
        'post-LN layer (the original Transformer\u2019s) a layer norm sits on that path, so it is not an identity; ' +
        'the pre-LN layer most models now use normalises each sub-layer\u2019s input instead and keeps a pure ' +
        'identity path through the whole stack (Xiong et al. 2020).',
    ),
    operands: { X: 'X', output: 'MultiHead(X)' },
    numpy: ofLayer('residual1'),
  }),
  entry({
    ...norm(
      'norm1',
      'norm1',
      'Layer norm 1',
      'R^{(1)}',
      'X^{(1)}',
      'Each token\u2019s row is rescaled to mean 0 and standard ' +
        'deviation 1, so the next sub-layer sees inputs of a steady size.',
    ),
    numpy: ofLayer('norm1'),
  }),
  entry({
    ...affine(
      'ffn_pre',
      'Feed-forward: expand',
      'X^{(1)}',
      'W_1',
      'b_1',
      'Y',
      'The feed-forward network starts by expanding every token from d_model to ' +
        'd_ff features (usually 4 \u00d7 d_model). It is position-wise: the same ' +
        'W\u2081 and b\u2081 for every token, and no token looks at another here.',
    ),
    operands: { W1: 'W\u2081', b1: 'b\u2081' },
    numpy: ofLayer('ffn_pre'),
  }),
  entry({
    id: 'ffn_hidden',
    group: 'layer',
    part: 'ffn',
    title: 'Feed-forward: ReLU',
    result: SYMBOL.ffn_hidden,
    figure: () => [{ glyph: 'ReLU' }, { operand: 0 }],
    formula: () => 'Y^{+} = \\max(0, Y)',
    explanation: () =>
      'Negative entries become exactly 0, positive ones pass unchanged. This non-linearity ' +
      'is what lets the two linear layers compute more than one linear map could.',
    explain: {
      symbolic: (i, j) => `Y^{+}_{${i},${j}} = \\max(0, Y_{${i},${j}})`,
      filled: (e, { i: r, j: c }) => `Y^{+}_{${r},${c}} = \\max(0, ${n(e.input)}) = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }) => ({ 0: cell(r, c) }),
    nonNegative: true,
    numpy: ofLayer('ffn_hidden'),
  }),
  entry({
    ...affine(
      'ffn_out',
      'Feed-forward: contract',
      'Y^{+}',
      'W_2',
      'b_2',
      'F',
      'The second layer maps the d_ff features back to d_model, again the same for every token.',
    ),
    operands: { W2: 'W\u2082', b2: 'b\u2082' },
    numpy: ofLayer('ffn_out'),
  }),
  entry({
    ...residual(
      'residual2',
      'norm2',
      'Residual: X\u207d\u00b9\u207e + feed-forward',
      (i, j) => `R^{(2)}_{${i},${j}} = X^{(1)}_{${i},${j}} + F_{${i},${j}}`,
      'R^{(2)} = X^{(1)} + F',
      'The feed-forward output is added to its own input, the ' +
        'normalised X\u207d\u00b9\u207e: the second residual connection.',
    ),
    numpy: ofLayer('residual2'),
  }),
  entry({
    ...norm(
      'norm2',
      'norm2',
      'Layer norm 2: the layer\u2019s output',
      'R^{(2)}',
      'X^{(2)}',
      'The layer\u2019s output, (T, d_model) like its input: the next encoder layer would read it as its X.',
    ),
    numpy: ofLayer('norm2'),
  }),
];
