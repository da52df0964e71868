// Head pruning's panel: a switch per head, how much pruning the chosen heads changes the output
// (the engine's outputChange), and the engine's "prune each head alone" figures as bars. Pure.

import { formatPercent } from './format.js';

/** → panel data, or null where the stage has nothing to prune (or the kind no W_O). */
export function pruningView(config, entry, pruneEach) {
  if (!entry.view?.pruning || !pruneEach) return null;
  const pruned = new Set(config.prunedHeads ?? []);
  const largest = Math.max(...pruneEach.map((p) => p.change));
  return {
    heads: Array.from({ length: config.numHeads }, (_, head) => ({ head, pruned: pruned.has(head) })),
    change: config.outputChange === undefined ? null : formatPercent(config.outputChange),
    pruned: [...pruned],
    bars: pruneEach.map((p) => ({
      head: p.head,
      text: formatPercent(p.change),
      share: largest > 0 ? p.change / largest : 0,
    })),
  };
}
