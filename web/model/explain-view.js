// engine.explain(spec, cell) → the explain panel's data: the cell's formula in symbols and then
// filled with the engine's numbers (both from the stage's entry in the stage table), plus a
// table of every term. Pure; the numbers are only formatted here, never computed.

import { formatCell, formatFull } from './format.js';
import { stageById } from './stage-table.js';
import { slotTokens } from './stage-view.js';

const cellText = (v) => ({ text: formatCell(v), full: formatFull(v) });

// Row labels of a table whose index runs over tokens (the softmax's keys, weights · V): index k
// is the token at positions[k] (a full ring's slot k), else token k.
function indexLabel(k, tokens, positions = null) {
  const j = positions ? positions[k] : k;
  return tokens && tokens[j] !== undefined ? `${j} ${tokens[j]}` : String(j);
}

// The token each key index of a decode step's stage stands for, when its keys are a full ring of W
// cache slots (an axis W, on the stage or on the weights it reads); else null.
function ringPositions(stage, config) {
  const ring = [stage?.axes, stage?.operands?.[0]?.axes].some((axes) => axes?.[1] === 'W');
  return config.kind === 'kv-cache' && ring ? slotTokens(config, stage.step) : null;
}

function termsTable(stageId, e, keyTokens, positions) {
  if (e.terms) {
    const labels = stageId === 'head' ? keyTokens : null;
    const at = stageId === 'head' ? positions : null;
    return {
      headers: ['index', 'a', 'b', 'a · b'],
      rows: e.terms.map((t, k) => [
        { text: indexLabel(k, labels, at) },
        cellText(t.a),
        cellText(t.b),
        cellText(t.product),
      ]),
      footer: [{ text: 'Σ' }, { text: '' }, { text: '' }, cellText(e.sum)],
    };
  }
  if (e.softmax) {
    const s = e.softmax;
    return {
      headers: ['key', 'logit', 'e^(logit − max)'],
      rows: Array.from(s.logits, (l, k) => [
        { text: indexLabel(k, keyTokens, positions) },
        cellText(l),
        cellText(s.exps[k]),
      ]),
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

// The positions a cell's row and column stand for, as the heatmap labels them: a decode step's
// one row is token t, a tile's rows are its query block's and the tile scores' columns its key
// block's. Elsewhere the row and column are the positions themselves.
export function placeOf(stage, row, col, config) {
  if (stage?.tile) {
    const keys = stage.id === 'tile_scores' ? stage.tile.keyRows[0] : 0;
    return { i: stage.tile.queryRows[0] + row, j: keys + col };
  }
  if (config.kind === 'kv-cache' && stage?.step !== null && stage?.step !== undefined && stage.shape[0] === 1) {
    // In a full ring of W cache rows a column is a slot: its key is the token the slot holds.
    if (stage.axes[1] === 'W') return { i: stage.step, j: slotTokens(config, stage.step)[col], slot: col };
    return { i: stage.step, j: col };
  }
  return { i: row, j: col };
}

/** ctx: { stageId, head, row, col, config, keyTokens, label, stage (the trace's, for its step or tile) } */
export function explainView(explained, ctx) {
  const { stageId, row, col, config } = ctx;
  const explain = stageById(stageId)?.explain;
  if (!explain) throw new Error(`explain: stage ${stageId} has no formula to explain`);
  const where = ctx.head !== null && ctx.head !== undefined && config.numHeads > 1 ? `, head ${ctx.head}` : '';
  const { i, j, slot } = placeOf(ctx.stage, row, col, config);
  const held = slot === undefined ? '' : `, cache slot ${slot} (token ${j})`;
  return {
    title: `${ctx.label}[${i}, ${j}]${where}${held}`,
    value: cellText(explained.value),
    symbolicTex: explain.symbolic(i, j, config, ctx.stage),
    filledTex: explain.filled(explained, { row, col, i, j, config, stage: ctx.stage }),
    table: termsTable(stageId, explained, ctx.keyTokens, ringPositions(ctx.stage, config)),
    raw: explained,
  };
}
