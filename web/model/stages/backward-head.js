// The backward pass inside each head, in the chain rule's order: from dH, the head's share of
// the gradient, back through A·V, the softmax, the scaling and Q·Kᵀ (and RoPE's turn) to dQ, and
// per K/V head to dV and dK, summed over the query heads that read them. Entry fields: see
// ../stage-table.js.

import { formatCell } from '../format.js';
import { entry } from './entry.js';
import { cell, col, dot, row } from './highlight.js';
import { ofGradient } from './numpy-paths.js';
import { filledDot, n, f, productSum } from './tex.js';
import { biasAt, maskRulesAt, scaledAt } from './terms.js';

/** Name_n with several heads (Name_g for a shared K/V head's), Name with one. */
export const sub = (c, name, letter = 'n') => (c.numHeads > 1 ? `${name}_{${letter}}` : name);
export const kvSub = (c, name) => sub(c, name, c.numKvHeads < c.numHeads ? 'g' : 'n');
/** A figure item: operand `operand` shown transposed. */
export const transposed = (operand, label) => ({ operand, transpose: true, label });

// Σ over the group's G heads of op_nᵀ · op_{G+n}, pair by pair.
function groupFigure(c) {
  const g = c.numHeads / c.numKvHeads;
  return Array.from({ length: g }, (_, k) => [
    ...(k ? [{ glyph: '+' }] : []),
    { operand: k, transpose: true },
    { glyph: '@' },
    { operand: g + k },
  ]).flat();
}

// Each pair's row r (of the transposed first operand) and column c lit.
function groupDot({ row: r, col: c }, _e, _c, stage) {
  const half = stage.operands.length / 2;
  const out = {};
  for (let k = 0; k < half; k += 1) {
    out[k] = row(r);
    out[half + k] = col(c);
  }
  return out;
}

// RoPE: the gradient at the turned rows turned back by −φ into the gradient at q or k (a
// rotation's backward pass is its transpose, the rotation by −φ).
function turnedBack(id, letter, per) {
  const rows = (stage) => stage.shape[0];
  return entry({
    id,
    group: 'gradient-head',
    sharedByGroup: per === 'kv',
    title: `Turned back: gradient of ${letter === 'Q' ? 'the queries' : 'the keys'}`,
    result: `d${letter}`,
    figure: () => [{ operand: 0 }, { glyph: 'turned back by' }, { operand: 3 }, { glyph: ',' }, { operand: 4 }],
    formula: () =>
      `\\begin{pmatrix} d${letter}_{t,a} \\\\ d${letter}_{t,b} \\end{pmatrix} = ` +
      '\\begin{pmatrix} \\cos\\varphi_{t,c} & \\sin\\varphi_{t,c} \\\\ -\\sin\\varphi_{t,c} & \\cos\\varphi_{t,c} ' +
      `\\end{pmatrix} \\begin{pmatrix} d\\hat{${letter}}_{t,a} \\\\ d\\hat{${letter}}_{t,b} \\end{pmatrix}`,
    explanation: ({ stage }) =>
      `RoPE turned each row of ${letter} by the angles φ of its position before the scores read it. A ` +
      'rotation keeps lengths, and its backward pass is its transpose: the same pair turned by −φ. So ' +
      `the gradient at ${letter} is the gradient at the turned rows, each of the ${rows(stage)} rows turned back ` +
      'pair by pair (the angle operand holds −φ, the sin operand sin(−φ)); columns past the ' +
      'turned ones pass unchanged.',
    explain: {
      symbolic: (i, j) =>
        `d${letter}_{${i},${j}} = d\\hat{${letter}}_{${i},a}\\,c_1 + d\\hat{${letter}}_{${i},b}\\,c_2, \\quad ` +
        '(c_1, c_2) = (\\cos\\varphi, \\sin\\varphi) \\text{ in the first column of a pair, } ' +
        '(-\\sin\\varphi, \\cos\\varphi) \\text{ in its second}',
      filled: (e, { i, j }) => filledDot(e, `d${letter}_{${i},${j}}`),
    },
    highlight: ({ row: r }) => ({ 0: row(r), 3: row(r), 4: row(r) }),
    operands: {
      '\u03b8': { label: '\u03b8', nonNegative: true },
      angle: 'angle \u2212\u03c6',
      cos: 'cos \u03c6',
      sin: 'sin(\u2212\u03c6)',
      pairs: { label: 'pairs (a, b)', nonNegative: true },
    },
    numpy: ofGradient(id, per),
  });
}

export const HEAD_GRADIENTS = [
  entry({
    id: 'd_head',
    group: 'gradient-head',
    title: 'Gradient of the head\u2019s output',
    result: 'dH',
    figure: () => [{ operand: 0 }],
    formula: (c) => `${sub(c, 'dH')} = d\\,\\text{concat}_{[:,\\; n d_v : (n+1) d_v]}`,
    explanation: ({ config: c, stage }) =>
      `The concat only copied each head into its own columns, so head ${stage.head}\u2019s gradient is ` +
      `its ${c.dV} columns of ${c.outputProjection ? 'dconcat' : 'dO (without W_O the concat is the output)'}, ` +
      `copied back: columns ${stage.head * c.dV}\u2013${(stage.head + 1) * c.dV - 1}.`,
    explain: {
      symbolic: (i, j) => `dH_{${i},${j}} = d\\,\\text{concat}_{${i},\\,n d_v + ${j}}`,
      filled: (e, { i, j }) => `dH_{${i},${j}} = d\\,\\text{concat}_{${i},${e.source.col}} = ${n(e.value)}`,
    },
    highlight: ({ row: r }, e) => (e?.source ? { 0: cell(r, e.source.col) } : {}),
    numpy: ofGradient('d_head', 'head'),
  }),
  entry({
    id: 'd_weights',
    group: 'gradient-head',
    title: 'Gradient of the attention weights A',
    result: 'dA',
    figure: () => [{ operand: 0 }, { glyph: '@' }, transposed(1, 'V\u1d40')],
    formula: (c) => `${sub(c, 'dA')} = ${sub(c, 'dH')}\\, V^{\\top}`,
    explanation: () =>
      'H = A \u00b7 V, so the weight A[t, s] scales value row s into output row t: its gradient is how well ' +
      'value row s lines up with dH[t], the dot product dH[t]\u00b7V[s]. A key whose value points along dH[t] ' +
      'gets a positive dA (more weight on it would raise the loss); one pointing against dH[t], where the loss ' +
      'wants the output to go, gets a negative dA. These are not yet gradients of the scores.',
    explain: {
      symbolic: (i, j) => `dA_{${i},${j}} = \\sum_m dH_{${i},m}\\,V_{${j},m}`,
      filled: (e, { i, j }) => filledDot(e, `dA_{${i},${j}}`),
    },
    highlight: dot,
    operands: { V: 'V' },
    numpy: ofGradient('d_weights', 'head'),
  }),
  entry({
    id: 'd_v',
    group: 'gradient-head',
    sharedByGroup: true,
    title: (c) => (c.numKvHeads < c.numHeads ? 'Gradient of V (summed over its group)' : 'Gradient of V'),
    result: 'dV',
    figure: groupFigure,
    formula: (c) =>
      c.numKvHeads < c.numHeads ? 'dV_g = \\sum_{n \\in g} A_n^{\\top}\\, dH_n' : `${sub(c, 'dV')} = A^{\\top} dH`,
    explanation: ({ config: c }) =>
      'Value row s went into every output row t with weight A[t, s], so its gradient is the weighted sum of ' +
      'the dH rows: column s of A says how much of each.' +
      (c.numKvHeads < c.numHeads
        ? ` This V is shared by the ${c.numHeads / c.numKvHeads} query heads of its group, so their gradients add up.`
        : ''),
    explain: {
      symbolic: (i, j, c) =>
        c.numKvHeads < c.numHeads
          ? `dV_{${i},${j}} = \\sum_{n \\in g} \\sum_t (A_n)_{t,${i}}\\,(dH_n)_{t,${j}}`
          : `dV_{${i},${j}} = \\sum_t A_{t,${i}}\\,dH_{t,${j}}`,
      filled: (e, { i, j }) => filledDot(e, `dV_{${i},${j}}`),
    },
    highlight: groupDot,
    numpy: ofGradient('d_v', 'kv'),
  }),
  entry({
    id: 'd_scaled',
    group: 'gradient-head',
    terms: ['causal', 'prefix', 'window', 'documents', 'padding', 'one-sided', 'symmetric'],
    title: 'Through the softmax',
    result: 'dS\u0303',
    figure: () => [{ operand: 0 }, { glyph: '\u2299' }, { operand: 1 }],
    // The engine's terms name what the forward added to S̃ (the mask's rules, ALiBi's B): constants,
    // so the gradient at the logits L is the gradient at S̃.
    formula: (c, stage) =>
      `d\\tilde S = A \\odot \\bigl(dA - \\operatorname{rowsum}(dA \\odot A)\\bigr)` +
      (maskRulesAt(stage).length ? ' \\;(= dL)' : biasAt(stage) ? ' \\;(= d(\\tilde S + B))' : ''),
    explanation: ({ stage }) => {
      const sums = Array.from(stage.totals ?? []);
      const largest = Math.max(...sums.map(Math.abs));
      const masked = maskRulesAt(stage).length
        ? ' Where the mask hid a key its weight is exactly 0, and so is its gradient: nothing flows back to a ' +
          'key the query never saw.'
        : '';
      return (
        'The softmax couples a row: raising one logit raises its weight and lowers all the others. Its ' +
        'backward pass weighs each dA by A and subtracts the row\u2019s average pull, rowsum(dA \u2299 A), so ' +
        `each row of dS\u0303 sums to 0 (the largest |row sum| here is ${formatCell(largest)}, rounding): adding ` +
        `a constant to every score of a row changes no weight, so no gradient points that way.${masked}` +
        (biasAt(stage) ? ' ALiBi\u2019s bias B, a constant, passes the gradient on unchanged.' : '')
      );
    },
    explain: {
      symbolic: (i, j) =>
        `d\\tilde S_{${i},${j}} = A_{${i},${j}}\\Bigl(dA_{${i},${j}} - \\sum_{j'} dA_{${i},j'} A_{${i},j'}\\Bigr)`,
      filled: (e, { i, j }) =>
        `d\\tilde S_{${i},${j}} = ${f(e.weight)}\\cdot\\bigl(${f(e.input)} - (${productSum(e.terms)})\\bigr) = ` +
        `${f(e.weight)}\\cdot\\bigl(${f(e.input)} - ${f(e.sum)}\\bigr) = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }) => ({ 0: { rows: [r], cells: [[r, c]] }, 1: row(r) }),
    view: { rowTotals: true },
    numpy: ofGradient('d_scaled', 'head'),
  }),
  entry({
    id: 'd_scores',
    group: 'gradient-head',
    title: (c, stage) => (scaledAt(stage) ? 'Through the \u221ad_k scaling' : 'Through the (skipped) scaling'),
    result: 'dS',
    figure: () => [{ operand: 0 }, { glyph: '\u00f7' }],
    terms: ['scale'],
    formula: (c, stage) => (scaledAt(stage) ? 'dS = d\\tilde S / \\sqrt{d_k}' : 'dS = d\\tilde S'),
    explanation: ({ config: c, stage }) =>
      scaledAt(stage)
        ? `S\u0303 = S / \u221ad_k, so the gradient is divided by the same \u221a${c.dK} = ` +
          `${formatCell(Math.sqrt(c.dK))} on the way back. The scaling shrinks the gradient reaching Q\u00b7K\u1d40 ` +
          'as well as the scores; what it buys is a softmax that is not saturated (the panel measures both).'
        : 'Scaling is off (to compare with it on): S\u0303 = S, and the gradient passes unchanged.',
    explain: {
      symbolic: (i, j, c, stage) =>
        scaledAt(stage)
          ? `dS_{${i},${j}} = d\\tilde S_{${i},${j}} / \\sqrt{d_k}`
          : `dS_{${i},${j}} = d\\tilde S_{${i},${j}}`,
      filled: (e, { i, j }) => `dS_{${i},${j}} = ${f(e.input)} / ${n(e.divisor)} = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }) => ({ 0: cell(r, c) }),
    numpy: ofGradient('d_scores', 'head'),
  }),
  entry({
    id: 'd_q',
    group: 'gradient-head',
    title: 'Gradient of the queries',
    result: 'dQ',
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }],
    formula: (c) => `${sub(c, 'dQ')} = ${sub(c, 'dS')}\\, K`,
    explanation: () =>
      'S[t, s] = q_t\u00b7k_s, so query t moves the score by k_s for every key s: its gradient is the sum of the ' +
      'key rows, each weighted by dS[t, s]. A hidden key has dS = 0 and adds nothing.',
    explain: {
      symbolic: (i, j) => `dQ_{${i},${j}} = \\sum_s dS_{${i},s}\\,K_{s,${j}}`,
      filled: (e, { i, j }) => filledDot(e, `dQ_{${i},${j}}`),
    },
    highlight: dot,
    operands: { K: 'K' },
    numpy: ofGradient('d_q', 'head'),
  }),
  entry({
    id: 'd_q_rot',
    group: 'gradient-head',
    title: 'Gradient of the turned queries (RoPE)',
    result: 'dQ\u0302',
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }],
    formula: (c) => `d\\hat{Q}${c.numHeads > 1 ? '_n' : ''} = ${sub(c, 'dS')}\\, \\hat{K}`,
    explanation: () =>
      'Under RoPE the scores read the turned rows, S = Q\u0302\u00b7K\u0302\u1d40, so this product is the gradient ' +
      'at the turned queries Q\u0302; the next stage turns it back into the gradient at Q.',
    explain: {
      symbolic: (i, j) => `d\\hat{Q}_{${i},${j}} = \\sum_s dS_{${i},s}\\,\\hat{K}_{s,${j}}`,
      filled: (e, { i, j }) => filledDot(e, `d\\hat{Q}_{${i},${j}}`),
    },
    highlight: dot,
    numpy: ofGradient('d_q_rot', 'head'),
  }),
  turnedBack('d_q_unrot', 'Q', 'head'),
  entry({
    id: 'd_k',
    group: 'gradient-head',
    sharedByGroup: true,
    title: (c) => (c.numKvHeads < c.numHeads ? 'Gradient of the keys (summed over its group)' : 'Gradient of the keys'),
    result: 'dK',
    figure: groupFigure,
    formula: (c) =>
      c.numKvHeads < c.numHeads ? 'dK_g = \\sum_{n \\in g} dS_n^{\\top}\\, Q_n' : `${sub(c, 'dK')} = dS^{\\top} Q`,
    explanation: ({ config: c }) =>
      'The same score seen from the key\u2019s side: key s moves S[t, s] by q_t for every query t, so its ' +
      'gradient is the sum of the query rows weighted by column s of dS.' +
      (c.numKvHeads < c.numHeads ? ' Every query head of the group reads this K, so their parts add up.' : ''),
    explain: {
      symbolic: (i, j, c) =>
        c.numKvHeads < c.numHeads
          ? `dK_{${i},${j}} = \\sum_{n \\in g} \\sum_t (dS_n)_{t,${i}}\\,(Q_n)_{t,${j}}`
          : `dK_{${i},${j}} = \\sum_t dS_{t,${i}}\\,Q_{t,${j}}`,
      filled: (e, { i, j }) => filledDot(e, `dK_{${i},${j}}`),
    },
    highlight: groupDot,
    operands: { Q: (op) => `Q (head ${op.head})` },
    numpy: ofGradient('d_k', 'kv'),
  }),
  entry({
    id: 'd_k_rot',
    group: 'gradient-head',
    sharedByGroup: true,
    title: 'Gradient of the turned keys (RoPE)',
    result: 'dK\u0302',
    figure: groupFigure,
    formula: (c) =>
      c.numKvHeads < c.numHeads
        ? 'd\\hat{K}_g = \\sum_{n \\in g} dS_n^{\\top} \\hat{Q}_n'
        : 'd\\hat{K} = dS^{\\top} \\hat{Q}',
    explanation: () =>
      'The gradient at the turned keys K\u0302: column s of dS weighs the turned query rows. The next stage turns ' +
      'it back into the gradient at K.',
    explain: {
      symbolic: (i, j) => `d\\hat{K}_{${i},${j}} = \\sum_{n \\in g} \\sum_t (dS_n)_{t,${i}}\\,(\\hat{Q}_n)_{t,${j}}`,
      filled: (e, { i, j }) => filledDot(e, `d\\hat{K}_{${i},${j}}`),
    },
    highlight: groupDot,
    numpy: ofGradient('d_k_rot', 'kv'),
  }),
  turnedBack('d_k_unrot', 'K', 'kv'),
];
