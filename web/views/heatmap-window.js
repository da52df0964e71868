// A large heatmap, virtualised: only the cells in view exist. A sizer gives the scroll box the
// whole matrix's extent; a table of as many rows and columns as fit stays in view (sticky) and
// is refilled from the data whenever the scroll position crosses a cell, so a 512 × 512 matrix
// costs a few hundred cells, not 262,144. The cells it shows are the small table's cells: same
// classes, data-r / data-c, td.shownCell (what it shows) and ARIA grid indices (aria-rowcount and
// aria-colcount give the whole size). heatmap.js adds focus, keys, readouts and highlights.
//   buildWindow(data) → { caption, scroll, grid, foot, readout, window }
//   window: { attach(onPaint), reveal(r, c), destroy() }

import { el, scrollCue } from './dom.js';
import { caption, fillLegend, legend, paintCell, recaption } from './heatmap-table.js';

/** Matrices with more cells than this are drawn windowed. */
export const WINDOW_CELLS = 64 * 64;
/** In a large view (data.large: T = 512, say) any matrix of more than this many cells is too:
 *  a 64 × 16 W_Q drawn whole cost a Next more than the windows beside it. */
export const LARGE_VIEW_CELLS = 512;

export const isWindowed = (data) => data.rows * data.cols > (data.large ? LARGE_VIEW_CELLS : WINDOW_CELLS);

const CELL_W = 58;
const CELL_H = 24;
const ROW_HEAD_W = 96;
const TOTAL_W = 90;
const ROWS_IN_VIEW = 20;

// One resize observer for every window: it reads every window's box and scroll position
// first, then each lays itself out and refills, so that no window's writes make the next one's
// reads force a layout. It runs after the frame's layout and before its paint, so a new window's
// cells are in its first frame without reading the layout while the page is still being built.
const windows = new Map(); // scroll box → onResize({ width, height, top, left })
let observer = null; // made with the first window
const observed = () =>
  (observer ??= new ResizeObserver((entries) => {
    const boxes = entries.map(({ target: t }) => [
      windows.get(t),
      { width: t.clientWidth, height: t.clientHeight, top: t.scrollTop, left: t.scrollLeft },
    ]);
    for (const [onResize, box] of boxes) onResize?.(box);
  }));

const bandAt = (bands, i) => bands?.find((b) => i >= b.start && i < b.start + b.span) ?? null;

function headerRows(data, nc) {
  const rows = [];
  const corners = data.rowBands ? 2 : 1;
  const row = (cls) => {
    const tr = el('tr', cls);
    for (let k = 0; k < corners; k += 1) tr.append(el('td', 'hm-corner'));
    rows.push(tr);
    return tr;
  };
  const bands = data.colBands ? row('hm-bands') : null;
  const labels = row(null);
  labels.setAttribute('aria-rowindex', '1');
  const pool = { bands: [], labels: [], bandRow: bands, labelRow: labels, labelsEnd: null };
  for (let j = 0; j < nc; j += 1) {
    if (bands) bands.append((pool.bands[j] = el('th', 'hm-band')));
    const th = el('th', `hm-col${data.colAxisIsTokens ? ' is-token' : ''}`);
    th.scope = 'col';
    labels.append((pool.labels[j] = th));
  }
  if (data.totals) labels.append((pool.labelsEnd = el('th', 'hm-total-head', data.totals.label)));
  return { rows, pool };
}

function bodyRows(data, nr, nc) {
  return Array.from({ length: nr }, () => {
    const tr = el('tr');
    const vband = data.rowBands ? el('th', 'hm-vband') : null;
    const head = el('th', `hm-row${data.rowAxisIsTokens ? ' is-token' : ''}`);
    head.scope = 'row';
    const cells = Array.from({ length: nc }, () => el('td', 'hm-cell'));
    const total = data.totals ? el('td', 'hm-total') : null;
    tr.append(...[vband, head, ...cells, total].filter(Boolean));
    return { tr, vband, head, cells, total };
  });
}

function fillCell(td, data, r, c) {
  paintCell(td, data.cell(r * data.cols + c));
  if (td.shownAt === r * data.cols + c) return;
  td.shownAt = r * data.cols + c;
  td.dataset.r = r;
  td.dataset.c = c;
  td.setAttribute('aria-colindex', String(c + 2));
}

// A band cell per row or column: its head's colour, and its label where the band begins or the
// window does.
function fillBand(th, band, windowStart, cls, at) {
  const className = band ? `${cls} head-${band.colour}` : cls;
  const text = band && (windowStart || band.start === at) ? band.label : '';
  if (th.className !== className) th.className = className;
  if (th.textContent !== text) th.textContent = text;
}

// Moves the first k items of list (and their nodes, within parent, before `before`) to its end,
// or the last −k to its start; → whether position i (after the move) holds a moved item.
function rotate(list, k, parent, nodeOf, before = null) {
  if (k > 0) {
    const moved = list.splice(0, k);
    list.push(...moved);
    for (const item of moved) parent.insertBefore(nodeOf(item), before);
  } else if (k < 0) {
    const first = nodeOf(list[0]);
    const moved = list.splice(k);
    list.unshift(...moved);
    for (const item of moved) parent.insertBefore(nodeOf(item), first);
  }
  return (i) => (k > 0 ? i >= list.length - k : i < -k);
}

export function buildWindow(first) {
  let data = first;
  const scroll = el('div', 'hm-scroll is-windowed');
  scrollCue(scroll);
  const sizer = el('div', 'hm-sizer');
  const grid = el('table', 'hm-grid is-windowed');
  grid.setAttribute('role', 'grid');
  grid.setAttribute('aria-readonly', 'true');
  grid.setAttribute('aria-rowcount', String(data.rows + 1));
  grid.setAttribute('aria-colcount', String(data.cols + 1));
  const label = () =>
    `${data.label}${data.head !== null && data.head !== undefined ? ` (head ${data.head})` : ''}, ` +
    `${data.rows} by ${data.cols}, scrolled: only the cells in view are drawn`;
  grid.setAttribute('aria-label', label());
  const headH = CELL_H * (data.colBands ? 2 : 1);
  const fixedW = ROW_HEAD_W + (data.rowBands ? CELL_H : 0) + (data.totals ? TOTAL_W : 0);
  scroll.style.height = `${headH + Math.min(ROWS_IN_VIEW, data.rows) * CELL_H + 18}px`;
  // The whole matrix's extent until the window is laid out: the scroll box then has its final
  // width (fit-content, at most 100 %) the first time it is laid out.
  sizer.style.width = `${fixedW + data.cols * CELL_W}px`;
  sizer.style.height = `${headH + data.rows * CELL_H}px`;
  // The box is size-contained (heatmap.css): it asks the figure for the matrix's whole width.
  scroll.style.containIntrinsicWidth = sizer.style.width;
  sizer.append(grid);
  scroll.append(sizer);
  const readout = el('p', 'hm-readout', '\u00a0');
  const foot = el('div', 'hm-foot');
  const where = el('span', 'hm-window-note');
  const key = legend(data);
  foot.append(key, where, readout);

  // top, left: the scroll position last seen (a refill during a render must not read it: that
  // would lay out the page the render is still changing).
  const view = { nr: 0, nc: 0, r0: -1, c0: -1, top: 0, left: 0, body: [], pool: null, onPaint: () => {}, wanted: null };

  function layOut({ width, height }) {
    const nr = Math.max(1, Math.min(data.rows, Math.floor((height - headH) / CELL_H)));
    const nc = Math.max(1, Math.min(data.cols, Math.floor((width - fixedW) / CELL_W)));
    if (nr === view.nr && nc === view.nc) return;
    Object.assign(view, { nr, nc, r0: -1, c0: -1 });
    sizer.style.width = `${width + (data.cols - nc) * CELL_W}px`;
    sizer.style.height = `${height + (data.rows - nr) * CELL_H}px`;
    const { rows, pool } = headerRows(data, nc);
    view.pool = pool;
    view.body = bodyRows(data, nr, nc);
    const thead = el('thead');
    thead.append(...rows);
    const tbody = el('tbody');
    tbody.append(...view.body.map((b) => b.tr));
    grid.replaceChildren(thead, tbody);
    view.tbody = tbody;
  }

  function fillLabel(j) {
    const c = view.c0 + j;
    const th = view.pool.labels[j];
    th.textContent = data.colLabels[c];
    th.dataset.c = c;
    if (data.colAxisIsTokens) th.title = data.colLabels[c];
  }

  // Row i of the window, whole, or only the cells whose columns `only` names (the row stays).
  function fillRow(b, i, only = null) {
    const r = view.r0 + i;
    if (!only) {
      b.tr.setAttribute('aria-rowindex', String(r + 2));
      b.head.textContent = data.rowLabels[r];
      b.head.dataset.r = r;
      if (b.total) b.total.textContent = `\u03a3 = ${data.totals.texts[r]}`;
    }
    b.cells.forEach((td, j) => (!only || only(j)) && fillCell(td, data, r, view.c0 + j));
  }

  // The rows and columns that stay in view keep their cells; those scrolled out move to the other
  // side and are refilled: a scroll by a row refills a row, not the window. Not while a cell of
  // it has the focus (moving the cell would drop the focus).
  function shift(dr, dc) {
    const { pool, body, nr, nc } = view;
    const rowMoved = rotate(body, dr, view.tbody, (b) => b.tr);
    const colMoved = rotate(pool.labels, dc, pool.labelRow, (th) => th, pool.labelsEnd);
    if (pool.bands.length) rotate(pool.bands, dc, pool.bandRow, (th) => th);
    for (const b of body) rotate(b.cells, dc, b.tr, (td) => td, b.total);
    for (let j = 0; j < nc; j += 1) if (colMoved(j)) fillLabel(j);
    for (let i = 0; i < nr; i += 1) fillRow(body[i], i, rowMoved(i) ? null : colMoved);
  }

  const holdsFocus = () => grid.contains(grid.getRootNode().activeElement);

  // Refills the window for the scroll position (the last seen unless given).
  function paint(force = false, top = view.top, left = view.left) {
    Object.assign(view, { top, left });
    const r0 = Math.max(0, Math.min(data.rows - view.nr, Math.floor(top / CELL_H)));
    const c0 = Math.max(0, Math.min(data.cols - view.nc, Math.floor(left / CELL_W)));
    if (!force && r0 === view.r0 && c0 === view.c0) return;
    const [dr, dc] = [r0 - view.r0, c0 - view.c0];
    const near = !force && view.r0 >= 0 && Math.abs(dr) < view.nr && Math.abs(dc) < view.nc;
    Object.assign(view, { r0, c0 });
    if (near && !holdsFocus()) {
      shift(dr, dc);
    } else {
      for (let j = 0; j < view.nc; j += 1) fillLabel(j);
      view.body.forEach((b, i) => fillRow(b, i));
    }
    view.pool.bands.forEach((th, j) => fillBand(th, bandAt(data.colBands, c0 + j), j === 0, 'hm-band', c0 + j));
    view.body.forEach(
      (b, i) => b.vband && fillBand(b.vband, bandAt(data.rowBands, r0 + i), i === 0, 'hm-vband', r0 + i),
    );
    where.textContent =
      `rows ${r0}\u2013${r0 + view.nr - 1} and columns ` +
      `${c0}\u2013${c0 + view.nc - 1} of ${data.rows} \u00d7 ${data.cols} in view `;
    view.onPaint();
  }

  // Scrolls cell (r, c) into the window from the scroll position given and refills it.
  function reveal(r, c, top = view.top, left = view.left) {
    const row = Math.floor(top / CELL_H);
    const col = Math.floor(left / CELL_W);
    let [y, x] = [top, left];
    if (r < row) y = r * CELL_H;
    else if (r >= row + view.nr) y = (r - view.nr + 1) * CELL_H;
    if (c < col) x = c * CELL_W;
    else if (c >= col + view.nc) x = (c - view.nc + 1) * CELL_W;
    if (y !== top) scroll.scrollTop = y;
    if (x !== left) scroll.scrollLeft = x;
    paint(false, y, x);
  }

  const onScroll = () => {
    if (view.pool) paint(false, scroll.scrollTop, scroll.scrollLeft);
  };
  const onResize = (box) => {
    const first = !view.pool;
    layOut(box);
    if (first && view.wanted) reveal(...view.wanted, box.top, box.left);
    else paint(first, box.top, box.left);
  };
  const parts = {
    caption: caption(data),
    scroll,
    grid,
    foot,
    readout,
    window: {
      /** Starts drawing once the figure is in the document; onPaint runs after each refill. */
      attach(onPaint) {
        view.onPaint = onPaint;
        scroll.addEventListener('scroll', onScroll, { passive: true });
        windows.set(scroll, onResize);
        observed().observe(scroll);
      },
      /** Scrolls cell (r, c) into the window and refills it at once (once laid out: then). */
      reveal(r, c) {
        if (view.pool) reveal(r, c);
        else view.wanted = [r, c];
      },
      /** New data in the same frame (heatmap-table.js sameFrame): the window refilled. */
      refill(next) {
        data = next;
        grid.setAttribute('aria-label', label());
        parts.caption = recaption(parts.caption, data);
        fillLegend(key, data);
        if (view.pool) paint(true);
      },
      destroy() {
        observed().unobserve(scroll);
        windows.delete(scroll);
        scroll.removeEventListener('scroll', onScroll);
      },
    },
  };
  return parts;
}
