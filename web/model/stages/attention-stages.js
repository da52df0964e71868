// The attention stages as data: inputs, the per-head passes (project, score, scale, mask,
// softmax, weigh the values) and the combination of the heads. Self-, cross-, grouped-query
// and multi-head attention share these entries; only shapes and labels differ, and those come
// from the trace. Entry fields are described in ../stage-table.js.

import { formatBillions, formatPercent } from '../format.js';
import { filledDot, grouped, logitsSymbol, n, f, perHead, shortList, sourceOf, weightOf } from './tex.js';

const row = (r) => ({ rows: [r] });
const col = (c) => ({ cols: [c] });
const cell = (r, c) => ({ cells: [[r, c]] });
const dot = ({ row: r, col: c }) => ({ 0: row(r), 1: col(c) });

function drawnFrom({ config: c, preset }) {
  if (preset?.fromLesson && preset.spec.skip) {
    return (
      `These are the very numbers the lesson\u2019s program draws: its causal ` +
      `example does not reseed, so X continues numpy\u2019s seed-${c.seed} ` +
      `stream after the ${preset.spec.skip} numbers the multi-head example drew.`
    );
  }
  if (preset?.fromLesson)
    return `These are the very numbers the lesson draws: np.random.seed(${c.seed}), then np.random.randn.`;
  return c.seed === null
    ? 'These rows were given directly.'
    : `They are drawn like numpy\u2019s np.random.randn with seed ${c.seed}.`;
}

// The designed X's word block (columns T … T + d_v − 1): tokens whose rows set the same column
// are one word to the engine (compared without case). Read from the engine's X, not re-derived.
function repeatedWords(stage, tokens, c) {
  const byColumn = new Map();
  for (let r = 0; r < c.seqLen; r += 1) {
    const start = r * c.dModel + c.seqLen;
    const column = Array.from(stage.values.subarray(start, start + c.dV)).indexOf(1);
    byColumn.set(column, [...(byColumn.get(column) ?? []), r]);
  }
  return [...byColumn.values()].filter((rows) => rows.length > 1);
}

function builtFrom({ config: c, stage, tokens }) {
  const repeats = repeatedWords(stage, tokens, c).map(
    (rows) => `\u201c${tokens[rows[0]] ?? rows[0]}\u201d (tokens ${shortList(rows.map(String), ', ')})`,
  );
  const shared = repeats.length
    ? `so the rows of ${repeats.join(' and of ')} share a word column`
    : 'no word repeats here, so every token has a word column of its own';
  return (
    'These rows are built, not drawn: each token\u2019s position as a one-hot block, its ' +
    `word as a one-hot block (one column per distinct word: ${shared}), and a constant 1. ` +
    'Change the words and X changes with them.'
  );
}

const input = (id, title, tex, what) => ({
  id,
  group: 'inputs',
  title,
  result: id === 'x' ? 'X' : id === 'x_q' ? 'X_q' : 'X_kv',
  figure: () => [],
  formula: () => tex,
  explanation: (ctx) =>
    ctx.config.kind === 'designed'
      ? `${what(ctx.config)} ${builtFrom(ctx)}`
      : `${what(ctx.config)} ${drawnFrom(ctx)} The tokens only label the ` +
        `rows: the vectors are random, not learned embeddings of those words.`,
  explain: null,
});

function projection(id, letter, title, what) {
  const tex = (c) => {
    if (c.kind === 'kv-cache') return `q_t = x_t\\,${weightOf(c, letter)}`;
    if (letter !== 'Q' && grouped(c)) return `${letter}_g = ${sourceOf(c, letter)}\\,W^{${letter}}_g`;
    return `${perHead(c, letter)} = ${sourceOf(c, letter)}\\,${weightOf(c, letter)}`;
  };
  const shared = (c, stage) => {
    if (letter === 'Q' || !grouped(c))
      return c.numHeads > 1 ? ` Each head has its own W^${letter}, so it works in its own subspace.` : '';
    const g = stage.kvHead;
    const size = c.numHeads / c.numKvHeads;
    return ` This is K/V head ${g}: computed once and read by query heads ${g * size} to ${g * size + size - 1}.`;
  };
  return {
    id,
    group: 'head',
    sharedByGroup: letter !== 'Q',
    title,
    result: letter,
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }],
    formula: tex,
    explanation: ({ config: c, stage }) =>
      c.kind === 'kv-cache'
        ? `Token ${stage.step}\u2019s query: what the new token looks for among all the tokens so ` +
          `far. Only this one row is computed; earlier tokens\u2019 queries are never needed again.`
        : `${what(c)}${shared(c, stage)}`,
    explain: {
      symbolic: (i, j, c) =>
        `${letter}_{${i},${j}} = \\sum_d {${sourceOf(c, letter)}}_{${i},d}\\,W^{${letter}}_{d,${j}}`,
      filled: (e, { row: r, col: c }) => filledDot(e, `${letter}_{${r},${c}}`),
    },
    highlight: dot,
  };
}

const fromWhich = (c, letter) =>
  c.kind === 'cross' ? (letter === 'Q' ? ' of the target (X_q)' : ' of the source (X_kv)') : '';

export const ATTENTION_STAGES = [
  input(
    'x',
    'Input embeddings X',
    'X \\in \\mathbb{R}^{T \\times d_{\\text{model}}}, \\quad T = \\text{seq\\_len}',
    () =>
      'One row per token: T = seq_len rows of d_model numbers. Queries, keys and ' +
      'values are all computed from this one matrix: the sequence attends to itself.',
  ),
  input(
    'x_q',
    'Target tokens X_q',
    'X_q \\in \\mathbb{R}^{T_q \\times d_{\\text{model}}}',
    () => 'The sequence being written, one row per token (T_q rows). Only the queries come from here.',
  ),
  input(
    'x_kv',
    'Source tokens X_kv',
    'X_{kv} \\in \\mathbb{R}^{T_{kv} \\times d_{\\text{model}}}',
    () =>
      'The sequence being read, e.g. the encoder\u2019s output or ' +
      'retrieved documents (T_kv rows). Keys and values come from here.',
  ),
  projection(
    'q',
    'Q',
    'Queries Q',
    (c) => `Every token${fromWhich(c, 'Q')} is projected to a query: row t of Q says what token t is looking for.`,
  ),
  projection(
    'k',
    'K',
    'Keys K',
    (c) => `Every token${fromWhich(c, 'K')} is projected to a key: row j of K is what token j can be found by.`,
  ),
  projection(
    'v',
    'V',
    'Values V',
    (c) =>
      `Every token${fromWhich(c, 'V')} is projected to a value: row j of V is ` +
      `what token j passes on when it is attended to. d_v may differ from d_k.`,
  ),
  {
    id: 'scores',
    group: 'head',
    title: 'Scores',
    result: 'scores',
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1, transpose: true, label: 'K\u1d40' }],
    formula: () => 'S = Q\\,K^{\\top}',
    explanation: ({ config: c, models }) => {
      const gpt3 = models.find((m) => m.id === 'gpt3-175b');
      if (c.kind === 'kv-cache')
        return (
          'The new token\u2019s query meets every cached key, its own included: one ' +
          'row of t+1 scores. No causal mask is needed: the cache holds only the past.'
        );
      const size =
        c.kind === 'cross'
          ? 'a T_q × T_kv matrix: one row per target token, one column per source token'
          : 'a T × T matrix of all pairwise scores, which is why attention\u2019s ' +
            'memory grows with the square of the sequence length';
      const scale = gpt3
        ? ` At GPT-3\u2019s size (T = ${gpt3.contextLength}, ${gpt3.numHeads} heads, ${gpt3.numLayers} layers) ` +
          `one forward pass holds ${formatBillions(gpt3.scoreValues)} such scores (${gpt3.contextLength}\u00b2 ` +
          `\u00b7 ${gpt3.numHeads} \u00b7 ${gpt3.numLayers}; the lesson rounds it to ~37 billion).`
        : '';
      return (
        `Every query meets every key in a dot product: entry (t, j) measures how well ` +
        `query t matches key j. This is ${size}.${c.kind === 'cross' ? '' : scale}`
      );
    },
    explain: {
      symbolic: (i, j) => `S_{${i},${j}} = q_{${i}} \\cdot k_{${j}} = \\sum_d Q_{${i},d}\\,K_{${j},d}`,
      filled: (e, { row: r, col: c }) => filledDot(e, `S_{${r},${c}}`),
    },
    highlight: dot,
  },
  {
    id: 'scaled',
    group: 'head',
    title: 'Scaled scores',
    result: 'scaled',
    figure: (c) => [{ operand: 0 }, { glyph: c.scaleScores ? `\u00f7 \u221a${c.dK}` : '\u00f7 1' }],
    formula: (c) =>
      c.scaleScores ? '\\tilde S = \\frac{S}{\\sqrt{d_k}}' : '\\tilde S = S \\quad (\\text{no} \\div \\sqrt{d_k})',
    explanation: ({ config: c }) =>
      c.scaleScores
        ? 'The scores are divided by \u221ad_k. If the components of q and k have mean 0 and variance ' +
          '1, their dot product q\u00b7k has variance d_k: it spreads wider as d_k grows. Unscaled, ' +
          'the softmax would saturate (one weight near 1, the rest near 0), where its gradients ' +
          'vanish and learning stalls; dividing by \u221ad_k brings the variance back to 1.'
        : 'Ablation: the scores are not divided by \u221ad_k. Raise d_k and watch the weights\u2019 rows ' +
          'saturate, one weight near 1 and the others near 0: there the softmax\u2019s gradients vanish.',
    explain: {
      symbolic: (i, j, c) =>
        c.scaleScores
          ? `\\tilde S_{${i},${j}} = \\frac{q_{${i}} \\cdot k_{${j}}}{\\sqrt{d_k}}`
          : `\\tilde S_{${i},${j}} = q_{${i}} \\cdot k_{${j}} \\quad (\\text{no} \\div \\sqrt{d_k})`,
      filled: (e, { row: r, col: c, config }) => {
        const lead = filledDot(e, `q_{${r}} \\cdot k_{${c}}`);
        if (!config.scaleScores) return `${lead}, \\quad \\tilde S_{${r},${c}} = ${n(e.value)}`;
        return (
          `${lead}, \\quad ${n(e.sum)} \\div \\sqrt{${config.dK}} ` +
          `= ${n(e.sum)} \\div ${n(e.divisor)} = ${n(e.value)}`
        );
      },
    },
    highlight: ({ row: r, col: c }) => ({ 0: cell(r, c) }),
  },
  {
    id: 'masked',
    group: 'head',
    title: (c) => (c.causal ? 'Causal mask' : 'Padding mask'),
    optional: { flag: 'causal', after: 'scaled' },
    result: 'L',
    figure: () => [{ operand: 0 }, { glyph: '+' }, { operand: 1 }],
    formula: (c) =>
      c.causal
        ? 'L = \\tilde S + M, \\quad M_{tj} = \\begin{cases} 0 & j \\le t \\\\ -\\infty & j > t \\end{cases}'
        : 'L = \\tilde S + M, \\quad M_{tj} = \\begin{cases} 0 & j < ' +
          '\\text{valid} \\\\ -\\infty & j \\ge \\text{valid} \\end{cases}',
    explanation: ({ config: c }) =>
      `${
        c.causal
          ? 'A token may look only at itself and at earlier tokens: M holds \u2212\u221e at ' +
            'every future position (j > t), so after the softmax its weight is exactly 0. ' +
            'Because of this mask one forward pass trains every position of a sequence at once.'
          : `Source positions from ${c.validKeys} on are padding (sequences in a batch are ` +
            `padded to one length): M holds \u2212\u221e there, so no query reads them.`
      } The lesson\u2019s code adds \u22121e9 where its text says \u2212\u221e: both give exactly 0 ` +
      `after the softmax in float64, and \u22121e9 keeps a fully masked row from becoming NaN.`,
    explain: {
      symbolic: (i, j) => `L_{${i},${j}} = \\tilde S_{${i},${j}} + M_{${i},${j}}`,
      filled: (e, { row: r, col: c }) =>
        e.masked
          ? `M_{${r},${c}} = -\\infty, \\quad L_{${r},${c}} = ${n(e.input)} + (-\\infty) = -\\infty`
          : `M_{${r},${c}} = 0, \\quad L_{${r},${c}} = ${n(e.input)} + 0 = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }) => ({ 0: cell(r, c), 1: cell(r, c) }),
  },
  {
    id: 'weights',
    group: 'head',
    title: 'Attention weights',
    result: 'weights',
    figure: () => [{ glyph: 'softmax' }, { operand: 0 }],
    formula: (c) =>
      `A_{tj} = \\frac{e^{${logitsSymbol(c)}_{tj} - m_t}}{\\sum_k ` +
      `e^{${logitsSymbol(c)}_{tk} - m_t}}, \\quad m_t = \\max_k ${logitsSymbol(c)}_{tk}`,
    explanation: ({ config: c }) =>
      `A softmax along each row turns the logits into weights: non-negative${
        c.causal || c.validKeys !== null ? ', exactly 0 where masked' : ''
      }, and each row sums to 1 (the matrix is row-stochastic; the engine\u2019s row sums are printed ` +
      `beside it). Subtracting the row maximum first keeps the exponentials ` +
      `from overflowing and does not change the result.`,
    explain: {
      symbolic: (i, j, c) =>
        `A_{${i},${j}} = \\frac{e^{${logitsSymbol(c)}_{${i},${j}} - ` +
        `m_{${i}}}}{\\sum_k e^{${logitsSymbol(c)}_{${i},k} - m_{${i}}}}`,
      filled: (e, { row: r, col: c }) => {
        const s = e.softmax;
        if (e.masked) return `e^{-\\infty} = 0, \\quad A_{${r},${c}} = \\dfrac{0}{${n(s.expSum)}} = ${n(e.value)}`;
        const denominator = shortList(Array.from(s.exps, (x) => n(x)));
        return (
          `m_{${r}} = ${n(s.max)}, \\quad A_{${r},${c}} = \\dfrac{e^{${n(s.logits[c])} - ` +
          `${f(s.max)}}}{${denominator}} = \\dfrac{${n(s.exps[c])}}{${n(s.expSum)}} = ${n(e.value)}`
        );
      },
    },
    highlight: ({ row: r, col: c }) => ({ 0: { rows: [r], cells: [[r, c]] } }),
    view: { arcs: true, overview: true, rowTotals: true, maskedZero: true, sequential: true },
  },
  {
    id: 'head',
    group: 'head',
    title: 'Weighted values',
    result: 'head',
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }],
    formula: (c) => `${c.numHeads > 1 ? '\\text{head}_i' : '\\text{out}'} = A\\,V`,
    explanation: ({ config: c }) =>
      `Each output row is a weighted average of the value rows, with that ` +
      `token\u2019s row of weights: token t takes in content from the ${
        c.kind === 'cross' ? 'source tokens' : 'tokens'
      } it attends to.${c.numHeads > 1 ? ' This is one head\u2019s output.' : ''}`,
    explain: {
      symbolic: (i, j) => `\\text{head}_{${i},${j}} = \\sum_s A_{${i},s}\\,V_{s,${j}}`,
      filled: (e, { row: r, col: c }) => filledDot(e, `\\text{head}_{${r},${c}}`),
    },
    highlight: dot,
  },
  {
    id: 'concat',
    group: 'combine',
    title: 'Concatenate heads',
    result: 'concat',
    figure: () => [{ list: 'head', glyph: '|' }],
    formula: () => '\\operatorname{Concat}(\\text{head}_0, \\ldots, \\text{head}_{h-1})',
    explanation: ({ config: c }) => {
      const width = c.numHeads * c.dV;
      const back =
        width === c.dModel
          ? `, here equal to d_model = ${c.dModel} because h\u00b7d_v = d_model`
          : `, which is not d_model = ${c.dModel} here (h\u00b7d_v = ${width})` +
            (c.outputProjection ? '; W_O maps it back' : '');
      const last = c.outputProjection ? '' : ' Without W_O it is the layer\u2019s output: nothing mixes the heads.';
      return (
        `The heads\u2019 outputs are laid side by side along the feature axis, giving (T, ` +
        `h\u00b7d_v)${back}. Nothing is computed: each column is copied from one head.${last}`
      );
    },
    explain: {
      symbolic: (i, j) => `\\text{concat}_{${i},${j}}`,
      filled: (e, { row: r, col: c }) =>
        `\\text{concat}_{${r},${c}} = \\text{head}^{(${e.source.head})}_{${r},${e.source.col}} = ${n(e.value)}`,
    },
    highlight: ({ row: r }, e) => (e?.source ? { [e.source.head]: cell(r, e.source.col) } : {}),
    view: { pruning: true },
  },
  {
    id: 'pruned',
    group: 'combine',
    title: 'Pruned heads',
    result: 'pruned',
    figure: () => [{ operand: 0 }, { glyph: '\u2299' }, { operand: 1 }],
    formula: () =>
      "\\text{concat}' = \\text{concat} \\odot g, \\quad g_j = \\begin{cases} 0 & " +
      '\\text{column } j \\text{ of a pruned head} \\\\ 1 & \\text{otherwise} \\end{cases}',
    explanation: ({ config: c }) =>
      `Head${c.prunedHeads.length > 1 ? 's' : ''} ${c.prunedHeads.join(', ')} ` +
      `${c.prunedHeads.length > 1 ? 'are' : 'is'} pruned: ` +
      `${c.prunedHeads.length > 1 ? 'their' : 'its'} columns become 0 before W_O, so the output ` +
      `mixes only the other heads. The output changes by ${formatPercent(c.outputChange)} of ` +
      `its size (\u2016\u0394output\u2016 / \u2016output\u2016, from the engine).`,
    explain: {
      symbolic: (i, j) => `\\text{concat}'_{${i},${j}} = \\text{concat}_{${i},${j}}\\, g_{${j}}`,
      filled: (e, { row: r, col: c }) => `\\text{concat}'_{${r},${c}} = ${n(e.input)} \\cdot ${e.gate} = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }) => ({ 0: cell(r, c), 1: cell(0, c) }),
    view: { pruning: true },
  },
  {
    id: 'output',
    group: 'combine',
    title: 'Output projection',
    optional: { flag: 'outputProjection', after: 'concat' },
    result: 'output',
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }],
    formula: () =>
      '\\text{MultiHead}(X) = \\operatorname{Concat}(\\ldots)\\,W^{O} = \\sum_i \\text{head}_i\\,W^{O}_{[i]}',
    explanation: () =>
      'W_O maps the concatenation back to d_model and mixes information across heads; ' +
      'without it each head\u2019s result would stay in its own subspace. Read the product ' +
      'as a sum over heads: each head\u2019s output times the rows of W_O that belong to it.',
    explain: {
      symbolic: (i, j) => `\\text{output}_{${i},${j}} = \\sum_m \\text{concat}_{${i},m}\\,W^{O}_{m,${j}}`,
      filled: (e, { row: r, col: c }) => filledDot(e, `\\text{output}_{${r},${c}}`),
    },
    highlight: ({ row: r, col: c }, _e, _c, stage) => {
      const out = dot({ row: r, col: c });
      stage.operands.forEach((o, k) => {
        if (o.name === 'contribution') out[k] = cell(r, c);
      });
      return out;
    },
    view: { sumFigure: [{ list: 'contribution', glyph: '+' }], pruning: true },
  },
];
