// Small multiples: one tiny heatmap (fills only) per head, each a button that picks its head.
// update([{ head, label, rows, cols, fills, current }] | null).

import { el, redrawingView } from './dom.js';

function thumbnail(item) {
  const canvas = el('canvas', 'overview-canvas');
  canvas.width = item.cols;
  canvas.height = item.rows;
  const ctx = canvas.getContext('2d');
  for (let r = 0; r < item.rows; r += 1) {
    for (let c = 0; c < item.cols; c += 1) {
      ctx.fillStyle = item.fills[r * item.cols + c];
      ctx.fillRect(c, r, 1, 1);
    }
  }
  return canvas;
}

export function createHeadOverview(host, { onPick, title = 'All heads' }) {
  const root = el('section', 'head-overview');
  return redrawingView(host, root, (list) => {
    root.append(el('h3', 'overview-title', title));
    const row = el('div', 'overview-row');
    for (const item of list) {
      const b = el('button', `overview-item head-${item.head % 8}`);
      b.type = 'button';
      b.setAttribute('aria-pressed', String(item.current));
      b.setAttribute('aria-label', `${item.label}: show its weights`);
      b.append(thumbnail(item), el('span', 'overview-label', item.label));
      b.addEventListener('click', () => onPick(item.head));
      row.append(b);
    }
    root.append(row);
  });
}
