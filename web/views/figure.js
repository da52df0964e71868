// A row of heatmaps joined by glyphs (@, ÷ √4, +, =, …), optionally followed by an aside (e.g.
// the arc view) drawn next to the last matrix. update({ items: [{ kind: 'matrix', data, result? }
// | { kind: 'glyph', text } | { kind: 'aside', view, data }] }). A glyph stays on one line with
// the matrix after it. Views are kept while the same keys come back in the same order, so a
// highlight update does not rebuild the tables.

import { el } from './dom.js';
import { createHeatmap } from './heatmap.js';

const itemKey = (i) => (i.kind === 'glyph' ? `g:${i.text}` : i.kind === 'aside' ? `a:${i.view}` : i.data.key);

// Wraps root's last child and slot in one group, so they move to a new line together.
function groupWithLast(root, slot) {
  const group = el('div', 'figure-group');
  const last = root.lastElementChild;
  if (last) root.replaceChild(group, last);
  else root.append(group);
  if (last) group.append(last);
  group.append(slot);
}

// Lays out items in root; returns one view per matrix or aside, in order.
function layOut(root, items, { onActivate, asides }) {
  const parts = [];
  let pending = null; // a glyph waiting for the matrix it joins
  for (const item of items) {
    if (item.kind === 'glyph') {
      if (pending) root.append(pending);
      pending = el('span', 'glyph', item.text);
    } else if (item.kind === 'aside') {
      const slot = el('div', 'figure-aside');
      groupWithLast(root, slot);
      parts.push(asides[item.view](slot));
    } else {
      const slot = el('div', `figure-slot${item.result ? ' is-result' : ''}`);
      if (pending) {
        const pair = el('div', 'figure-pair');
        pair.append(pending, slot);
        root.append(pair);
        pending = null;
      } else {
        root.append(slot);
      }
      parts.push(createHeatmap(slot, { onActivate }));
    }
  }
  if (pending) root.append(pending);
  return parts;
}

export function createFigure(host, { onActivate, asides = {}, className = 'figure' }) {
  const root = el('div', className);
  host.append(root);
  let keys = '';
  let parts = [];
  return {
    update({ items }) {
      root.hidden = items.length === 0;
      const nextKeys = items.map(itemKey).join('|');
      if (nextKeys !== keys) {
        for (const p of parts) p.destroy();
        root.textContent = '';
        parts = layOut(root, items, { onActivate, asides });
      }
      keys = nextKeys;
      items.filter((i) => i.kind !== 'glyph').forEach((item, k) => parts[k].update(item.data));
    },
    destroy() {
      for (const p of parts) p.destroy();
      root.remove();
    },
  };
}
