// The Notation panel under each stage's formula: closed at first, the same table on every stage
// of a trace (model/notation.js).

import { el, redrawingView } from './dom.js';
import { table } from './panel-table.js';

export function createNotation(host) {
  const root = el('details', 'notation');
  return redrawingView(host, root, (p) => {
    root.append(
      el('summary', null, 'Notation: every symbol, its meaning and its shape'),
      table(p.table, 'compare-table notation-table'),
      table(p.indices, 'compare-table notation-indices'),
      el('p', 'panel-note notation-base', p.note),
    );
  });
}
