// The chapters' counts beside the numbers they are about, every count the engine's (config's
// headSplit, causalPrefix, trainingPasses, memoryTraffic): h heads against one head as wide as
// all of them; why a causal mask trains every position in one pass; what FlashAttention saves
// in slow memory. Text and tables only: views/cost-panels.js draws them.

import { formatCount, formatSci } from './format.js';

const PARTS = [
  ['projections', 'Q, K, V projections'],
  ['scores', 'scores Q\u00b7K\u1d40'],
  ['values', 'weights \u00b7 V'],
  ['output', 'output W_O'],
];

// Multiply-adds of this layer's h heads against one head of h·d_k, part by part.
function headSplit(config) {
  const { heads, single } = config.headSplit;
  const h = config.numHeads;
  if (h === 1) return null; // one head: nothing split
  return {
    table: {
      headers: ['multiply-adds', `${h} heads of d_k = ${config.dK}`, `1 head of d_k = ${h * config.dK}`],
      rows: [
        ...PARTS.filter(([key]) => heads[key] > 0).map(([key, label]) => [
          label,
          formatCount(heads[key]),
          formatCount(single[key]),
        ]),
        ['total', formatCount(heads.total), formatCount(single.total)],
        ['softmax exponentials', formatCount(heads.exps), formatCount(single.exps)],
      ],
    },
    note:
      `Splitting d_model into ${h} heads costs no extra multiply-adds: each head works in ${config.dK} ` +
      `of the ${h * config.dK} dimensions, so the products shrink by ${h} as their number grows by ` +
      `${h}. Only the softmax runs ${h} times (one ${config.seqLen} \u00d7 ${config.kvLen} matrix a head), ` +
      'a small share of the work.',
  };
}

// Row t of one causal pass against a pass over tokens 0 … t alone, and the passes it saves.
function causalTraining(config, tokens) {
  const labels = tokens.T ?? [];
  const p = config.trainingPasses;
  return {
    rows: {
      headers: ['row t', 'max |row t \u2212 last row of a pass over 0 \u2026 t|'],
      rows: config.causalPrefix.map((d, t) => [`${t}${labels[t] ? ` ${labels[t]}` : ''}`, formatSci(d)]),
    },
    note:
      'Under the causal mask row t never reads a later token, so it equals the last row of a pass over ' +
      'tokens 0 \u2026 t alone (the differences above, computed by the engine, are rounding or exactly 0). ' +
      'One pass therefore gives a prediction at every position. Without the mask each position would need ' +
      `its own pass over its prefix: ${formatCount(config.seqLen)} passes for these ${config.seqLen} tokens ` +
      `against 1, ${formatCount(p.withoutMask)} against ${formatCount(p.withMask)} for a batch of ${p.batch}, ` +
      `and for a batch of ${p.batch} sequences of ${formatCount(p.exampleSeqLen)} tokens ` +
      `${formatCount(p.exampleWithoutMask)} against ${formatCount(p.exampleWithMask)}.`,
  };
}

/** The attention chapter's panel: heads against one wide head, and under a causal mask why it trains in one pass. */
export function costsPanel(config, tokens) {
  const split = config.headSplit ? headSplit(config) : null;
  const causal = config.causalPrefix ? causalTraining(config, tokens) : null;
  if (!split && !causal) return null;
  const parts = [split && 'h heads against one', causal && 'why the causal mask trains in one pass'];
  return { kind: 'costs', summary: `What it costs: ${parts.filter(Boolean).join('; ')}`, split, causal };
}

/** FlashAttention's slow-memory traffic: one head's values read and written, standard against tiled. */
export function trafficNote(config) {
  const m = config.memoryTraffic;
  if (!m) return null;
  return (
    `Slow memory (the GPU\u2019s HBM), in values moved for this head: standard attention writes S and A out and ` +
    `reads them back, ${formatCount(m.standard)} here (Θ(N\u00b7d + N\u00b2)); the tiles read Q once, K_j and ` +
    `V_j for each tile kept and write O once, ${formatCount(m.tiled)}. At ` +
    `${formatCount(m.exampleSeqLen)} tokens with d = ${m.exampleDk} in tiles of ${m.exampleBlock} (an on-chip ` +
    `memory of M = ${formatCount(m.exampleMemory)} values, blocks of M / 4d): ${formatCount(m.exampleStandard)} ` +
    `against ${formatCount(m.exampleTiled)}, Θ(N\u00b2\u00b7d\u00b2/M) (Dao et al. 2022, Theorem 2). Fewer ` +
    'slow-memory trips, not fewer multiply-adds, is why it is faster.'
  );
}
