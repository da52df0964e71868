// The DOM of one heatmap: caption, table (bands, labels, cells, totals) and legend. Builders
// only; heatmap.js adds focus, keys and highlights. Knows nothing of attention.

import { el, scrollCue, setText } from './dom.js';
import { drawShapeTokens } from './shape-tokens.js';
import { fieldChars, makeStrips, markCell, paintStrips, registerPitch } from './heatmap-strips.js';

export function checkData(data) {
  if (data.values.length !== data.rows * data.cols || typeof data.cell !== 'function') {
    throw new Error(`heatmap ${data.name}: ${data.values.length} values for ${data.rows} × ${data.cols} cells`);
  }
}

export function caption(data) {
  const cap = el('figcaption', 'hm-caption');
  cap.append(el('span', 'hm-name', data.label));
  if (data.head !== null && data.head !== undefined)
    cap.append(el('span', `hm-head head-${data.head % 8}`, `head ${data.head}`));
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

// A windowed cell's number, kind, full precision and colours, set on a new or reused td: only
// what differs from what it shows (a refill with a twin matrix writes nothing; each write costs
// the cell a style recalculation or a layout). The full precision is td.shownCell.full, not a
// title: a new title restyles its cell; heatmap.js sets the title of the cell under the pointer.
export function paintCell(td, cell) {
  const was = td.shownCell ?? {};
  td.shownCell = cell;
  if (was.kind !== cell.kind) td.className = `hm-cell is-${cell.kind}`;
  if (was.text !== cell.text) {
    const text = td.firstChild;
    if (text && text === td.lastChild && text.nodeType === 3)
      text.data = cell.text; // cheaper to lay out than a new node
    else td.textContent = cell.text;
  }
  if (was.fill !== cell.fill) td.style.backgroundColor = cell.fill ?? '';
  if (was.ink !== cell.ink) td.style.color = cell.ink ?? '';
}

function bodyCell(r, c) {
  const td = el('td', 'hm-cell');
  td.dataset.r = r;
  td.dataset.c = c;
  td.tabIndex = -1;
  return td;
}

// A row of empty cells, the first holding the row's strips (heatmap-strips.js).
function bodyRow(data, r, strips) {
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
  for (let c = 0; c < data.cols; c += 1) tr.append(bodyCell(r, c));
  tr.querySelector('td')?.append(strips.hatch, strips.text);
  if (data.totals) tr.append(el('td', 'hm-total', `\u03a3 = ${data.totals.texts[r]}`));
  return tr;
}

export function legend(data) {
  const box = el('span', 'hm-legend');
  const bar = el('span', 'hm-legend-bar');
  box.append(el('span', 'hm-legend-end'), bar, el('span', 'hm-legend-end'), el('span', 'hm-legend-note'));
  fillLegend(box, data);
  return box;
}

/** The legend's ends and ramp for data, in place. */
export function fillLegend(box, data) {
  const [min, bar, max, note] = box.children;
  setText(min, data.legend.min);
  setText(max, data.legend.max);
  setText(note, data.legend.note ?? '');
  // The scale's sentence: on hover, and read with the note.
  if (box.title !== (data.legend.why ?? '')) box.title = data.legend.why ?? '';
  if (bar.dataset.gradient !== data.legend.gradient)
    bar.style.backgroundImage = bar.dataset.gradient = data.legend.gradient;
}

/** The caption for data in place of cap, unless cap shows the same already; → the caption. */
export function recaption(cap, data) {
  const key = JSON.stringify([data.label, data.head, data.captionTokens]);
  if (cap.dataset.shown === key) return cap;
  const next = caption(data);
  next.dataset.shown = key;
  cap.replaceWith(next);
  return next;
}

const gridLabel = (data, more = '') =>
  `${data.label}${data.head !== null && data.head !== undefined ? ` (head ${data.head})` : ''}, ` +
  `${data.rows} by ${data.cols}${more}`;

/** Whether a heatmap drawn for old can show next by refilling its cells: the same size, the
 *  same bands and the same columns besides the cells (totals). */
export function sameFrame(old, next) {
  const bands = (b) => (b ? b.map((x) => `${x.start}+${x.span}:${x.colour}:${x.label}`).join() : '');
  return (
    old.rows === next.rows &&
    old.cols === next.cols &&
    Boolean(old.totals) === Boolean(next.totals) &&
    bands(old.colBands) === bands(next.colBands) &&
    bands(old.rowBands) === bands(next.rowBands) &&
    old.rowAxisIsTokens === next.rowAxisIsTokens &&
    old.colAxisIsTokens === next.colAxisIsTokens
  );
}

// The whole figure's children for data → { caption, scroll, grid, foot, readout, refill(next) }:
// refill(next) redraws the same frame (sameFrame) for new data in place: caption, labels,
// cells' numbers and colours, totals and legend, no new cells.
export function buildHeatmap(data) {
  registerPitch();
  const grid = el('table', 'hm-grid has-strips');
  grid.setAttribute('role', 'grid');
  grid.setAttribute('aria-readonly', 'true');
  grid.setAttribute('aria-label', gridLabel(data));
  grid.style.setProperty('--cols', data.cols);
  const strips = Array.from({ length: data.rows }, makeStrips);
  const thead = el('thead');
  if (data.colBands) thead.append(bandRow(data));
  thead.append(headerRow(data));
  const tbody = el('tbody');
  for (let r = 0; r < data.rows; r += 1) tbody.append(bodyRow(data, r, strips[r]));
  grid.append(thead, tbody);
  const scroll = el('div', 'hm-scroll');
  scroll.append(grid);
  scrollCue(scroll); // a matrix wider than its box fades at the side it continues on
  const readout = el('p', 'hm-readout', '\u00a0');
  const foot = el('div', 'hm-foot');
  const key = legend(data);
  foot.append(key, readout);
  const parts = { caption: caption(data), scroll, grid, foot, readout };
  const cells = [...tbody.querySelectorAll('td.hm-cell')];
  const rowHeads = [...tbody.querySelectorAll('th.hm-row')];
  const colHeads = [...thead.querySelectorAll('th.hm-col')];
  const totals = [...tbody.querySelectorAll('td.hm-total')];
  const paintCells = (next) => {
    const all = next.cells;
    const chars = fieldChars(all);
    if (grid.style.getPropertyValue('--chars') !== String(chars)) grid.style.setProperty('--chars', chars);
    for (let i = 0; i < cells.length; i += 1) markCell(cells[i], all[i]);
    strips.forEach((s, r) => paintStrips(s, all.slice(r * next.cols, (r + 1) * next.cols), chars));
  };
  paintCells(data);
  parts.refill = (next) => {
    grid.setAttribute('aria-label', gridLabel(next));
    parts.caption = recaption(parts.caption, next);
    refillLabels(rowHeads, next.rowLabels, next.rowAxisIsTokens);
    refillLabels(colHeads, next.colLabels, next.colAxisIsTokens);
    paintCells(next);
    totals.forEach((td, r) => setText(td, `\u03a3 = ${next.totals.texts[r]}`));
    fillLegend(key, next);
    return parts.caption;
  };
  return parts;
}

function refillLabels(ths, labels, tokens) {
  ths.forEach((th, i) => {
    if (th.textContent !== labels[i]) th.textContent = labels[i];
    if (tokens && th.title !== labels[i]) th.title = labels[i];
  });
}
