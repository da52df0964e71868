// Which colour scale a matrix is drawn on, and why; the legend says both. A learner compares
// colours across stages, so a scale must mean the same thing wherever the quantity appears:
//   - attention weights, a sink's share and next-token probabilities on the fixed range 0 … 1: a pale row is a
//     spread-out row, whatever the largest weight happens to be;
//   - the logits of one head (S, S̃, S̄, S̃ + B, L) on the scale of the largest of them, so that ÷√d_k
//     shows as paler colour; RoPE's Q and Q̂ (K and K̂; under QK-norm Q̌ and Q̂), and dS̃ and dS, likewise;
//   - every other matrix on its own range: centred on 0 to ± its largest |value| (from 0 when it
//     cannot be negative);
//   - the mask M is no scale at all: 0 where a key is seen, −∞ where it is hidden.
// Pure; the numbers are the trace's, only compared.

import { formatCell } from './format.js';
import { rangeOf } from './palette.js';

const UNIT = ['weights', 'probabilities', 'sink'];
// Operands named after the matrix, not its stage.
const STAGE_OF = { Q: 'q', K: 'k' };

// Stages that hold one quantity before and after an operation: each stage id and its symbol.
const LOGITS = { scores: 'S', scaled: 'S\u0303', capped: 'S\u0304', biased: 'S\u0303 + B', masked: 'L' };
const GRADIENTS = { d_scaled: 'dS\u0303', d_scores: 'dS' };
const FAMILIES = [LOGITS, { q: 'Q', q_rot: 'Q\u0302' }, { k: 'K', k_new: 'k_t', k_rot: 'K\u0302' }, GRADIENTS];
// Under QK-norm RoPE turns Q\u030c and K\u030c, not Q and K: the normalised rows and their turns share a
// scale, and Q and K keep their own (far larger, the norm's point).
const NORMED_FAMILIES = [
  LOGITS,
  { q_norm: 'Q\u030c', q_rot: 'Q\u0302' },
  { k_norm: 'K\u030c', k_rot: 'K\u0302' },
  GRADIENTS,
];
const familyOf = (id, trace) => (trace?.config.qkNorm ? NORMED_FAMILIES : FAMILIES).find((f) => id in f) ?? null;

// "a", "a and b", "a, b and c".
const joined = (names) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

// A family's stages of one head and step in this trace: the largest finite |value| over them and
// their symbols, per trace.
const familyRanges = new WeakMap(); // trace → Map(key → { range, names })
function familyRange(trace, family, head, step) {
  if (!familyRanges.has(trace)) familyRanges.set(trace, new Map());
  const made = familyRanges.get(trace);
  const key = `${Object.keys(family)}|${head}|${step}`;
  if (!made.has(key)) {
    const members = trace.stages.filter((s) => s.id in family && s.head === head && s.step === step);
    made.set(key, {
      range: Math.max(0, ...members.map((s) => rangeOf(s.values))),
      names: joined([...new Set(members.map((s) => family[s.id]))]),
    });
  }
  return made.get(key);
}

const isMask = (values) => values.length > 0 && values.every((v) => v === 0 || v === -Infinity);

/**
 * The scale of a matrix named `id` (a stage id, or an operand named after one) of this head and
 * step: { kind: 'unit' | 'shared' | 'own' | 'mask', range, sequential, note, why }: note is the
 * legend's word for it (short: a legend may not widen its heatmap), why the sentence behind it.
 */
export function scaleOf({ id: name, values, head = null, step = null, trace = null, nonNegative = false }) {
  const id = STAGE_OF[name] ?? name;
  if (id === 'M' && isMask(values))
    return {
      kind: 'mask',
      range: 0,
      sequential: false,
      note: 'seen, hidden',
      why: '0 where a key is seen, \u2212\u221e where it is hidden',
    };
  if (UNIT.includes(id))
    return { kind: 'unit', range: 1, sequential: true, note: 'fixed', why: 'fixed 0 \u2026 1: each row shares out 1' };
  const family = familyOf(id, trace);
  if (family && trace) {
    const { range, names } = familyRange(trace, family, head, step);
    if (range > 0)
      return {
        kind: 'shared',
        range,
        sequential: false,
        note: 'shared',
        why: `centred on 0, shared by ${names}: \u00b1${formatCell(range)}`,
      };
  }
  const range = rangeOf(values);
  return nonNegative
    ? { kind: 'own', range, sequential: true, note: 'own', why: 'from 0 to its own largest value' }
    : { kind: 'own', range, sequential: false, note: 'own', why: 'centred on 0, to its own largest |value|' };
}
