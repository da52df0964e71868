// FlashAttention's tile stages: per tile the logits L_IJ, the running max μ, the running sum Z and
// the running output U; per query block its output, O_I = U / Z. I and J name a query and a key
// block; i and j stay positions, as everywhere on the page.
// Entry fields: see ../stage-table.js.

import { rowsText } from '../format.js';
import { nextTileQuestion } from '../quiz-questions.js';
import { entry } from './entry.js';
import { cell, col, row } from './highlight.js';
import { nonNegative } from './captions.js';
import { ofTile } from './numpy-paths.js';
import { f, n, productSum, shortList } from './tex.js';
import { maskRulesAt, scaledAt } from './terms.js';

const where = ({ stage }) =>
  `${rowsText('query', stage.tile.queryRows)} against ${rowsText('key', stage.tile.keyRows)}`;

// Where the speed-up comes from (Dao et al. 2022): memory traffic, not arithmetic.
const IO_NOTE =
  'The speed comes from memory traffic, not from less arithmetic: each block of Q, K and V is read from the ' +
  'GPU\u2019s large, slow HBM into its small, fast on-chip SRAM, used there, and the T \u00d7 T scores are ' +
  'never written out and read back (IO-aware tiling).';

// The rules of the mask that set a tile's logit to −∞, from the engine's terms (causal: a key after
// its query; window: a key W or more before it).
const HIDDEN = {
  causal: { tex: 'j > i', text: 'after their query' },
  window: { tex: 'j \\le i - W', text: 'W or more before it' },
};
const hiddenBy = (stage) => maskRulesAt(stage).map((t) => HIDDEN[t]);
// Whether a query block read fewer key blocks than the sequence holds (its keyRows: the first and
// past-the-last key it read).
const skippedAny = (stage, c) => stage.tile.keyRows[0] > 0 || stage.tile.keyRows[1] < c.seqLen;

function tileEntry(id, title, fields) {
  return { id, group: 'tile', title, ...fields };
}

export const TILE_STAGES = [
  entry({
    ...tileEntry('tile_scores', 'Tile logits L_IJ', {
      result: 'L_IJ',
      terms: ['scale', 'causal', 'window'],
      figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1, transpose: true, label: 'K_J\u1d40' }],
      formula: (c, stage) => {
        const hidden = hiddenBy(stage);
        return (
          `L_{IJ} = \\frac{Q_I K_J^{\\top}}${scaledAt(stage) ? '{\\sqrt{d_k}}' : '{1}'}` +
          (hidden.length
            ? `, \\quad L_{ij} = -\\infty \\text{ where } ${hidden.map((h) => h.tex).join(' \\text{ or } ')}`
            : '')
        );
      },
      explanation: (ctx) => {
        const hidden = hiddenBy(ctx.stage);
        return (
          `One tile: ${where(ctx)}. Only this B_r \u00d7 B_c block of logits ` +
          `exists at any time; the full T \u00d7 T matrix is never formed. ${IO_NOTE}` +
          (hidden.length
            ? ` Keys ${hidden.map((h) => h.text).join(' or ')} get \u2212\u221e, as the mask would give them` +
              `${ctx.stage.terms.includes('window') ? ` (W = ${ctx.config.window})` : ''}.`
            : '')
        );
      },
      explain: {
        symbolic: (i, j, c, stage) =>
          `L_{${i},${j}} = \\frac{q_{${i}} \\cdot k_{${j}}}{${scaledAt(stage) ? '\\sqrt{d_k}' : '1'}}`,
        filled: (e, { i: r, j: c }) =>
          e.masked
            ? `\\text{hidden by the mask} \\Rightarrow L_{${r},${c}} = -\\infty`
            : `L_{${r},${c}} = (${productSum(e.terms)}) \\div ${n(e.divisor)} = ${n(e.value)}`,
      },
      highlight: ({ row: r, col: c }) => ({ 0: row(r), 1: col(c) }),
    }),
    operands: { Q_i: 'Q_I', K_j: 'K_J' },
    quiz: [nextTileQuestion],
    numpy: ofTile('tile_scores'),
  }),
  entry({
    ...tileEntry('tile_max', 'Running max \u03bc', {
      result: '\u03bc',
      figure: () => [{ glyph: 'max(' }, { operand: 0 }, { glyph: ', rowmax' }, { operand: 1 }, { glyph: ')' }],
      formula: () => '\\mu_i^{\\text{new}} = \\max\\left(\\mu_i, \\max_{j \\in J} L_{ij}\\right)',
      explanation: (ctx) =>
        `The largest logit each query row has seen so far, now including this tile (${where(ctx)}). ` +
        `The softmax subtracts it before exponentiating, so nothing overflows; when it grows, what ` +
        `was summed under the old max is rescaled by \u03b1 = e^(\u03bc \u2212 \u03bc_new). (Dao et al. call it m.)`,
      explain: {
        symbolic: (i) => `\\mu_{${i}}^{\\text{new}} = \\max\\left(\\mu_{${i}}, \\max_{j \\in J} L_{${i},j}\\right)`,
        filled: (e, { i: r }) =>
          `\\mu_{${r}}^{\\text{new}} = \\max\\left(${n(e.previous)}, ${n(e.rowMax)}\\right) = ${n(e.value)}`,
      },
      highlight: ({ row: r }) => ({ 0: cell(r, 0), 1: row(r) }),
    }),
    operands: { m: '\u03bc' },
    numpy: ofTile('tile_max'),
  }),
  entry({
    ...tileEntry('tile_sum', 'Running sum Z', {
      result: 'Z',
      figure: () => [{ operand: 1 }, { glyph: '\u00b7' }, { operand: 0 }, { glyph: '+ rowsum' }, { operand: 2 }],
      formula: () =>
        'Z_i^{\\text{new}} = \\alpha_i Z_i + \\sum_{j \\in J} E_{ij}, \\quad \\alpha_i ' +
        '= e^{\\mu_i - \\mu_i^{\\text{new}}}, \\quad E_{ij} = e^{L_{ij} - \\mu_i^{\\text{new}}}',
      explanation: () =>
        'The softmax\u2019s denominator, built up tile by tile: the old sum ' +
        'rescaled by \u03b1 (so that it, too, is measured against the new max) plus ' +
        'this tile\u2019s exponentials E. At the first tile Z and \u03b1 are 0. ' +
        '(Dao et al. write \u2113 for Z and P\u0303 for E.)',
      explain: {
        symbolic: (i) => `Z_{${i}}^{\\text{new}} = \\alpha_{${i}} Z_{${i}} + \\sum_{j \\in J} E_{${i},j}`,
        filled: (e, { i: r }) =>
          `Z_{${r}}^{\\text{new}} = ${n(e.alpha)} \\cdot ${f(e.previous)} + ` +
          `(${shortList(Array.from(e.row, (x) => n(x)))}) = ${n(e.value)}`,
      },
      highlight: ({ row: r }) => ({ 0: cell(r, 0), 1: cell(r, 0), 2: row(r) }),
    }),
    operands: { l: nonNegative('Z'), '\u03b1': nonNegative('\u03b1'), P: nonNegative('E') },
    nonNegative: true,
    numpy: ofTile('tile_sum'),
  }),
  entry({
    ...tileEntry('tile_out', 'Running output U', {
      result: 'U',
      figure: () => [
        { operand: 1 },
        { glyph: '\u00b7' },
        { operand: 0 },
        { glyph: '+' },
        { operand: 2 },
        { glyph: '@' },
        { operand: 3 },
      ],
      formula: () => 'U_i^{\\text{new}} = \\alpha_i U_i + \\sum_{j \\in J} E_{ij} V_j',
      explanation: () =>
        'The weighted values, not yet divided by Z: the old rows rescaled by \u03b1, plus this tile\u2019s E ' +
        'times its block of values V_J. Dividing once at the end gives exactly the softmax-weighted average. That ' +
        'deferred division is FlashAttention-2\u2019s order; FlashAttention-1 rescaled U by diag(Z)\u207b\u00b9 at ' +
        'every step and wrote it back to HBM.',
      explain: {
        symbolic: (i, j) =>
          `U_{${i},${j}}^{\\text{new}} = \\alpha_{${i}} U_{${i},${j}} + ` + `\\sum_{j' \\in J} E_{${i},j'} V_{j',${j}}`,
        filled: (e, { i: r, j: c }) =>
          `U_{${r},${c}}^{\\text{new}} = ${n(e.alpha)} \\cdot ` +
          `${f(e.previous)} + (${productSum(e.terms)}) = ${n(e.value)}`,
      },
      highlight: ({ row: r, col: c }) => ({ 0: cell(r, c), 1: cell(r, 0), 2: row(r), 3: col(c) }),
    }),
    operands: { O: 'U', '\u03b1': nonNegative('\u03b1'), P: nonNegative('E'), V_j: 'V_J' },
    numpy: ofTile('tile_out'),
  }),
  entry({
    ...tileEntry('block_out', 'Query block done: U / Z', {
      result: 'O_I',
      figure: () => [{ operand: 0 }, { glyph: '\u00f7' }, { operand: 1 }],
      formula: () => 'O_I = U \\,/\\, Z',
      explanation: ({ stage, config: c }) =>
        `Every key block ${rowsText('query', stage.tile.queryRows)} may see has been read${
          skippedAny(stage, c) ? ' (the blocks the mask hides entirely were skipped, never read)' : ''
        }: one division by Z per row turns the running sums into the attention output of this block.`,
      explain: {
        symbolic: (i, j) => `O_{${i},${j}} = U_{${i},${j}} / Z_{${i}}`,
        filled: (e, { i: r, j: c }) => `O_{${r},${c}} = ${n(e.input)} \\div ${n(e.divisor)} = ${n(e.value)}`,
      },
      highlight: ({ row: r, col: c }) => ({ 0: cell(r, c), 1: cell(r, 0) }),
    }),
    operands: { O: 'U', l: nonNegative('Z') },
    numpy: ofTile('block_out'),
  }),
];
