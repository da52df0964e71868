// The Backpropagation chapter's panel: the chain rule's arrows (each gradient beside what it was
// computed from; a click opens that stage), the softmax backward's facts on this head's numbers,
// and the √d_k study as two small plots over d_k with the table they draw. Drawn from
// model/backward-panel.js's data; every number is the engine's.

import { el } from './dom.js';
import { scrolling, table } from './panel-table.js';

const SVG = 'http://www.w3.org/2000/svg';
const W = 260;
const H = 150;
const PAD = { left: 44, right: 16, top: 10, bottom: 30 };

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

// One plot: x = log₂ d_k, y = `key` (log₁₀ when `log`), a line and dots per series.
function plot(series, key, { title, log, yMax }) {
  const xs = series[0].points.map((p) => Math.log2(p.dK));
  const ys = series.flatMap((s) => s.points.map((p) => (log ? Math.log10(p[key]) : p[key])));
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = log ? [Math.floor(Math.min(...ys)), Math.ceil(Math.max(...ys))] : [0, yMax];
  const px = (x) => PAD.left + ((x - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const py = (y) => H - PAD.bottom - ((y - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
  const box = svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: 'scaling-plot', role: 'img' });
  box.setAttribute('aria-label', `${title} against d_k; the table below holds the same numbers`);
  box.append(svg('title', {}, title));
  const axis = svg('g', { class: 'plot-axis' });
  axis.append(svg('line', { x1: PAD.left, y1: py(y0), x2: W - PAD.right, y2: py(y0) }));
  axis.append(svg('line', { x1: PAD.left, y1: py(y0), x2: PAD.left, y2: py(y1) }));
  series[0].points.forEach((p) => {
    axis.append(svg('text', { x: px(Math.log2(p.dK)), y: H - PAD.bottom + 13, 'text-anchor': 'middle' }, p.dK));
  });
  axis.append(svg('text', { x: (PAD.left + W) / 2, y: H - 3, 'text-anchor': 'middle' }, 'd_k'));
  const ticks = log ? Array.from({ length: y1 - y0 + 1 }, (_, k) => y0 + k) : [0, yMax / 2, yMax];
  for (const t of ticks) {
    const label = log ? `1e${t}` : String(t);
    axis.append(svg('text', { x: PAD.left - 4, y: py(t) + 4, 'text-anchor': 'end' }, label));
  }
  box.append(axis);
  series.forEach((s, k) => {
    const points = s.points.map((p) => [px(Math.log2(p.dK)), py(log ? Math.log10(p[key]) : p[key])]);
    const dash = s.scaled ? null : '4 3';
    box.append(
      svg('polyline', {
        points: points.map((q) => q.join(',')).join(' '),
        class: `plot-line series-${k}`,
        ...(dash ? { 'stroke-dasharray': dash } : {}),
      }),
    );
    for (const [x, y] of points) box.append(svg('circle', { cx: x, cy: y, r: 2.5, class: `plot-dot series-${k}` }));
  });
  const figure = el('figure', 'scaling-figure');
  figure.append(box, el('figcaption', null, title));
  return figure;
}

function legend(series) {
  const ul = el('ul', 'plot-legend');
  series.forEach((s, k) => {
    const li = el('li', `series-${k}${s.scaled ? '' : ' is-dashed'}`);
    li.append(el('span', 'legend-line'), el('span', null, s.label));
    ul.append(li);
  });
  return ul;
}

function chain(root, p, onPickStage) {
  root.append(
    el(
      'p',
      'panel-label',
      `The chain rule${p.head === null ? '' : ` for head ${p.head}`}: each gradient and what it was computed from`,
    ),
  );
  const list = el('ol', 'gradient-chain');
  for (const link of p.chain) {
    const li = el('li', link.current ? 'is-current' : null);
    const b = el('button', 'chain-step', link.result);
    b.type = 'button';
    if (link.current) b.setAttribute('aria-current', 'step');
    b.addEventListener('click', () => onPickStage?.(link.index));
    const from = link.from.length ? link.from.join(', ') : 'given or drawn';
    li.append(b, el('span', 'chain-from', ` \u2190 ${from}`));
    list.append(li);
  }
  root.append(list);
}

function facts(root, f) {
  if (!f) return;
  const masked = f.masked
    ? ` The mask hid ${f.masked.count} of this head\u2019s scores; ` +
      `dS\u0303 is exactly 0 at ${f.masked.zero} of them: ` +
      'no gradient reaches a key the query never saw.'
    : '';
  root.append(
    el(
      'p',
      'panel-note backward-facts',
      `Through the softmax each row of dS\u0303 sums to 0: the largest |row sum| here is ${f.largestRowSum}, ` +
        `against entries up to ${f.largestEntry}.${masked}`,
    ),
  );
}

export function backward(root, p, on = {}) {
  chain(root, p, on.onPickStage);
  facts(root, p.facts);
  const box = el('details', 'scaling-study');
  box.append(el('summary', null, 'Why \u00f7\u221ad_k? The engine\u2019s measurement, plotted'));
  box.append(
    el(
      'p',
      'panel-note',
      'One head, T = 32 tokens, d_model = 16, dO drawn, seed as this run: for each d_k the engine runs the ' +
        'forward and backward pass with and without \u00f7\u221ad_k, at weights \u00d7 1 and at the scale that gives ' +
        'q and k components of variance 1.',
    ),
  );
  const plots = el('div', 'scaling-plots');
  plots.append(
    plot(p.scaling.series, 'maxWeight', { title: 'Largest weight of a row (mean)', log: false, yMax: 1 }),
    plot(p.scaling.series, 'meanAbsDScores', { title: 'Gradient at the scores, mean |dS|', log: true }),
  );
  box.append(plots, legend(p.scaling.series));
  for (const text of p.scaling.findings) box.append(el('p', 'panel-note scaling-finding', text));
  box.append(scrolling(table(p.scaling.table, 'compare-table scaling-table'), 'The measurement behind the plots'));
  root.append(box);
}
