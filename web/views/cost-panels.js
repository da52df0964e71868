// The attention chapter's costs panel: h heads against one wide head, and the causal mask's
// one-pass training (model/cost-panels.js builds the data; every number is the engine's).

import { el } from './dom.js';
import { scrolling, table } from './panel-table.js';

// Closed at first: the chapter opens on its stages, the counts a click away.
export function costs(root, p) {
  const box = el('details', 'costs');
  box.append(el('summary', 'panel-label', p.summary));
  if (p.split)
    box.append(
      el('p', 'panel-label', 'The same work for h heads as for one:'),
      scrolling(table(p.split.table, 'compare-table head-split'), 'Multiply-adds of h heads and of one head'),
      el('p', 'panel-note', p.split.note),
    );
  if (p.causal)
    box.append(
      el('p', 'panel-label', 'Why the causal mask trains every position in one pass:'),
      scrolling(table(p.causal.rows, 'compare-table causal-prefix'), 'Row t against a pass over tokens 0 to t'),
      el('p', 'panel-note causal-passes', p.causal.note),
    );
  root.append(box);
}
