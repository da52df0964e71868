// Token-to-token arcs: queries on the left, keys on the right, one line per pair whose opacity
// and width are the strength given (0 … 1). update({ rows, cols, rowLabels, colLabels,
// strengths, focusRow, head } | null). With a focus row, only that row's lines are drawn at full strength.
// The labels are SVG text; the lines are drawn on a canvas behind them: a few hundred SVG paths
// restyled on every edit cost the page about 7 ms of style and paint, the canvas well under one.

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

// The curve from query i (left) to key j (right), in drawing units.
function curve(ctx, i, j) {
  const y1 = (i + 1) * ROW;
  const y2 = (j + 1) * ROW;
  ctx.moveTo(LEFT, y1);
  ctx.bezierCurveTo(LEFT + 30, y1, RIGHT - 30, y2, RIGHT, y2);
}

// Every pair of positive weight as a line, in the canvas's own colour (its CSS color, --arc);
// a pair of weight 0 (masked) is not drawn. → how many lines were drawn.
function drawLines(canvas, data) {
  const ctx = canvas.getContext('2d');
  ctx.setTransform(canvas.width / WIDTH, 0, 0, canvas.width / WIDTH, 0, 0);
  ctx.clearRect(0, 0, WIDTH, canvas.height);
  ctx.strokeStyle = getComputedStyle(canvas).color;
  let drawn = 0;
  data.strengths.forEach((w, k) => {
    if (!(w > 0)) return;
    const i = Math.floor(k / data.cols);
    const faded = data.focusRow !== null && data.focusRow !== i;
    ctx.globalAlpha = faded ? w * 0.15 : w;
    ctx.lineWidth = 0.5 + 4 * w;
    ctx.beginPath();
    curve(ctx, i, k % data.cols);
    ctx.stroke();
    drawn += 1;
  });
  return drawn;
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

// The drawing for a size: { rows, cols, box, canvas, rowTexts, colTexts }. The canvas has the
// SVG's size in device pixels, so its lines are as sharp as the labels.
function draw(root, data) {
  const height = (Math.max(data.rows, data.cols) + 1) * ROW;
  const box = svg('svg', { viewBox: `0 0 ${WIDTH} ${height}`, width: WIDTH, height, role: 'img', class: 'arc-svg' });
  const rowTexts = Array.from({ length: data.rows }, (_, i) => label('', LEFT - 8, (i + 1) * ROW, 'end'));
  const colTexts = Array.from({ length: data.cols }, (_, j) => label('', RIGHT + 8, (j + 1) * ROW, 'start'));
  box.append(...rowTexts, ...colTexts);
  const canvas = el('canvas', 'arc-lines');
  const scale = Math.max(1, Math.ceil(window.devicePixelRatio || 1));
  canvas.width = WIDTH * scale;
  canvas.height = height * scale;
  canvas.setAttribute('aria-hidden', 'true');
  const frame = el('div', 'arc-frame');
  frame.append(canvas, box);
  root.replaceChildren(el('figcaption', 'arc-caption', 'Query \u2192 key, line strength = weight'), frame);
  return { rows: data.rows, cols: data.cols, box, canvas, rowTexts, colTexts };
}

// Redrawn only when the number of tokens changes; new weights and labels are set in place.
export function createArcView(host) {
  const root = el('figure', 'arc-view');
  host.append(root);
  let drawn = null;
  let last = null;
  const redraw = () => {
    drawn.canvas.dataset.lines = drawLines(drawn.canvas, last);
  };
  // The lines' colour follows the page's colour scheme.
  const scheme = window.matchMedia?.('(prefers-color-scheme: dark)');
  const onScheme = () => drawn && last && redraw();
  scheme?.addEventListener('change', onScheme);
  return {
    update(data) {
      root.hidden = !data;
      last = data;
      if (!data) return;
      if (!drawn || drawn.rows !== data.rows || drawn.cols !== data.cols) drawn = draw(root, data);
      drawn.box.setAttribute('aria-label', ariaLabel(data));
      relabel(drawn.rowTexts, data.rowLabels);
      relabel(drawn.colTexts, data.colLabels);
      redraw();
    },
    destroy() {
      scheme?.removeEventListener('change', onScheme);
      root.remove();
    },
  };
}
