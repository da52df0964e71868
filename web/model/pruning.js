// Head pruning's panel: a switch per head, how much pruning the chosen heads changes the output
// (the engine's outputChange), and the engine's "prune each head alone" figures as bars. Pure.

import { formatPercent } from './format.js';

// What the papers measured, against the often-repeated "50–90 % of a trained BERT's heads".
export const PRUNING_NOTE =
  'It is often said that pruning 50\u201390 % of a trained BERT\u2019s heads costs little; the papers ' +
  'behind it did not find that for BERT. Michel et al. (2019) pruned heads in order of an importance score: ' +
  'about 20 % of a WMT English\u2013French Transformer\u2019s heads and about 40 % of BERT\u2019s ' +
  '(fine-tuned on MNLI) went with no noticeable loss, and more cost more. Removing heads at test ' +
  'time, they could cut most single layers to one head, but encoder\u2013decoder attention was the ' +
  'most sensitive. Voita et al. (2019) removed 38 of the 48 encoder heads (79 %) of an ' +
  'English\u2013Russian translation Transformer for 0.15 BLEU, with gates trained to switch heads ' +
  'off, not in BERT; the specialised heads (positional, syntactic, rare words) were the last to go. ' +
  'Here the weights are random or designed, not trained: the bars show how much of this output ' +
  'each head carries, not what it would cost a model.';

/** → panel data, or null where the stage has nothing to prune (or the kind no W_O). */
export function pruningView(config, entry, pruneEach) {
  if (!entry.view?.pruning || !pruneEach) return null;
  const pruned = new Set(config.prunedHeads ?? []);
  const largest = Math.max(...pruneEach.map((p) => p.change));
  return {
    heads: Array.from({ length: config.numHeads }, (_, head) => ({ head, pruned: pruned.has(head) })),
    change: config.outputChange === undefined ? null : formatPercent(config.outputChange),
    pruned: [...pruned],
    note: PRUNING_NOTE,
    bars: pruneEach.map((p) => ({
      head: p.head,
      text: formatPercent(p.change),
      share: largest > 0 ? p.change / largest : 0,
    })),
  };
}
