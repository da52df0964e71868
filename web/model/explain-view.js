// engine.explain(spec, cell) → the explain panel's data: the cell's formula in symbols and then
// filled with the engine's numbers (both from the stage's entry in the stage table), plus a
// table of every term. Pure; the numbers are only formatted here, never computed.

import { formatCell, formatFull } from './format.js';
import { stageById } from './stage-table.js';

const cellText = (v) => ({ text: formatCell(v), full: formatFull(v) });

// Row labels of a table whose index runs over tokens (the softmax's keys, weights · V).
function indexLabel(k, tokens) {
  return tokens && tokens[k] !== undefined ? `${k} ${tokens[k]}` : String(k);
}

function termsTable(stageId, e, keyTokens) {
  if (e.terms) {
    const labels = stageId === 'head' ? keyTokens : null;
    return {
      headers: ['index', 'a', 'b', 'a · b'],
      rows: e.terms.map((t, k) => [{ text: indexLabel(k, labels) }, cellText(t.a), cellText(t.b), cellText(t.product)]),
      footer: [{ text: 'Σ' }, { text: '' }, { text: '' }, cellText(e.sum)],
    };
  }
  if (e.softmax) {
    const s = e.softmax;
    return {
      headers: ['key', 'logit', 'e^(logit − max)'],
      rows: Array.from(s.logits, (l, k) => [{ text: indexLabel(k, keyTokens) }, cellText(l), cellText(s.exps[k])]),
      footer: [{ text: 'Σ' }, { text: '' }, cellText(s.expSum)],
    };
  }
  if (e.norm) {
    return {
      headers: ['feature', 'value in the row'],
      rows: Array.from(e.norm.row, (v, k) => [{ text: String(k) }, cellText(v)]),
      footer: [
        { text: 'mean, std' },
        {
          text: `${formatCell(e.norm.mean)}, ${formatCell(e.norm.std)}`,
          full: `${formatFull(e.norm.mean)}, ${formatFull(e.norm.std)}`,
        },
      ],
    };
  }
  return null;
}

/** ctx: { stageId, head, row, col, config, keyTokens, label } */
export function explainView(explained, ctx) {
  const { stageId, row, col, config } = ctx;
  const explain = stageById(stageId)?.explain;
  if (!explain) throw new Error(`explain: stage ${stageId} has no formula to explain`);
  const where = ctx.head !== null && ctx.head !== undefined && config.numHeads > 1 ? `, head ${ctx.head}` : '';
  return {
    title: `${ctx.label}[${row}, ${col}]${where}`,
    value: cellText(explained.value),
    symbolicTex: explain.symbolic(row, col, config),
    filledTex: explain.filled(explained, { row, col, config }),
    table: termsTable(stageId, explained, ctx.keyTokens),
    raw: explained,
  };
}
