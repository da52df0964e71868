// TeX pieces shared by the stage entries' formulas and their explain-a-number lines. Numbers are
// only formatted here (three decimals), never computed.

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

// The logits a pass read, named after the stage it read them from (its first operand): L after
// the mask, S̃ + B after ALiBi's bias, S̄ after the soft cap, else S̃.
const READ = { masked: 'L', biased: '\\tilde S + B', capped: '\\bar S', scaled: '\\tilde S' };
function logitsRead(stage) {
  const name = stage.operands[0]?.name;
  if (!(name in READ)) throw new Error(`${stage.id}: reads ${name}, not logits`);
  return READ[name];
}

/** What the softmax at this weights stage read, as a symbol to subscript: L, (S̃ + B), S̄ or S̃. */
export const logitsSymbol = (stage) => (logitsRead(stage).includes('+') ? `(${logitsRead(stage)})` : logitsRead(stage));

/** What the mask at this masked stage is added to: S̃, S̃ + B under ALiBi, or S̄ when capped. */
export const maskedInput = (stage) => logitsRead(stage);

// What a projection (or its weight's gradient) read, named after the engine's operand: [TeX, plain].
const SOURCES = {
  X: ['X', 'X'],
  x_pos: ['(X + PE)', '(X + PE)'],
  X_q: ['X_q', 'X_q'],
  X_kv: ['X_{kv}', 'X_kv'],
  c_kv: ['c^{KV}', 'c_kv'], // MLA's keys and values come up from its latent
};
function sourceNames(stage) {
  const name = stage.operands[0]?.name;
  if (!(name in SOURCES)) throw new Error(`${stage.id}: reads ${name}, no projection's input`);
  return SOURCES[name];
}

/** The input matrix of a projection stage, or of its weight's gradient: X, (X + PE) where the engine
 * read X + PE (its operand x_pos), or X_q / X_kv in cross-attention. */
export const sourceOf = (stage) => sourceNames(stage)[0];

/** The same input as a figure label (plain text). */
export const sourceLabel = (stage) => sourceNames(stage)[1];
