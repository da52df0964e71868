// FlashAttention's tile stages: per tile the logits, the running max m, the running sum l and
// the running output; per query block its output, O / l.
// Entry fields: see ../stage-table.js.

import { rowsText } from '../format.js';
import { nextTileQuestion } from '../quiz-questions.js';
import { entry } from './entry.js';
import { cell, col, row } from './highlight.js';
import { nonNegative } from './captions.js';
import { ofTile } from './numpy-paths.js';
import { f, n, productSum, shortList } from './tex.js';

const where = ({ stage }) =>
  `${rowsText('query', stage.tile.queryRows)} against ${rowsText('key', stage.tile.keyRows)}`;

// Where the speed-up comes from (Dao et al. 2022): memory traffic, not arithmetic.
const IO_NOTE =
  'The speed comes from memory traffic, not from less arithmetic: each block of Q, K and V is read from the ' +
  'GPU\u2019s large, slow HBM into its small, fast on-chip SRAM, used there, and the T \u00d7 T scores are ' +
  'never written out and read back (IO-aware tiling).';

// What the mask hides from a query in a tile, in TeX and in words: later keys, and with a window
// of W those W or more back.
const hidden = (c) =>
  c.window !== null
    ? `\\text{key} > \\text{query or key} \\le \\text{query} - ${c.window}`
    : '\\text{key} > \\text{query}';
const hiddenText = (c) =>
  c.window !== null ? `after their query or ${c.window} or more before it` : 'after their query';

function tileEntry(id, title, fields) {
  return { id, group: 'tile', title, ...fields };
}

export const TILE_STAGES = [
  entry({
    ...tileEntry('tile_scores', 'Tile scores S', {
      result: 'S',
      figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1, transpose: true, label: 'K_j\u1d40' }],
      formula: (c) =>
        `S_{ij} = \\frac{Q_i K_j^{\\top}}${c.scaleScores ? '{\\sqrt{d_k}}' : '{1}'}${
          c.masked ? `, \\quad S_{rc} = -\\infty \\text{ where } ${hidden(c)}` : ''
        }`,
      explanation: (ctx) =>
        `One tile: ${where(ctx)}. Only this B_r \u00d7 B_c block of scores ` +
        `exists at any time; the full T \u00d7 T matrix is never formed. ${IO_NOTE}${
          ctx.config.masked ? ` Keys ${hiddenText(ctx.config)} get \u2212\u221e, as the mask would give them.` : ''
        }`,
      explain: {
        symbolic: (i, j, c) =>
          `S_{${i},${j}} = \\frac{q_{${i}} \\cdot k_{${j}}}{${c.scaleScores ? '\\sqrt{d_k}' : '1'}}`,
        filled: (e, { i: r, j: c }) =>
          e.masked
            ? `\\text{hidden by the mask} \\Rightarrow S_{${r},${c}} = -\\infty`
            : `S_{${r},${c}} = (${productSum(e.terms)}) \\div ${n(e.divisor)} = ${n(e.value)}`,
      },
      highlight: ({ row: r, col: c }) => ({ 0: row(r), 1: col(c) }),
    }),
    operands: { Q_i: 'Q_i', K_j: 'K_j' },
    quiz: [nextTileQuestion],
    notation: ['S_ij', 'Q_i \u00b7 K_j\u1d40 / \u221ad_k', 'one tile: query block i against key block j'],
    numpy: ofTile('tile_scores'),
  }),
  entry({
    ...tileEntry('tile_max', 'Running max m', {
      result: 'm',
      figure: () => [{ glyph: 'max(' }, { operand: 0 }, { glyph: ', rowmax' }, { operand: 1 }, { glyph: ')' }],
      formula: () => 'm^{\\text{new}} = \\max\\left(m, \\max_c S_{rc}\\right)',
      explanation: (ctx) =>
        `The largest score each query row has seen so far, now including this tile (${where(ctx)}). ` +
        `The softmax subtracts it before exponentiating, so nothing overflows; when it grows, what ` +
        `was summed under the old max is rescaled by \u03b1 = e^(m \u2212 m_new).`,
      explain: {
        symbolic: (i) => `m_{${i}}^{\\text{new}} = \\max\\left(m_{${i}}, \\max_{j} S_{${i},j}\\right)`,
        filled: (e, { i: r }) =>
          `m_{${r}}^{\\text{new}} = \\max\\left(${n(e.previous)}, ${n(e.rowMax)}\\right) = ${n(e.value)}`,
      },
      highlight: ({ row: r }) => ({ 0: cell(r, 0), 1: row(r) }),
    }),
    operands: { m: 'm' },
    notation: ['m', 'max(m, rowmax S_ij)', 'each row\u2019s running maximum'],
    numpy: ofTile('tile_max'),
  }),
  entry({
    ...tileEntry('tile_sum', 'Running sum l', {
      result: 'l',
      figure: () => [{ operand: 1 }, { glyph: '\u00b7' }, { operand: 0 }, { glyph: '+ rowsum' }, { operand: 2 }],
      formula: () =>
        'l^{\\text{new}} = \\alpha\\, l + \\sum_c P_{rc}, \\quad \\alpha ' +
        '= e^{m - m^{\\text{new}}}, \\quad P = e^{S - m^{\\text{new}}}',
      explanation: () =>
        'The softmax\u2019s denominator, built up tile by tile: the old sum ' +
        'rescaled by \u03b1 (so that it, too, is measured against the new max) plus ' +
        'this tile\u2019s exponentials P. At the first tile l and \u03b1 are 0.',
      explain: {
        symbolic: (i) => `l_{${i}}^{\\text{new}} = \\alpha_{${i}}\\, l_{${i}} + \\sum_c P_{${i},c}`,
        filled: (e, { i: r }) =>
          `l_{${r}}^{\\text{new}} = ${n(e.alpha)} \\cdot ${f(e.previous)} + ` +
          `(${shortList(Array.from(e.row, (x) => n(x)))}) = ${n(e.value)}`,
      },
      highlight: ({ row: r }) => ({ 0: cell(r, 0), 1: cell(r, 0), 2: row(r) }),
    }),
    operands: { l: nonNegative('l'), '\u03b1': nonNegative('\u03b1'), P: nonNegative('P') },
    nonNegative: true,
    notation: [
      'l',
      '\u03b1\u00b7l + rowsum P',
      'each row\u2019s running sum; P = exp(S_ij \u2212 m), \u03b1 = exp(m_old \u2212 m)',
    ],
    numpy: ofTile('tile_sum'),
  }),
  entry({
    ...tileEntry('tile_out', 'Running output O', {
      result: 'O',
      figure: () => [
        { operand: 1 },
        { glyph: '\u00b7' },
        { operand: 0 },
        { glyph: '+' },
        { operand: 2 },
        { glyph: '@' },
        { operand: 3 },
      ],
      formula: () => '\\tilde O^{\\text{new}} = \\alpha\\, \\tilde O + P\\, V_j',
      explanation: () =>
        'The weighted values, not yet divided by l: the old rows rescaled by \u03b1, plus this tile\u2019s P ' +
        'times its block of values V_j. Dividing once at the end gives exactly the softmax-weighted average. That ' +
        'deferred division is FlashAttention-2\u2019s order; FlashAttention-1 rescaled O by diag(l)\u207b\u00b9 at ' +
        'every step and wrote it back to HBM.',
      explain: {
        symbolic: (i, j) =>
          `\\tilde O_{${i},${j}}^{\\text{new}} = \\alpha_{${i}}\\, \\tilde O_{${i},${j}} + ` +
          `\\sum_c P_{${i},c} V_{c,${j}}`,
        filled: (e, { i: r, j: c }) =>
          `\\tilde O_{${r},${c}}^{\\text{new}} = ${n(e.alpha)} \\cdot ` +
          `${f(e.previous)} + (${productSum(e.terms)}) = ${n(e.value)}`,
      },
      highlight: ({ row: r, col: c }) => ({ 0: cell(r, c), 1: cell(r, 0), 2: row(r), 3: col(c) }),
    }),
    operands: { O: 'O', '\u03b1': nonNegative('\u03b1'), P: nonNegative('P'), V_j: 'V_j' },
    notation: ['O\u0303', '\u03b1\u00b7O\u0303 + P \u00b7 V_j', 'the running output, not yet divided by l'],
    numpy: ofTile('tile_out'),
  }),
  entry({
    ...tileEntry('block_out', 'Query block done: O / l', {
      result: 'O / l',
      figure: () => [{ operand: 0 }, { glyph: '\u00f7' }, { operand: 1 }],
      formula: () => 'O_i = \\tilde O \\,/\\, l',
      explanation: ({ stage, config: c }) =>
        `Every key block ${rowsText('query', stage.tile.queryRows)} may see has been read${
          c.masked ? ' (the blocks the mask hides entirely were skipped, never read)' : ''
        }: one division by l per row turns the running sums into the attention output of this block.`,
      explain: {
        symbolic: (i, j) => `O_{${i},${j}} = \\tilde O_{${i},${j}} / l_{${i}}`,
        filled: (e, { i: r, j: c }) => `O_{${r},${c}} = ${n(e.input)} \\div ${n(e.divisor)} = ${n(e.value)}`,
      },
      highlight: ({ row: r, col: c }) => ({ 0: cell(r, c), 1: cell(r, 0) }),
    }),
    operands: { O: 'O', l: nonNegative('l') },
    notation: ['O', 'O\u0303 / l', 'a query block\u2019s output'],
    numpy: ofTile('block_out'),
  }),
];
