// TeX pieces shared by the stage entries' formulas and their explain-a-number lines. Numbers are
// only formatted here (three decimals, as the lesson prints them), never computed.

import { texNumber } from '../format.js';

const MAX_TERMS = 8; // longer sums show their first five and last two terms around \cdots

export const n = (v) => texNumber(v);
export const f = (v) => texNumber(v, { paren: true });

/** a, b, …, z joined by `joiner`, shortened around \cdots when long. */
export function shortList(texts, joiner = ' + ') {
  if (texts.length <= MAX_TERMS) return texts.join(joiner);
  return [...texts.slice(0, 5), '\\cdots', ...texts.slice(-2)].join(joiner);
}

/** Σ a·b written out: (0.1)\cdot(−0.2) + … */
export function productSum(terms) {
  return shortList(terms.map((t) => `${f(t.a)}\\cdot${f(t.b)}`));
}

/** lead = a·b + … = sum */
export function filledDot(e, lead) {
  return `${lead} = ${productSum(e.terms)} = ${n(e.sum)}`;
}

const multi = (c) => c.numHeads > 1;

/** A per-head matrix's name: Q_n (head n) with several heads, Q with one. */
export const perHead = (c, name) => (multi(c) ? `${name}_n` : name);

/** A projection's weight: W^Q_n with several heads, W^Q with one. */
export const weightOf = (c, letter) => (multi(c) ? `W^{${letter}}_n` : `W^{${letter}}`);

/** K and V are per K/V head g when heads share them. */
export const grouped = (c) => c.numKvHeads < c.numHeads;

/** The symbol of the logits the softmax reads: L when a mask was added (the engine's config.masked), else S̃,
 * with ALiBi's bias B added. */
export const logitsSymbol = (c) => (c.masked ? 'L' : c.alibi ? '(\\tilde S + B)' : '\\tilde S');

/** What the mask is added to: S̃, or S̃ + B under ALiBi (the masked stage's operand `biased`). */
export const maskedInput = (c) => (c.alibi ? '\\tilde S + B' : '\\tilde S');

/** The input matrix of a projection: X, or X_q / X_kv in cross-attention. */
export function sourceOf(c, letter) {
  if (c.kind !== 'cross') return c.positionalEncoding ? '(X + PE)' : 'X';
  return letter === 'Q' ? 'X_q' : 'X_{kv}';
}
