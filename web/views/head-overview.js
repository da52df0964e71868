// Small multiples: one tiny heatmap (fills only) per head, each a button that picks its head.
// update([{ head, label, rows, cols, pixels (RGBA, row-major), current }] | null). The buttons
// stay while the heads do; new pixels are put into their canvases.

import { el } from './dom.js';

function paint(canvas, item) {
  if (canvas.pixels === item.pixels) return;
  canvas.pixels = item.pixels;
  // Set only when changed: each set clears the canvas and restyles it (putImageData covers all).
  if (canvas.width !== item.cols) canvas.width = item.cols;
  if (canvas.height !== item.rows) canvas.height = item.rows;
  canvas.getContext('2d').putImageData(new ImageData(item.pixels, item.cols, item.rows), 0, 0);
}

function button(item, onPick) {
  const b = el('button', `overview-item head-${item.head % 8}`);
  b.type = 'button';
  b.setAttribute('aria-label', `${item.label}: show its weights`);
  b.append(el('canvas', 'overview-canvas'), el('span', 'overview-label', item.label));
  b.addEventListener('click', () => onPick(item.head));
  return b;
}

export function createHeadOverview(host, { onPick, title = 'All heads' }) {
  const root = el('section', 'head-overview');
  const row = el('div', 'overview-row');
  root.append(el('h3', 'overview-title', title), row);
  host.append(root);
  let heads = '';
  return {
    update(list) {
      root.hidden = !list;
      if (!list) return;
      const now = list.map((item) => `${item.head}:${item.label}`).join();
      if (now !== heads) row.replaceChildren(...list.map((item) => button(item, onPick)));
      heads = now;
      list.forEach((item, i) => {
        const b = row.children[i];
        b.setAttribute('aria-pressed', String(item.current));
        paint(b.firstChild, item);
      });
    },
    destroy() {
      root.remove();
    },
  };
}
