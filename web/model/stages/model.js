// The attention-only model's own stages (the engine's kind model, model_pass.hpp): the token and
// position embeddings that make R₀, the residual stream after each layer, and the unembedding,
// softmax and loss that read the last layer's stream. Each layer's attention stages between them
// are the ordinary ones, at step = layer. Entry fields: see ../stage-table.js.

import { rowsText } from '../format.js';
import { nextTokenQuestion, rowSumQuestion, tokenLossQuestion } from '../quiz-questions.js';
import { entry } from './entry.js';
import { cell, col, dot } from './highlight.js';
import { named, ofLayer } from './numpy-paths.js';
import { f, filledDot, n, shortList } from './tex.js';

// The positions a 0/1 column counts, and as text: "16–20", "2, 5–7".
const scoredPositions = (counted) => Array.from(counted, (c, t) => (c ? [t] : [])).flat();
function rangesText(ts) {
  const runs = [];
  for (const t of ts) {
    const last = runs.at(-1);
    if (last && t === last[1] + 1) last[1] = t;
    else runs.push([t, t]);
  }
  return runs.map(([a, b]) => rowsText('position', [a, b + 1])).join(', ');
}

// A sum's two lines: symbol and operands as (R_0)_{i,j} = (a)_{i,j} + (b)_{i,j}, then the numbers.
const added = (symbol, a, b) => ({
  symbolic: (i, j) => `(${symbol})_{${i},${j}} = (${a})_{${i},${j}} + (${b})_{${i},${j}}`,
  filled: (e, { i: r, j: c }) => `(${symbol})_{${r},${c}} = ${n(e.addends[0])} + ${f(e.addends[1])} = ${n(e.value)}`,
});

// R₀ comes first, before the layers' inputs (the stage list sorts a group by this table).
export const EMBEDDING_STAGES = [
  entry({
    id: 'embedded',
    group: 'inputs',
    title: 'Token and position embeddings',
    result: 'R\u2080',
    figure: () => [{ operand: 0 }, { glyph: '+' }, { operand: 1 }],
    formula: () => 'R_0 = W_E[\\text{tokens}] + W_P',
    explanation: () =>
      'Each token id picks its row of the embedding table W_E, and each position adds its own row of W_P: ' +
      'the same token at two positions starts from two different vectors. This sum is the residual stream ' +
      'that every layer reads and adds to.',
    explain: added('R_0', 'W_E[\\text{tokens}]', 'W_P'),
    highlight: ({ row: r, col: c }) => ({ 0: cell(r, c), 1: cell(r, c) }),
    operands: { E: 'W_E[tokens]', P: 'W_P' },
    numpy: named({ model: 'embedded' }),
  }),
];

export const MODEL_STAGES = [
  entry({
    id: 'residual',
    group: 'layer',
    title: (c) => (c.numLayers > 1 ? 'Residual: the stream plus this layer' : 'Residual: the stream plus attention'),
    result: 'R\u2097\u208a\u2081',
    figure: () => [{ operand: 0 }, { glyph: '+' }, { operand: 1 }],
    formula: () => 'R_{l+1} = R_l + \\text{MultiHead}(R_l)',
    explanation: () =>
      'The layer\u2019s attention output is added to the stream it read, with no layer norm and no ' +
      'feed-forward network: what a head writes stays in the stream, where a later layer\u2019s heads can read ' +
      'it. An induction head works this way: one layer copies the previous token into each position, the next ' +
      'looks for it.',
    explain: added('R_{l+1}', 'R_l', '\\text{MultiHead}(R_l)'),
    highlight: ({ row: r, col: c }) => ({ 0: cell(r, c), 1: cell(r, c) }),
    operands: { X: 'R\u2097', output: 'MultiHead(R\u2097)' },
    numpy: ofLayer('residual'),
  }),
  entry({
    id: 'logits',
    group: 'prediction',
    title: 'Logits: the stream read out as tokens',
    result: 'z',
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }],
    formula: () => 'z = R_N\\,W_U',
    explanation: ({ config: c }) =>
      `The unembedding W_U turns each position\u2019s final stream row into one score per token of the ` +
      `vocabulary (${c.vocab} of them): row t scores every candidate for the token after position t.`,
    explain: {
      symbolic: (i, j) => `z_{${i},${j}} = \\sum_a (R_N)_{${i},a}\\,(W_U)_{a,${j}}`,
      filled: (e, { i: r, j: c }) => filledDot(e, `z_{${r},${c}}`),
    },
    highlight: dot,
    operands: { X: 'R_N', W_U: 'W_U' },
    numpy: named({ model: 'logits' }),
  }),
  entry({
    id: 'probabilities',
    group: 'prediction',
    title: 'Next-token probabilities',
    result: 'p',
    figure: () => [{ glyph: 'softmax' }, { operand: 0 }],
    formula: () =>
      "p_{t,u} = \\frac{e^{z_{t,u} - \\mu_t}}{\\sum_{u'} e^{z_{t,u'} - \\mu_t}}, \\quad \\mu_t = \\max_{u'} z_{t,u'}",
    explanation: () =>
      'The same row softmax as the attention weights, over the vocabulary instead of the keys: row t is the ' +
      'model\u2019s distribution for the token after position t, and each row sums to 1 (the row sums are ' +
      'printed beside it).',
    explain: {
      symbolic: (i, j) =>
        `p_{${i},${j}} = \\frac{e^{z_{${i},${j}} - \\mu_{${i}}}}{\\sum_{u'} e^{z_{${i},u'} - \\mu_{${i}}}}`,
      filled: (e, { col: c, i: r, j }) => {
        const s = e.softmax;
        return (
          `\\mu_{${r}} = ${n(s.max)}, \\quad p_{${r},${j}} = \\dfrac{e^{${n(s.logits[c])} - ${f(s.max)}}}` +
          `{${shortList(Array.from(s.exps, (x) => n(x)))}} = \\dfrac{${n(s.exps[c])}}{${n(s.expSum)}} = ${n(e.value)}`
        );
      },
    },
    highlight: ({ row: r, col: c }) => ({ 0: { rows: [r], cells: [[r, c]] } }),
    view: { rowTotals: true },
    nonNegative: true,
    quiz: [rowSumQuestion, nextTokenQuestion],
    numpy: named({ model: 'probabilities' }),
  }),
  entry({
    id: 'token_loss',
    group: 'prediction',
    title: 'Each position\u2019s loss',
    result: '\u2113',
    figure: () => [{ glyph: '\u2212ln' }, { operand: 0 }, { glyph: 'at' }, { operand: 1 }],
    formula: () => '\\ell_t = -\\ln p_{t,\\,y_{t+1}}, \\quad t = 0, \\ldots, T-2',
    explanation: () =>
      'The loss at position t is \u2212ln of the probability the model gave y_{t+1}, the token that actually ' +
      'came next (y_t: the token at position t): 0 when it was certain and right, large when it gave that ' +
      'token little weight. The last position has no next token, so it has no loss. The next stage averages ' +
      'the positions the spec scores.',
    explain: {
      symbolic: (i) => `\\ell_{${i}} = -\\ln p_{${i},\\,y_{${i}+1}}`,
      filled: (e, { i: r }) => `\\ell_{${r}} = -\\ln p_{${r},${e.next}} = -\\ln ${n(e.input)} = ${n(e.value)}`,
    },
    // The cell lit in p is the next token's column: the id stored in row r of `next`.
    highlight: ({ row: r }, e, c, stage) => ({ 0: cell(r, stage.operands[1].values[r]), 1: cell(r, 0) }),
    operands: { next: { label: 'next token', nonNegative: true } }, // ids: 0 … V − 1
    nonNegative: true,
    quiz: [tokenLossQuestion],
    numpy: named({ model: 'token_loss' }),
  }),
  entry({
    id: 'loss',
    group: 'prediction',
    title: 'The loss: the mean over the scored positions',
    result: '\u2112',
    figure: () => [{ glyph: 'mean' }, { operand: 0 }, { glyph: 'where' }, { operand: 1 }],
    formula: () =>
      '\\mathcal{L} = \\frac{\\sum_t w_t\\,\\ell_t}{\\sum_t w_t}, \\quad w_t = 1 \\text{ where position } t ' +
      '\\text{ is scored, else } 0',
    explanation: ({ stage }) => {
      const scored = scoredPositions(stage.operands[1].values);
      const all = scored.length === stage.operands[1].values.length;
      return (
        `The cross-entropy the model is trained to lower: the mean of the losses at the positions scored ` +
        `(w_t = 1), ${all ? 'here every position' : `here ${rangesText(scored)}`}.` +
        (all
          ? ''
          : ' The training task scores only the copy: elsewhere the next token is random, nothing can predict ' +
            'it, and the model was never asked to.') +
        ' Its gradient is what the backward pass carries to every weight.'
      );
    },
    explain: {
      symbolic: () => '\\mathcal{L} = \\frac{\\sum_t w_t\\,\\ell_t}{\\sum_t w_t}',
      filled: (e) =>
        `\\mathcal{L} = (${shortList(Array.from(e.addends, (x) => n(x)))}) \\div ${n(e.divisor)} = ${n(e.value)}`,
    },
    highlight: () => ({ 0: col(0), 1: col(0) }),
    operands: { counted: { label: 'counted', nonNegative: true } },
    nonNegative: true,
    numpy: named({ model: 'loss' }),
  }),
];
