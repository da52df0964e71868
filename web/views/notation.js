// The Notation panel under each stage's formula: closed at first, the symbols that formula writes,
// each with its meaning and shape (model/notation.js).

import { el, redrawingView } from './dom.js';
import { table } from './panel-table.js';

export function createNotation(host) {
  const root = el('details', 'notation');
  return redrawingView(host, root, (p) => {
    root.append(
      el('summary', null, 'Notation: each symbol of this formula, its meaning and its shape'),
      table(p.table, 'compare-table notation-table'),
      el('p', 'panel-note notation-base', p.note),
    );
  });
}
