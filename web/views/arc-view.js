// Token-to-token arcs: queries on the left, keys on the right, one line per pair whose opacity
// and width are the strength given (0 … 1). update({ rows, cols, rowLabels, colLabels,
// strengths, focusRow, head } | null). With a focus row, only that row's lines are drawn at full strength.

import { el, redrawingView } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const ROW = 22;
const WIDTH = 230;
const LEFT = 82;
const RIGHT = 148;

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

const short = (s) => (s.length > 10 ? `${s.slice(0, 9)}\u2026` : s);

function label(text, x, y, anchor) {
  const t = svg('text', { x, y, 'text-anchor': anchor, 'dominant-baseline': 'middle', class: 'arc-label' });
  t.textContent = short(text);
  const title = svg('title', {});
  title.textContent = text;
  t.append(title);
  return t;
}

function lines(data) {
  const g = svg('g', { class: 'arc-lines' });
  for (let i = 0; i < data.rows; i += 1) {
    const faded = data.focusRow !== null && data.focusRow !== i;
    for (let j = 0; j < data.cols; j += 1) {
      const w = data.strengths[i * data.cols + j];
      if (!(w > 0)) continue;
      const y1 = (i + 1) * ROW;
      const y2 = (j + 1) * ROW;
      g.append(svg('path', {
        d: `M ${LEFT} ${y1} C ${LEFT + 30} ${y1}, ${RIGHT - 30} ${y2}, ${RIGHT} ${y2}`,
        class: faded ? 'arc is-faded' : 'arc',
        'stroke-opacity': faded ? w * 0.15 : w,
        'stroke-width': 0.5 + 4 * w,
      }));
    }
  }
  return g;
}

export function createArcView(host) {
  const root = el('figure', 'arc-view');
  return redrawingView(host, root, (data) => {
    const height = (Math.max(data.rows, data.cols) + 1) * ROW;
    const box = svg('svg', { viewBox: `0 0 ${WIDTH} ${height}`, width: WIDTH, height, role: 'img', class: 'arc-svg' });
    box.setAttribute('aria-label', `Arcs from each query token (left) to each key token (right); line strength is the attention weight${data.head !== null ? ` of head ${data.head}` : ''}.`);
    box.append(lines(data));
    for (let i = 0; i < data.rows; i += 1) box.append(label(data.rowLabels[i], LEFT - 8, (i + 1) * ROW, 'end'));
    for (let j = 0; j < data.cols; j += 1) box.append(label(data.colLabels[j], RIGHT + 8, (j + 1) * ROW, 'start'));
    const cap = el('figcaption', 'arc-caption', 'Query \u2192 key, line strength = weight');
    root.append(cap, box);
  });
}
