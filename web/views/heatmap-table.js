// The DOM of one heatmap: caption, table (bands, labels, cells, totals) and legend. Builders
// only; heatmap.js adds focus, keys and highlights. Knows nothing of attention.

import { el } from './dom.js';
import { drawShapeTokens } from './shape-tokens.js';

export function checkData(data) {
  if (data.values.length !== data.rows * data.cols || typeof data.cell !== 'function') {
    throw new Error(`heatmap ${data.name}: ${data.values.length} values for ${data.rows} × ${data.cols} cells`);
  }
}

export function caption(data) {
  const cap = el('figcaption', 'hm-caption');
  cap.append(el('span', 'hm-name', data.label));
  if (data.head !== null && data.head !== undefined) cap.append(el('span', `hm-head head-${data.head % 8}`, `head ${data.head}`));
  const shape = el('span', 'hm-shape');
  drawShapeTokens(shape, data.captionTokens);
  cap.append(shape);
  return cap;
}

function bandRow(data) {
  const tr = el('tr', 'hm-bands');
  tr.append(el('td', 'hm-corner'));
  if (data.rowBands) tr.append(el('td', 'hm-corner'));
  for (const band of data.colBands) {
    const th = el('th', `hm-band head-${band.colour}`, band.label);
    th.colSpan = band.span;
    th.scope = 'colgroup';
    tr.append(th);
  }
  return tr;
}

function headerRow(data) {
  const tr = el('tr');
  tr.append(el('td', 'hm-corner'));
  if (data.rowBands) tr.append(el('td', 'hm-corner'));
  data.colLabels.forEach((label, c) => {
    const th = el('th', `hm-col${data.colAxisIsTokens ? ' is-token' : ''}`, label);
    th.scope = 'col';
    th.dataset.c = c;
    if (data.colAxisIsTokens) th.title = label;
    tr.append(th);
  });
  if (data.totals) tr.append(el('th', 'hm-total-head', data.totals.label));
  return tr;
}

function bodyCell(data, r, c) {
  const i = r * data.cols + c;
  const cell = data.cell(i);
  const td = el('td', `hm-cell is-${cell.kind}`, cell.text);
  td.dataset.r = r;
  td.dataset.c = c;
  td.title = cell.full;
  td.tabIndex = -1;
  if (cell.fill) {
    td.style.backgroundColor = cell.fill;
    td.style.color = cell.ink;
  }
  return td;
}

function bodyRow(data, r) {
  const tr = el('tr');
  const th = el('th', `hm-row${data.rowAxisIsTokens ? ' is-token' : ''}`, data.rowLabels[r]);
  th.scope = 'row';
  th.dataset.r = r;
  tr.append(th);
  const band = data.rowBands?.find((b) => b.start === r);
  if (band) {
    const bt = el('th', `hm-vband head-${band.colour}`, band.label);
    bt.rowSpan = band.span;
    bt.scope = 'rowgroup';
    tr.insertBefore(bt, th);
  }
  for (let c = 0; c < data.cols; c += 1) tr.append(bodyCell(data, r, c));
  if (data.totals) tr.append(el('td', 'hm-total', `\u03a3 = ${data.totals.texts[r]}`));
  return tr;
}

export function legend(data) {
  const box = el('span', 'hm-legend');
  const bar = el('span', 'hm-legend-bar');
  bar.style.backgroundImage = data.legend.gradient;
  box.append(el('span', 'hm-legend-end', data.legend.min), bar, el('span', 'hm-legend-end', data.legend.max));
  return box;
}


// The whole figure's children for data → { caption, scroll, grid, foot, readout }.
export function buildHeatmap(data) {
  const grid = el('table', 'hm-grid');
  grid.setAttribute('role', 'grid');
  grid.setAttribute('aria-readonly', 'true');
  const head = data.head !== null && data.head !== undefined ? ` (head ${data.head})` : '';
  grid.setAttribute('aria-label', `${data.label}${head}, ${data.rows} by ${data.cols}`);
  const thead = el('thead');
  if (data.colBands) thead.append(bandRow(data));
  thead.append(headerRow(data));
  const tbody = el('tbody');
  for (let r = 0; r < data.rows; r += 1) tbody.append(bodyRow(data, r));
  grid.append(thead, tbody);
  const scroll = el('div', 'hm-scroll');
  scroll.append(grid);
  const readout = el('p', 'hm-readout', '\u00a0');
  const foot = el('div', 'hm-foot');
  foot.append(legend(data), readout);
  return { caption: caption(data), scroll, grid, foot, readout };
}
