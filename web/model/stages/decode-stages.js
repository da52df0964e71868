// The KV-cache decoding stages: one token's row, its new key and value, the caches they are
// appended to, and after the last step the stacked rows beside one causal forward pass. The
// per-step q, scores, scaled, weights, head, concat and output reuse the attention entries.
// Entry fields: see ../stage-table.js.

import { filledDot, grouped } from './tex.js';

const row = (r) => ({ rows: [r] });
const col = (c) => ({ cols: [c] });

function fresh(id, letter, title) {
  return {
    id,
    group: 'head',
    sharedByGroup: true,
    decodeStep: true,
    title,
    result: `${letter.toLowerCase()}_new`,
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }],
    formula: (c) => `${letter.toLowerCase()}_t = x_t\\,W^{${letter}}${grouped(c) ? '_g' : c.numHeads > 1 ? '_i' : ''}`,
    explanation: () =>
      `Token t\u2019s ${letter === 'K' ? 'key' : 'value'}: the only ${letter === 'K' ? 'key' : 'value'} ` +
      `this step computes. Every earlier token\u2019s ${letter === 'K' ? 'key' : 'value'} is already in ` +
      `the cache, unchanged, because it depended only on that token and the weights.`,
    explain: {
      symbolic: (i, j) => `${letter}_{t,${j}} = \\sum_d x_{t,d}\\,W^{${letter}}_{d,${j}}`,
      filled: (e, { row: r, col: c }) => filledDot(e, `${letter.toLowerCase()}_{${r},${c}}`),
    },
    highlight: ({ row: r, col: c }) => ({ 0: row(r), 1: col(c) }),
  };
}

function cache(id, letter, title) {
  return {
    id,
    group: 'head',
    sharedByGroup: true,
    decodeStep: true,
    title,
    result: `${letter}_cache`,
    figure: () => [{ operand: 0 }, { glyph: '\u2295 rows' }, { operand: 1 }],
    formula: () =>
      `${letter}_{\\le t} = \\begin{bmatrix} ${letter}_{< t} \\\\ ${letter.toLowerCase()}_t \\end{bmatrix}`,
    explanation: ({ stage }) => {
      const what = letter === 'K' ? 'keys' : 'values';
      const before =
        stage.step === 0
          ? `The cache is empty before the first step`
          : `The ${what} of tokens 0 to ${stage.step - 1} come from the cache`;
      return (
        `${before}; the last row, token ${stage.step}\u2019s, was computed just now ` +
        `and is appended. The cache grows by one row per step and is never recomputed.`
      );
    },
    explain: null,
    highlight: () => ({}),
    view: { newRow: true },
  };
}

export const DECODE_STAGES = [
  {
    id: 'x_t',
    group: 'inputs',
    decodeStep: true,
    title: (c) => (c.kind === 'kv-cache' ? 'The new token x_t' : 'x_t'),
    result: 'x_t',
    figure: () => [],
    formula: () => 'x_t = X_{t,:} \\in \\mathbb{R}^{1 \\times d_{\\text{model}}}',
    explanation: ({ stage, config: c }) =>
      `Step ${stage.step} of ${c.seqLen}: the decoder sees one new token, row ${stage.step} ` +
      `of X. It is the only token whose query, key and value are computed this step.`,
    explain: null,
  },
  fresh('k_new', 'K', 'Its key k_t'),
  fresh('v_new', 'V', 'Its value v_t'),
  cache('k_cache', 'K', 'Key cache'),
  cache('v_cache', 'V', 'Value cache'),
  {
    id: 'stacked',
    group: 'result',
    title: (c) => (c.kind === 'flash' ? 'The blocks\u2019 outputs, stacked' : 'Every step\u2019s output, stacked'),
    result: 'stacked',
    figure: () => [],
    formula: (c) =>
      c.kind === 'flash'
        ? 'O = \\begin{bmatrix} O_0 \\\\ \\vdots \\end{bmatrix}'
        : '\\text{out} = \\begin{bmatrix} \\text{out}_0 \\\\ \\vdots \\\\ \\text{out}_{T-1} \\end{bmatrix}',
    explanation: ({ config: c }) =>
      c.kind === 'flash'
        ? `Each query block\u2019s rows, one below the other (the last block may be ` +
          `shorter than B_r). Next: ordinary attention of the same Q, K and V, to compare.`
        : 'The T rows the decoder produced, one per step, one below the other. ' +
          'Next: the same sizes run as one causal forward pass, to compare.',
    explain: null,
  },
  {
    id: 'causal_reference',
    group: 'result',
    title: 'One causal forward pass',
    result: 'causal',
    figure: () => [],
    formula: () => '\\text{softmax}\\!\\left(\\tfrac{Q K^{\\top}}{\\sqrt{d_k}} + M\\right) V \\ldots',
    explanation: ({ config: c }) =>
      `The same weights and tokens as one ordinary causal pass (the causal mask, all rows ` +
      `at once). Its row t is decode step t\u2019s output: the largest difference over all ` +
      `${c.seqLen} rows is ${c.maxDifference} (float64). This is why one masked forward ` +
      `pass can train every position at once, while generation runs one step at a time.`,
    explain: null,
  },
];
