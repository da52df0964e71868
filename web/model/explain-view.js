// engine.explain(spec, cell) → the explain panel's data: the cell's formula in symbols and then
// filled with the engine's numbers, plus a table of every term. Pure; the numbers are only
// formatted here, never computed.

import { formatCell, formatFull, texNumber } from './format.js';

const MAX_TEX_TERMS = 8; // longer sums show their first and last terms around \cdots

const n = (v) => texNumber(v);
const f = (v) => texNumber(v, { paren: true });

function sumOfTerms(terms) {
  const tex = terms.map((t) => `${f(t.a)}\\cdot${f(t.b)}`);
  if (tex.length <= MAX_TEX_TERMS) return tex.join(' + ');
  return [...tex.slice(0, 5), '\\cdots', ...tex.slice(-2)].join(' + ');
}

const SYMBOLIC = {
  q: (i, j) => `Q_{${i},${j}} = \\sum_d X_{${i},d}\\,W^{Q}_{d,${j}}`,
  k: (i, j) => `K_{${i},${j}} = \\sum_d X_{${i},d}\\,W^{K}_{d,${j}}`,
  v: (i, j) => `V_{${i},${j}} = \\sum_d X_{${i},d}\\,W^{V}_{d,${j}}`,
  scores: (i, j) => `S_{${i},${j}} = q_{${i}} \\cdot k_{${j}} = \\sum_d Q_{${i},d}\\,K_{${j},d}`,
  scaled: (i, j) => `\\tilde S_{${i},${j}} = \\frac{q_{${i}} \\cdot k_{${j}}}{\\sqrt{d_k}}`,
  masked: (i, j) => `\\tilde S_{${i},${j}} + M_{${i},${j}}`,
  weights: (i, j) => `A_{${i},${j}} = \\frac{e^{\\tilde S_{${i},${j}} - m_{${i}}}}{\\sum_k e^{\\tilde S_{${i},k} - m_{${i}}}}`,
  head: (i, j) => `\\text{head}_{${i},${j}} = \\sum_t A_{${i},t}\\,V_{t,${j}}`,
  concat: (i, j) => `\\text{concat}_{${i},${j}}`,
  output: (i, j) => `\\text{output}_{${i},${j}} = \\sum_m \\text{concat}_{${i},m}\\,W^{O}_{m,${j}}`,
};

function filledDot(e, lead) {
  return `${lead} = ${sumOfTerms(e.terms)} = ${n(e.sum)}`;
}

function filledScaled(e, { row, col, config }) {
  const dot = filledDot(e, `q_{${row}} \\cdot k_{${col}}`);
  const root = config.scaleScores ? `\\sqrt{${config.dK}}` : '1';
  const divisor = config.scaleScores ? ` = ${n(e.sum)} \\div ${n(e.divisor)}` : '';
  return `${dot}, \\quad ${n(e.sum)} \\div ${root}${divisor} = ${n(e.value)}`;
}

function filledMasked(e, { row, col }) {
  if (e.masked) return `${col} > ${row} \\Rightarrow M_{${row},${col}} = -\\infty, \\quad \\text{so the cell is } -\\infty`;
  return `${col} \\le ${row} \\Rightarrow M_{${row},${col}} = 0, \\quad ${n(e.value)} + 0 = ${n(e.value)}`;
}

function filledSoftmax(e, { row, col }) {
  const s = e.softmax;
  const logit = s.logits[col];
  if (e.masked || logit === -Infinity) {
    return `\\tilde S_{${row},${col}} = -\\infty \\Rightarrow e^{-\\infty} = 0, \\quad A_{${row},${col}} = \\dfrac{0}{${n(s.expSum)}} = ${n(e.value)}`;
  }
  const parts = Array.from(s.exps, (x) => n(x));
  const denominator = parts.length <= MAX_TEX_TERMS ? parts.join(' + ') : [...parts.slice(0, 5), '\\cdots', ...parts.slice(-2)].join(' + ');
  return `m_{${row}} = ${n(s.max)}, \\quad A_{${row},${col}} = \\dfrac{e^{${n(logit)} - ${f(s.max)}}}{${denominator}} = \\dfrac{${n(s.exps[col])}}{${n(s.expSum)}} = ${n(e.value)}`;
}

function filledConcat(e, { row, col }) {
  const src = e.source;
  return `\\text{concat}_{${row},${col}} = \\text{head}^{(${src.head})}_{${row},${src.col}} = ${n(e.value)}`;
}

const FILLED = {
  q: (e, c) => filledDot(e, `Q_{${c.row},${c.col}}`),
  k: (e, c) => filledDot(e, `K_{${c.row},${c.col}}`),
  v: (e, c) => filledDot(e, `V_{${c.row},${c.col}}`),
  scores: (e, c) => filledDot(e, `S_{${c.row},${c.col}}`),
  scaled: filledScaled,
  masked: filledMasked,
  weights: filledSoftmax,
  head: (e, c) => filledDot(e, `\\text{head}_{${c.row},${c.col}}`),
  concat: filledConcat,
  output: (e, c) => filledDot(e, `\\text{output}_{${c.row},${c.col}}`),
};

// Row labels of the terms table: what the summation index runs over.
function termLabel(stageId, k, tokens) {
  if (stageId === 'head') return tokens[k] !== undefined ? `${k} ${tokens[k]}` : String(k);
  return String(k);
}

const cellText = (v) => ({ text: formatCell(v), full: formatFull(v) });

function termsTable(stageId, e, tokens) {
  if (e.terms) {
    return {
      headers: ['index', 'a', 'b', 'a · b'],
      rows: e.terms.map((t, k) => [{ text: termLabel(stageId, k, tokens) }, cellText(t.a), cellText(t.b), cellText(t.product)]),
      footer: [{ text: 'Σ' }, { text: '' }, { text: '' }, cellText(e.sum)],
    };
  }
  if (e.softmax) {
    const s = e.softmax;
    return {
      headers: ['k', 'logit', 'e^(logit − max)'],
      rows: Array.from(s.logits, (l, k) => [{ text: termLabel('head', k, tokens) }, cellText(l), cellText(s.exps[k])]),
      footer: [{ text: 'Σ' }, { text: '' }, cellText(s.expSum)],
    };
  }
  return null;
}

/** ctx: { stageId, head, row, col, config, tokens, label } */
export function explainView(explained, ctx) {
  const { stageId, row, col } = ctx;
  const symbolic = SYMBOLIC[stageId];
  const filled = FILLED[stageId];
  if (!symbolic || !filled) throw new Error(`explain: no formula for stage ${stageId}`);
  const where = ctx.head !== null && ctx.head !== undefined && ctx.config.numHeads > 1 ? `, head ${ctx.head}` : '';
  return {
    title: `${ctx.label}[${row}, ${col}]${where}`,
    value: cellText(explained.value),
    symbolicTex: symbolic(row, col),
    filledTex: filled(explained, { row, col, config: ctx.config }),
    table: termsTable(stageId, explained, ctx.tokens),
    raw: explained,
  };
}
