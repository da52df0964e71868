// Multi-head latent attention's own stages before the scores (DeepSeek-V2, §2.1): the latent c_kv
// each token caches, the RoPE key part every head shares, a head's RoPE query part and its query
// taken down into the latent (its output in the latent is head.js's latent_head, beside head). The
// stages MLA shares with every kind (q, k, v, scores, scaled, head) word themselves for it in their
// own entries.
// Entry fields: see ../stage-table.js.

import { ROPE_TABLES } from './captions.js';
import { entry } from './entry.js';
import { dot, row } from './highlight.js';
import { ofHead, ofLayer } from './numpy-paths.js';
import { filledDot } from './tex.js';

// The cache per token and layer from the engine's config.kv.perToken: MLA's, and multi-head
// attention's at the same sizes.
function cacheText(c) {
  const { mla, mha } = c.kv.perToken;
  return (
    `Per token and layer the cache holds d_c + d_r = ${c.dLatent} + ${c.dRope} = ${mla} numbers, where ` +
    `multi-head attention with the same heads would hold h\u00b7(d_k + d_v) = ${mha}`
  );
}

// RoPE on the decoupled part: X's projection turned pair by pair, as q_rot and k_rot are.
function ropePart(id, letter, what) {
  const weight = `W_${letter}R`;
  return entry({
    id,
    group: letter === 'K' ? 'inputs' : 'head',
    title: letter === 'K' ? 'Shared key part k_rope (RoPE)' : 'Query part q_rope (RoPE)',
    result: `${letter.toLowerCase()}_rope`,
    figure: () => [{ glyph: 'RoPE(' }, { operand: 6 }, { glyph: '@' }, { operand: 7 }, { glyph: ')' }],
    formula: (c) =>
      `${letter}^{R}${letter === 'Q' && c.numHeads > 1 ? '_n' : ''} = \\operatorname{RoPE}\\!\\left(X\\,` +
      `W^{${letter}R}${letter === 'Q' && c.numHeads > 1 ? '_n' : ''}\\right)`,
    explanation: ({ config: c }) => what(c),
    explain: {
      symbolic: (i, j) =>
        `${letter}^{R}_{${i},${j}} = (X W^{${letter}R})_{${i},a}\\,\\rho_1 + (X W^{${letter}R})_{${i},b}\\,\\rho_2`,
      filled: (e, { i: r, j: c }) => filledDot(e, `${letter}^{R}_{${r},${c}}`),
    },
    highlight: ({ row: r }) => ({ 0: row(r), 3: row(r), 4: row(r) }),
    operands: {
      [`X\u00b7${weight}`]: `X\u00b7${weight}`,
      ...ROPE_TABLES,
      X: 'X',
      [weight]: weight,
    },
    numpy: letter === 'K' ? ofLayer(id) : ofHead(id),
  });
}

export const LATENT_STAGES = [
  entry({
    id: 'c_kv',
    group: 'inputs',
    title: 'Latent c_kv (what each token caches)',
    result: 'c_kv',
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }],
    formula: () => 'c^{KV} = X\\,W^{DKV}',
    explanation: ({ config: c }) =>
      `Every token is taken down to one latent row of d_c = ${c.dLatent} numbers, shared by all ${c.numHeads} ` +
      'heads: each head\u2019s keys and values are projected back up from it (W_UK, W_UV), so a decoder caches ' +
      `this row instead of every head\u2019s k and v. ${cacheText(c)}. DeepSeek-V2 and V3 keep d_c = 512 ` +
      'beside 128 heads of d_h = 128.',
    explain: {
      symbolic: (i, j) => `c^{KV}_{${i},${j}} = \\sum_a X_{${i},a}\\,W^{DKV}_{a,${j}}`,
      filled: (e, { i: r, j: c }) => filledDot(e, `c^{KV}_{${r},${c}}`),
    },
    highlight: dot,
    operands: { X: 'X', W_DKV: 'W_DKV' },
    numpy: ofLayer('c_kv'),
  }),
  ropePart(
    'k_rope',
    'K',
    (c) =>
      `RoPE cannot act on the keys made from the latent: a rotation between W_UK and the query would ` +
      'depend on the position, and W_UK could no longer be folded into the query (absorbed). So position ' +
      `travels in a separate, small key part: X\u00b7W_KR, d_r = ${c.dRope} columns turned by RoPE, one for all ` +
      'heads, cached beside c_kv. Each head adds its query part\u2019s product with it to its scores.',
  ),
  ropePart(
    'q_rope',
    'Q',
    (c) =>
      `This head\u2019s own query part for position: X\u00b7W_QR, d_r = ${c.dRope} columns turned by RoPE. ` +
      'It meets the shared key part k_rope, so the scores see how far apart two tokens are.',
  ),
  entry({
    id: 'q_absorbed',
    group: 'head',
    title: 'Query taken into the latent',
    result: 'q_absorbed',
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1, transpose: true, label: 'W_UK\u1d40' }],
    formula: (c) => (c.numHeads > 1 ? 'Q^{C}_n = Q_n\\,(W^{UK}_n)^{\\top}' : 'Q^{C} = Q\\,(W^{UK})^{\\top}'),
    explanation: ({ config: c }) =>
      'Since k = c_kv\u00b7W_UK, the product q\u00b7k\u1d40 is (q\u00b7W_UK\u1d40)\u00b7c_kv\u1d40: take the query ' +
      `down into the latent once (d_c = ${c.dLatent} columns) and score it against the cached latents ` +
      'directly, without ever forming K. This is the absorbed form a decoder runs; the scores stage shows ' +
      'both forms give the same matrix.',
    explain: {
      symbolic: (i, j) => `Q^{C}_{${i},${j}} = \\sum_a Q_{${i},a}\\,W^{UK}_{${j},a}`,
      filled: (e, { i: r, j: c }) => filledDot(e, `Q^{C}_{${r},${c}}`),
    },
    highlight: ({ row: r, col: c }) => ({ 0: row(r), 1: row(c) }),
    operands: { Q: 'Q', W_UK: 'W_UK' },
    numpy: ofHead('q_absorbed'),
  }),
];
