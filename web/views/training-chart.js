// The training page's charts (model/training-view.js lays them out): one SVG per chart, with
// axes, a line per series and a legend, then the checkpoints as a table for screen readers.

import { el } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';

function svgEl(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function axes(svg, { box, x, y }) {
  const bottom = box.height - box.bottom;
  svg.append(svgEl('line', { x1: box.left, x2: box.width - box.right, y1: bottom, y2: bottom, class: 'axis' }));
  svg.append(svgEl('line', { x1: box.left, x2: box.left, y1: box.top, y2: bottom, class: 'axis' }));
  for (const t of x) {
    const label = svgEl('text', { x: t.at, y: bottom + 16, 'text-anchor': 'middle', class: 'tick' });
    label.textContent = t.text;
    svg.append(label);
  }
  for (const t of y) {
    svg.append(svgEl('line', { x1: box.left, x2: box.width - box.right, y1: t.at, y2: t.at, class: 'grid' }));
    const label = svgEl('text', { x: box.left - 6, y: t.at + 4, 'text-anchor': 'end', class: 'tick' });
    label.textContent = t.text;
    svg.append(label);
  }
}

/** One chart: a figure with its title, the SVG (its lines named in <title>s) and a legend. */
export function chartFigure(title, chart) {
  const figure = el('figure', 'training-chart');
  figure.append(el('figcaption', null, title));
  const { box } = chart;
  const svg = svgEl('svg', { viewBox: `0 0 ${box.width} ${box.height}`, role: 'img', 'aria-label': title });
  axes(svg, chart);
  const legend = el('ul', 'chart-legend');
  for (const line of chart.lines) {
    const style = `${line.dashed ? ' is-dashed' : ''}${line.baseline ? ' is-baseline' : ''}`;
    const poly = svgEl('polyline', { points: line.points, class: `series${style}` });
    poly.style.stroke = line.colour; // CSSOM, which the page's CSP allows (a style attribute it would not)
    const name = svgEl('title');
    name.textContent = line.name;
    poly.append(name);
    svg.append(poly);
    const item = el('li', `legend-item${style}`);
    const swatch = el('span', 'swatch');
    swatch.style.borderColor = line.colour;
    item.append(swatch, document.createTextNode(line.name));
    legend.append(item);
  }
  figure.append(svg, legend);
  return figure;
}

/** A figure chartFigure drew, its lines moved to chart's points (the same lines, in order). */
export function updateChart(figure, chart) {
  figure.querySelectorAll('polyline').forEach((poly, i) => poly.setAttribute('points', chart.lines[i].points));
}

/** A table of { text, full } cells (historyTable, predictionTable) in a scrolling region. */
export function historyTableEl({ head, rows }, summary) {
  const wrap = el('div', 'table-scroll');
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', summary);
  const table = el('table', 'panel-table');
  const tr = el('tr');
  for (const h of head) tr.append(el('th', null, h));
  table.append(el('thead'), el('tbody'));
  table.tHead.append(tr);
  for (const row of rows) {
    const r = el('tr');
    row.forEach((cell, i) => {
      const c = el(i === 0 ? 'th' : 'td', null, cell.text);
      c.title = cell.full;
      r.append(c);
    });
    table.tBodies[0].append(r);
  }
  wrap.append(table);
  return wrap;
}

/** The checkpoints as a table inside a <details> (open: as the reader left it), built only once
 *  open: while training, a closed table costs nothing at each checkpoint. table() → { head, rows }. */
export function historyDetails(summary, table, open = false) {
  const details = el('details', 'training-table');
  details.append(el('summary', null, summary));
  const fill = () =>
    details.open && details.childElementCount === 1 && details.append(historyTableEl(table(), summary));
  details.open = open;
  fill();
  details.addEventListener('toggle', fill);
  return details;
}
