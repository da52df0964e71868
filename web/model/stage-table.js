// Every stage of the walk-through as data. The stage list, Prev/Next, the explanations, the
// explain panel and the browser tests all iterate over this table; adding a stage is one entry
// here plus one recorder call in the engine.
//
// Per entry: id (the engine's stage id), group, title, formula(config) in TeX, explanation(config),
// figure: the operands shown left of "=", in order, with the glyph before each; explainable:
// whether a click on a result cell opens engine.explain; highlight(cell, explained): what the
// explained cell lights up in each operand, keyed like operandKey() below.

const multi = (c) => c.numHeads > 1;
const sub = (c, name) => (multi(c) ? `${name}_h` : name);
const proj = (c, letter) => (multi(c) ? `W^{${letter}}_h` : `W^{${letter}}`);

// How each matrix's axes are named: rows × columns. T axes get token labels.
export const MATRIX_AXES = {
  X: ['T', 'd_model'],
  W_Q: ['d_model', 'd_k'],
  W_K: ['d_model', 'd_k'],
  W_V: ['d_model', 'd_v'],
  Q: ['T', 'd_k'],
  K: ['T', 'd_k'],
  V: ['T', 'd_v'],
  scores: ['T', 'T'],
  scaled: ['T', 'T'],
  masked: ['T', 'T'],
  weights: ['T', 'T'],
  head: ['T', 'd_v'],
  concat: ['T', 'h·d_v'],
  W_O: ['h·d_v', 'd_model'],
  contribution: ['T', 'd_model'],
  output: ['T', 'd_model'],
};

const row = (r) => ({ rows: [r] });
const col = (c) => ({ cols: [c] });
const cell = (r, c) => ({ cells: [[r, c]] });

function projection(id, letter, title, what) {
  const W = `W_${letter}`;
  return {
    id,
    group: 'head',
    title,
    result: letter,
    figure: () => [{ operand: 'X' }, { glyph: '@' }, { operand: W }],
    formula: (c) => `${sub(c, letter)} = X\\,${proj(c, letter)}`,
    explanation: (c) =>
      `${what} ${multi(c) ? `This head has its own ${W}, so it works in its own ${letter === 'V' ? 'd_v' : 'd_k'}-dimensional subspace.` : ''}`.trim(),
    explainable: true,
    highlight: ({ row: r, col: cl }) => ({ X: row(r), [W]: col(cl) }),
  };
}

export const STAGES = [
  {
    id: 'x',
    group: 'inputs',
    title: 'Input embeddings X',
    result: 'X',
    figure: () => [],
    formula: () => 'X \\in \\mathbb{R}^{T \\times d_{\\text{model}}}',
    explanation: (c) =>
      `One row per token, each a vector of d_model numbers. In self-attention the queries, the keys and the values are all computed from this one matrix: the sequence attends to itself. ${
        c.seed === 42 ? 'With seed 42 these are the very numbers the lesson draws with numpy.' : `They are drawn like numpy\u2019s np.random.randn with seed ${c.seed}.`
      }`,
    explainable: false,
  },
  projection('q', 'Q', 'Queries Q', 'Each token is projected to a query: row i of Q describes what token i is looking for.'),
  projection('k', 'K', 'Keys K', 'Each token is projected to a key: row j of K is what token j can be matched on.'),
  projection('v', 'V', 'Values V', 'Each token is projected to a value: row j of V is the content token j passes on when it is attended to. d_v may differ from d_k.'),
  {
    id: 'scores',
    group: 'head',
    title: 'Scores',
    result: 'scores',
    figure: () => [{ operand: 'Q' }, { glyph: '@' }, { operand: 'K', transpose: true, label: 'Kᵀ' }],
    formula: () => 'S = Q\\,K^{\\top}',
    explanation: () =>
      'Every query meets every key in a dot product: entry (i, j) measures how well token i\u2019s query matches token j\u2019s key. This is a T × T matrix of all pairwise scores, which is why attention\u2019s memory grows with the square of the sequence length.',
    explainable: true,
    highlight: ({ row: r, col: c }) => ({ Q: row(r), K: col(c) }),
  },
  {
    id: 'scaled',
    group: 'head',
    title: 'Scaled scores',
    result: 'scaled',
    figure: (c) => [{ operand: 'scores' }, { glyph: c.scaleScores ? `÷ √${c.dK}` : '÷ 1' }],
    formula: (c) => (c.scaleScores ? '\\tilde S = \\frac{S}{\\sqrt{d_k}}' : '\\tilde S = S \\quad (\\text{no} \\div \\sqrt{d_k})'),
    explanation: (c) =>
      c.scaleScores
        ? 'The scores are divided by √d_k. A dot product of d_k terms spreads further as d_k grows; unscaled, the softmax would push each row towards a single 1 and the rest 0.'
        : 'Ablation: the scores are not divided by √d_k. Raise d_k and watch the weights\u2019 rows saturate: one weight near 1, the others near 0.',
    explainable: true,
    highlight: ({ row: r, col: c }) => ({ scores: cell(r, c) }),
  },
  {
    id: 'masked',
    group: 'head',
    title: 'Causal mask',
    result: 'masked',
    figure: () => [{ operand: 'scaled' }, { glyph: '+ mask' }],
    formula: () => '\\tilde S_{ij} + M_{ij}, \\quad M_{ij} = \\begin{cases} 0 & j \\le i \\\\ -\\infty & j > i \\end{cases}',
    explanation: () =>
      'A token may look only at itself and at earlier tokens. Every future position (j > i) gets −∞, so after the softmax its weight is exactly 0. Because of this mask, one forward pass can train every position of a sequence in parallel.',
    explainable: true,
    highlight: ({ row: r, col: c }) => ({ scaled: cell(r, c) }),
  },
  {
    id: 'weights',
    group: 'head',
    title: 'Attention weights',
    result: 'weights',
    figure: (c) => [{ glyph: 'softmax' }, { operand: c.causal ? 'masked' : 'scaled' }],
    formula: () => 'A_{ij} = \\frac{e^{\\tilde S_{ij} - m_i}}{\\sum_k e^{\\tilde S_{ik} - m_i}}, \\quad m_i = \\max_k \\tilde S_{ik}',
    explanation: (c) =>
      `A softmax along each row turns the logits into weights: all positive, and each row sums to 1. Subtracting the row maximum first keeps the exponentials from overflowing and does not change the result.${c.causal ? ' Masked positions get exactly 0.' : ''}`,
    explainable: true,
    rowTotals: true,
    highlight: ({ row: r, col: c }, _e, config) => ({ [config.causal ? 'masked' : 'scaled']: { rows: [r], cells: [[r, c]] } }),
  },
  {
    id: 'head',
    group: 'head',
    title: 'Weighted values',
    result: 'head',
    figure: () => [{ operand: 'weights' }, { glyph: '@' }, { operand: 'V' }],
    formula: (c) => `${multi(c) ? '\\text{head}_h' : '\\text{out}'} = A\\,V`,
    explanation: (c) =>
      `Each output row is a weighted average of the value rows, using that token\u2019s row of weights: token i takes in content from the tokens it attends to. Shape (T, d_v).${multi(c) ? ' This is one head\u2019s output.' : ''}`,
    explainable: true,
    highlight: ({ row: r, col: c }) => ({ weights: row(r), V: col(c) }),
  },
  {
    id: 'concat',
    group: 'combine',
    title: 'Concatenate heads',
    result: 'concat',
    listOperand: 'head',
    figure: () => [{ list: 'head', glyph: '|' }],
    formula: () => '\\operatorname{Concat}(\\text{head}_0, \\ldots, \\text{head}_{h-1})',
    explanation: () =>
      'The heads\u2019 outputs are laid side by side along the feature axis, giving (T, h·d_v). With d_v = d_model / h that is d_model wide again. Nothing is computed here: each column is copied from one head.',
    explainable: true,
    highlight: ({ row: r }, e) => (e?.source ? { [`head:${e.source.head}`]: cell(r, e.source.col) } : {}),
  },
  {
    id: 'output',
    group: 'combine',
    title: 'Output projection',
    result: 'output',
    listOperand: 'contribution',
    figure: () => [{ operand: 'concat' }, { glyph: '@' }, { operand: 'W_O' }],
    // The toggle "sum over heads": the same output as Σ_h head_h · W_O[rows of h].
    sumFigure: () => [{ list: 'contribution', glyph: '+' }],
    formula: () => '\\text{MultiHead}(X) = \\operatorname{Concat}(\\ldots)\\,W^{O} = \\sum_h \\text{head}_h\\,W^{O}_{[h]}',
    explanation: () =>
      'W_O maps the concatenation back to d_model and mixes information across heads; without it each head\u2019s result would stay in its own subspace. Read the product as a sum over heads: each head\u2019s output times the rows of W_O that belong to it.',
    explainable: true,
    highlight: ({ row: r, col: c }, _e, config) => {
      const out = { concat: row(r), W_O: col(c) };
      for (let h = 0; h < config.numHeads; h += 1) out[`contribution:${h}`] = cell(r, c);
      return out;
    },
  },
];

export const GROUPS = [
  { id: 'inputs', title: 'Inputs' },
  { id: 'head', title: 'Per head' },
  { id: 'combine', title: 'Combine heads' },
];

const BY_ID = new Map(STAGES.map((s) => [s.id, s]));

export function stageById(id) {
  return BY_ID.get(id) ?? null;
}

// An operand's key in figures and highlights: list operands (one per head) carry their head.
export function operandKey(stage, operand) {
  return stage.listOperand === operand.name ? `${operand.name}:${operand.head}` : operand.name;
}
