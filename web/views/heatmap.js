// A matrix as a table of coloured cells with their numbers, row/column labels, optional bands,
// row totals and a legend. Knows nothing of attention: it draws what it is given.
//
// update(data): { key, name, label, head, rows, cols, values, cell(i) → { text, full, kind, fill, ink },
//   rowLabels, colLabels, captionTokens, colBands, rowBands, totals, highlight, selected,
//   interactive, legend }
// One cell at a time is in the tab order (roving tabindex); arrows move, Enter/Space activates;
// hover or focus shows the cell's full precision under the table. A matrix of more than
// WINDOW_CELLS cells (in a large view, data.large, of more than LARGE_VIEW_CELLS) is virtualised
// (heatmap-window.js): only the cells in view are drawn, and
// the keys scroll the window to the cell they move to.

import { el } from './dom.js';
import { buildHeatmap, checkData, sameFrame } from './heatmap-table.js';
import { buildWindow, isWindowed } from './heatmap-window.js';
import { selectNumber } from './heatmap-strips.js';

const KEYS = {
  ArrowLeft: ([r, c]) => [r, c - 1],
  ArrowRight: ([r, c]) => [r, c + 1],
  ArrowUp: ([r, c]) => [r - 1, c],
  ArrowDown: ([r, c]) => [r + 1, c],
  Home: ([r]) => [r, 0],
  End: ([r], data) => [r, data.cols - 1],
};

const position = (td) => [Number(td.dataset.r), Number(td.dataset.c)];
const cellAt = (state, [r, c]) => state.grid?.querySelector(`td.hm-cell[data-r="${r}"][data-c="${c}"]`);

// The readout under the table, and a title (tooltip) on this cell alone: titles on every cell
// restyled all of them on each new trace.
function showReadout(state, td) {
  const { data } = state;
  const [r, c] = position(td);
  const { full } = data.cell(r * data.cols + c);
  state.readout.textContent = `${data.label}[${r}, ${c}] (${data.rowLabels[r]}, ${data.colLabels[c]}) = ${full}`;
  if (state.titled !== td) untitle(state);
  state.titled = td;
  td.title = full;
}

function untitle(state) {
  state.titled?.removeAttribute('title');
  state.titled = null;
}

function moveFocus(state, [r, c]) {
  const { data } = state;
  const to = [Math.max(0, Math.min(data.rows - 1, r)), Math.max(0, Math.min(data.cols - 1, c))];
  state.window?.reveal(...to);
  const next = cellAt(state, to);
  if (!next) return;
  for (const td of state.grid.querySelectorAll('td.hm-cell[tabindex="0"]')) td.tabIndex = -1;
  next.tabIndex = 0;
  state.focusCell = position(next);
  next.focus();
  showReadout(state, next); // a windowed grid may show the new cell in the td that had the focus
}

function activate(state, td) {
  const [row, col] = position(td);
  if (state.data.interactive) state.onActivate({ key: state.data.key, row, col });
}

function onKey(state, event) {
  const td = event.target.closest('td.hm-cell');
  if (!td) return;
  if (KEYS[event.key]) {
    event.preventDefault();
    event.stopPropagation();
    moveFocus(state, KEYS[event.key](position(td), state.data));
  } else if (event.key === 'Enter' || event.key === ' ') {
    event.preventDefault();
    activate(state, td);
  }
}

function onClick(state, event) {
  const td = event.target.closest('td.hm-cell');
  if (!td) return;
  moveFocus(state, position(td));
  activate(state, td);
}

// The windowed grid's cells change on every scroll: the one with the focus position (or the
// first in view) is the grid's tab stop.
function rovingStop(state) {
  const stop = cellAt(state, state.focusCell) ?? state.grid.querySelector('td.hm-cell');
  for (const td of state.grid.querySelectorAll('td.hm-cell')) td.tabIndex = td === stop ? 0 : -1;
}

function build(state) {
  const { root, data } = state;
  state.window?.destroy();
  state.lit = false;
  root.textContent = '';
  root.dataset.matrix = data.name;
  root.dataset.key = data.key;
  root.classList.toggle('is-interactive', data.interactive);
  const parts = isWindowed(data) ? buildWindow(data) : buildHeatmap(data);
  state.window = parts.window ?? null;
  state.refill = parts.refill ?? parts.window.refill;
  state.grid = parts.grid;
  state.readout = parts.readout;
  root.append(parts.caption, parts.scroll, parts.foot);
  const point = (event) => {
    const td = event.target.closest('td.hm-cell');
    if (td) showReadout(state, td);
  };
  state.grid.addEventListener('keydown', (e) => onKey(state, e));
  state.grid.addEventListener('click', (e) => onClick(state, e));
  state.grid.addEventListener('dblclick', (e) => {
    const td = e.target.closest('td.hm-cell');
    if (td) selectNumber(td);
  });
  state.grid.addEventListener('mouseover', point);
  state.grid.addEventListener('focusin', point);
  state.focusCell = data.selected ? [data.selected.row, data.selected.col] : [0, 0];
  if (state.window) {
    state.window.attach(() => {
      rovingStop(state);
      paintHighlight(state); // state.data: refill() may have swapped it since
    });
    if (data.selected) state.window.reveal(data.selected.row, data.selected.col);
    return;
  }
  const first = cellAt(state, state.focusCell) ?? cellAt(state, [0, 0]);
  if (first) first.tabIndex = 0; // an empty matrix (a cache before its first row) has no cell
}

// Skipped while nothing is lit and nothing was at the last paint (new cells start plain).
function paintHighlight(state) {
  const { grid, data } = state;
  const { rows, cols, cells } = data.highlight;
  const sel = data.selected;
  const lit = Boolean(rows.size || cols.size || cells.size || sel);
  if (!lit && !state.lit) return;
  state.lit = lit;
  for (const td of grid.querySelectorAll('td.hm-cell')) {
    const [r, c] = position(td);
    const selected = Boolean(sel && sel.row === r && sel.col === c);
    td.classList.toggle('hl-row', rows.has(r));
    td.classList.toggle('hl-col', cols.has(c));
    td.classList.toggle('hl-cell', cells.has(`${r},${c}`));
    td.classList.toggle('is-selected', selected);
    if (selected) td.setAttribute('aria-selected', 'true');
    else td.removeAttribute('aria-selected');
  }
  for (const th of grid.querySelectorAll('th.hm-row')) th.classList.toggle('hl', rows.has(Number(th.dataset.r)));
  for (const th of grid.querySelectorAll('th.hm-col')) th.classList.toggle('hl', cols.has(Number(th.dataset.c)));
}

// New values in the same frame (a new trace, or the next matrix of the same size): the cells
// are refilled in place, not rebuilt, and keep the focus position (and a window its scroll).
function refill(state) {
  const { root, data } = state;
  root.dataset.matrix = data.name;
  root.dataset.key = data.key;
  root.classList.toggle('is-interactive', data.interactive);
  state.refill(data);
  state.readout.textContent = '\u00a0'; // it showed a number of the old trace
  untitle(state);
}

export function createHeatmap(host, { onActivate = () => {} } = {}) {
  const state = {
    root: el('figure', 'hm'),
    data: null,
    grid: null,
    readout: null,
    window: null,
    refill: null,
    lit: false,
    focusCell: [0, 0],
    titled: null,
    onActivate,
  };
  host.append(state.root);
  return {
    update(next) {
      checkData(next);
      const old = state.data;
      const same =
        old && next.key === old.key && next.values === old.values && next.legend.gradient === old.legend.gradient;
      state.data = next;
      if (!same && old && sameFrame(old, next) && isWindowed(old) === isWindowed(next)) refill(state);
      else if (!same) build(state);
      paintHighlight(state);
    },
    destroy() {
      state.window?.destroy();
      state.root.remove();
    },
  };
}
