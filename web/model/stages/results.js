// After the last decode step or query block: the outputs stacked, beside one ordinary pass of
// the same sizes (causal for decoding) to compare. Entry fields: see ../stage-table.js.

import { formatSci } from '../format.js';
import { entry } from './entry.js';
import { named } from './numpy-paths.js';
import { biasAt, maskRulesAt, scaledAt, turnedAt } from './terms.js';

// The engine divides the largest |tiled − ordinary| by max(1, max |ordinary|): an absolute
// difference while every value is within ±1, a relative one otherwise.
function differenceKind(stage) {
  const big = Array.from(stage.values).some((v) => Math.abs(v) > 1);
  return big ? 'relative to its largest |value|, which exceeds 1' : 'absolute: every |value| here is at most 1';
}

// softmax(Q Kᵀ / √d_k + B + M) V, as the engine's terms say the ordinary pass computed it: Q̂ and
// K̂ under RoPE, ÷ 1 in the ablation, B under ALiBi, M under a mask.
function ordinaryTex(stage) {
  const accent = turnedAt(stage) ? '\\hat' : stage.terms.includes('qk-norm') ? '\\check' : null;
  const [q, k] = accent ? [`${accent}{Q}`, `${accent}{K}`] : ['Q', 'K'];
  const added = `${biasAt(stage) ? ' + B' : ''}${maskRulesAt(stage).length ? ' + M' : ''}`;
  const divisor = scaledAt(stage) ? '\\sqrt{d_k}' : '1';
  const logits = `\\frac{${q} ${k}^{\\top}}{${divisor}}`;
  // The engine's terms: the logits soft-capped at κ; a sink ζ in each head's softmax.
  const capped = stage.terms.includes('softcap') ? `\\kappa \\tanh\\!\\left(${logits} / \\kappa\\right)` : logits;
  const softmax = stage.terms.includes('sinks') ? '\\operatorname{softmax}_{\\zeta}' : '\\operatorname{softmax}';
  return `${softmax}\\!\\left(${capped}${added}\\right) V`;
}

export const RESULT_STAGES = [
  entry({
    id: 'stacked',
    group: 'result',
    title: (c) => (c.kind === 'flash' ? 'The blocks\u2019 outputs, stacked' : 'Every step\u2019s output, stacked'),
    result: 'stacked',
    figure: () => [],
    formula: (c) =>
      c.kind === 'flash'
        ? 'O = \\begin{bmatrix} O_0 \\\\ \\vdots \\end{bmatrix}'
        : 'O = \\begin{bmatrix} o_0 \\\\ \\vdots \\\\ o_{T-1} \\end{bmatrix}',
    explanation: ({ config: c }) =>
      c.kind === 'flash'
        ? `Each query block\u2019s rows, one below the other (the last block may be ` +
          `shorter than B_r). Next: ordinary attention of the same Q, K and V, to compare.`
        : 'The T rows the decoder produced, one per step, one below the other. ' +
          'Next: the same sizes run as one causal forward pass, to compare.',
    explain: null,
    highlight: null,
    numpy: named({ flash: 'output', 'kv-cache': 'np.vstack(outputs)' }),
  }),
  entry({
    id: 'causal_reference',
    group: 'result',
    title: 'One causal forward pass',
    result: 'causal',
    figure: () => [],
    terms: ['scale', 'causal', 'window', 'sink-tokens', 'one-sided', 'rope', 'qk-norm', 'softcap', 'sinks'],
    formula: (c, stage) => `${ordinaryTex(stage)} \\ldots`,
    explanation: ({ config: c, stage }) =>
      `The same weights and tokens as one ordinary causal pass (${
        maskRulesAt(stage).includes('sink-tokens')
          ? `the causal mask with a window of W = ${c.window} that keeps the first ${c.sinkTokens} tokens`
          : maskRulesAt(stage).includes('window')
            ? `the causal mask with a window of W = ${c.window}`
            : 'the causal mask'
      }, all rows at once). Its row t is decode step t\u2019s output: the largest difference over all ` +
      `${c.seqLen} rows is ${formatSci(c.maxDifference)} (float64). This is why one masked forward ` +
      `pass can train every position at once, while generation runs one step at a time.`,
    explain: null,
    highlight: null,
    numpy: named({ 'kv-cache': 'causal_reference' }),
  }),
  entry({
    id: 'reference',
    group: 'result',
    title: 'Ordinary attention, to compare',
    result: 'reference',
    figure: () => [],
    terms: ['scale', 'causal', 'window'],
    formula: (c, stage) => ordinaryTex(stage),
    explanation: ({ config: c, stage }) =>
      `The same Q, K and V through ordinary attention, the whole T \u00d7 T matrix at once${
        maskRulesAt(stage).length ? ', with the same mask M' : ''
      }. The tiled result differs from it by at most ${formatSci(c.maxDifference)} (${differenceKind(stage)}): ` +
      'rounding, not approximation. FlashAttention changes the order of the arithmetic and the memory it needs, ' +
      'not the math.',
    explain: null,
    highlight: null,
    numpy: named({ flash: 'reference' }),
  }),
];
