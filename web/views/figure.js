// A row of heatmaps joined by glyphs (@, ÷ √4, +, =, …), optionally followed by an aside (e.g.
// the arc view) drawn next to the last matrix. update({ items: [{ kind: 'matrix', data, result? }
// | { kind: 'glyph', text } | { kind: 'aside', view, data }] }). A glyph stays on one line with
// the matrix after it. The slots are kept while the same kinds of item come back in the same
// order (a highlight, a new trace, the next stage of the same form): glyphs are renamed and each
// heatmap refills its cells when its size allows (heatmap.js), so a step rebuilds no table that
// it can refill.

import { afterPaint, el } from './dom.js';
import { createHeatmap } from './heatmap.js';

const itemKey = (i) =>
  i.kind === 'glyph' ? 'g' : i.kind === 'aside' ? `a:${i.view}` : `m${i.result ? ':result' : ''}`;

// Wraps root's last child and slot in one group, so they move to a new line together.
function groupWithLast(root, slot) {
  const group = el('div', 'figure-group');
  const last = root.lastElementChild;
  if (last) root.replaceChild(group, last);
  else root.append(group);
  if (last) group.append(last);
  group.append(slot);
}

// Lays out items in root; returns one view per matrix or aside, and the glyphs, in order.
function layOut(root, items, { onActivate, asides }) {
  const parts = [];
  const glyphs = [];
  let pending = null; // a glyph waiting for the matrix it joins
  for (const item of items) {
    if (item.kind === 'glyph') {
      if (pending) root.append(pending);
      pending = el('span', 'glyph', item.text);
      glyphs.push(pending);
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
  return { parts, glyphs };
}

export function createFigure(host, { onActivate, asides = {}, className = 'figure' }) {
  const root = el('div', className);
  host.append(root);
  let keys = '';
  let parts = [];
  let glyphs = [];
  return {
    update({ items }) {
      root.hidden = items.length === 0;
      const nextKeys = items.map(itemKey).join('|');
      if (nextKeys !== keys) {
        for (const p of parts) p.destroy();
        root.textContent = '';
        ({ parts, glyphs } = layOut(root, items, { onActivate, asides }));
      }
      keys = nextKeys;
      items
        .filter((i) => i.kind === 'glyph')
        .forEach((item, k) => {
          if (glyphs[k].textContent !== item.text) glyphs[k].textContent = item.text;
        });
      // An aside (the arcs) is drawn after the frame that shows the matrices.
      items
        .filter((i) => i.kind !== 'glyph')
        .forEach((item, k) => {
          const part = parts[k];
          if (item.kind === 'aside') afterPaint(part, () => keys === nextKeys && part.update(item.data));
          else part.update(item.data);
        });
    },
    destroy() {
      for (const p of parts) p.destroy();
      root.remove();
    },
  };
}
