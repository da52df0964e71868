// Token-to-token arcs: queries on the left, keys on the right, one line per pair whose opacity
// and width are the strength given (0 … 1). update({ rows, cols, rowLabels, colLabels,
// strengths, focusRow, head } | null). With a focus row, only that row's lines are drawn at full strength.

import { el } from './dom.js';

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
  const title = svg('title', {});
  t.append(document.createTextNode(short(text)), title);
  title.textContent = text;
  t.dataset.text = text;
  return t;
}

// One path per query–key pair, made once for a size; a pair of weight 0 (masked) is not drawn.
function lines(rows, cols) {
  const g = svg('g', { class: 'arc-lines' });
  const paths = [];
  for (let i = 0; i < rows; i += 1) {
    for (let j = 0; j < cols; j += 1) {
      const y1 = (i + 1) * ROW;
      const y2 = (j + 1) * ROW;
      const path = svg('path', { d: `M ${LEFT} ${y1} C ${LEFT + 30} ${y1}, ${RIGHT - 30} ${y2}, ${RIGHT} ${y2}` });
      paths.push(path);
      g.append(path);
    }
  }
  return { g, paths };
}

function strengthen(paths, data) {
  paths.forEach((path, k) => {
    const w = data.strengths[k];
    const faded = data.focusRow !== null && data.focusRow !== Math.floor(k / data.cols);
    if (!(w > 0)) {
      path.setAttribute('display', 'none');
      return;
    }
    path.removeAttribute('display');
    path.setAttribute('class', faded ? 'arc is-faded' : 'arc');
    path.setAttribute('stroke-opacity', String(faded ? w * 0.15 : w));
    path.setAttribute('stroke-width', String(0.5 + 4 * w));
  });
}

function relabel(texts, labels) {
  texts.forEach((t, i) => {
    if (t.dataset.text === labels[i]) return;
    t.dataset.text = labels[i];
    t.firstChild.textContent = short(labels[i]);
    t.lastChild.textContent = labels[i];
  });
}

function ariaLabel(data) {
  return `Arcs from each query token (left) to each key token (right); line strength is the attention weight${
    data.head !== null ? ` of head ${data.head}` : ''
  }.`;
}

// The drawing for a size: { box, paths, rowTexts, colTexts }.
function draw(root, data) {
  const height = (Math.max(data.rows, data.cols) + 1) * ROW;
  const box = svg('svg', { viewBox: `0 0 ${WIDTH} ${height}`, width: WIDTH, height, role: 'img', class: 'arc-svg' });
  const { g, paths } = lines(data.rows, data.cols);
  box.append(g);
  const rowTexts = Array.from({ length: data.rows }, (_, i) => label('', LEFT - 8, (i + 1) * ROW, 'end'));
  const colTexts = Array.from({ length: data.cols }, (_, j) => label('', RIGHT + 8, (j + 1) * ROW, 'start'));
  box.append(...rowTexts, ...colTexts);
  root.replaceChildren(el('figcaption', 'arc-caption', 'Query \u2192 key, line strength = weight'), box);
  return { rows: data.rows, cols: data.cols, box, paths, rowTexts, colTexts };
}

// Redrawn only when the number of tokens changes; new weights and labels are set in place.
export function createArcView(host) {
  const root = el('figure', 'arc-view');
  host.append(root);
  let drawn = null;
  return {
    update(data) {
      root.hidden = !data;
      if (!data) return;
      if (!drawn || drawn.rows !== data.rows || drawn.cols !== data.cols) drawn = draw(root, data);
      drawn.box.setAttribute('aria-label', ariaLabel(data));
      strengthen(drawn.paths, data);
      relabel(drawn.rowTexts, data.rowLabels);
      relabel(drawn.colTexts, data.colLabels);
    },
    destroy() {
      root.remove();
    },
  };
}
