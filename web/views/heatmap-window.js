// A large heatmap, virtualised: only the cells in view exist. A sizer gives the scroll box the
// whole matrix's extent; a table of as many rows and columns as fit stays in view (sticky) and
// is refilled from the data whenever the scroll position crosses a cell, so a 512 × 512 matrix
// costs a few hundred cells, not 262,144. The cells it shows are the small table's cells: same
// classes, data-r / data-c, titles (full precision) and ARIA grid indices (aria-rowcount and
// aria-colcount give the whole size). heatmap.js adds focus, keys, readouts and highlights.
//   buildWindow(data) → { caption, scroll, grid, foot, readout, window }
//   window: { attach(onPaint), reveal(r, c), destroy() }

import { el } from './dom.js';
import { caption, legend } from './heatmap-table.js';

/** Matrices with more cells than this are drawn windowed. */
export const WINDOW_CELLS = 64 * 64;

const CELL_W = 58;
const CELL_H = 24;
const ROW_HEAD_W = 96;
const TOTAL_W = 90;
const ROWS_IN_VIEW = 20;

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
  const pool = { bands: [], labels: [] };
  for (let j = 0; j < nc; j += 1) {
    if (bands) bands.append(pool.bands[j] = el('th', 'hm-band'));
    const th = el('th', `hm-col${data.colAxisIsTokens ? ' is-token' : ''}`);
    th.scope = 'col';
    labels.append(pool.labels[j] = th);
  }
  if (data.totals) labels.append(el('th', 'hm-total-head', data.totals.label));
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
  const cell = data.cell(r * data.cols + c);
  td.className = `hm-cell is-${cell.kind}`;
  td.textContent = cell.text;
  td.title = cell.full;
  td.dataset.r = r;
  td.dataset.c = c;
  td.setAttribute('aria-colindex', String(c + 2));
  td.style.backgroundColor = cell.fill ?? '';
  td.style.color = cell.ink ?? '';
}

// A band cell per row or column: its head's colour, and its label where the band begins or the
// window does.
function fillBand(th, band, windowStart, cls, at) {
  th.className = band ? `${cls} head-${band.colour}` : cls;
  th.textContent = band && (windowStart || band.start === at) ? band.label : '';
}

export function buildWindow(data) {
  const scroll = el('div', 'hm-scroll is-windowed');
  const sizer = el('div', 'hm-sizer');
  const grid = el('table', 'hm-grid is-windowed');
  grid.setAttribute('role', 'grid');
  grid.setAttribute('aria-readonly', 'true');
  grid.setAttribute('aria-rowcount', String(data.rows + 1));
  grid.setAttribute('aria-colcount', String(data.cols + 1));
  const head = data.head !== null && data.head !== undefined ? ` (head ${data.head})` : '';
  grid.setAttribute('aria-label', `${data.label}${head}, ${data.rows} by ${data.cols}, scrolled: only the cells in view are drawn`);
  const headH = CELL_H * (data.colBands ? 2 : 1);
  const fixedW = ROW_HEAD_W + (data.rowBands ? CELL_H : 0) + (data.totals ? TOTAL_W : 0);
  scroll.style.height = `${headH + Math.min(ROWS_IN_VIEW, data.rows) * CELL_H + 18}px`;
  sizer.append(grid);
  scroll.append(sizer);
  const readout = el('p', 'hm-readout', '\u00a0');
  const foot = el('div', 'hm-foot');
  const where = el('span', 'hm-window-note');
  foot.append(legend(data), where, readout);

  const view = { nr: 0, nc: 0, r0: -1, c0: -1, body: [], pool: null, onPaint: () => {} };

  function layOut() {
    const nr = Math.max(1, Math.min(data.rows, Math.floor((scroll.clientHeight - headH) / CELL_H)));
    const nc = Math.max(1, Math.min(data.cols, Math.floor((scroll.clientWidth - fixedW) / CELL_W)));
    if (nr === view.nr && nc === view.nc) return;
    Object.assign(view, { nr, nc, r0: -1, c0: -1 });
    sizer.style.width = `${scroll.clientWidth + (data.cols - nc) * CELL_W}px`;
    sizer.style.height = `${scroll.clientHeight + (data.rows - nr) * CELL_H}px`;
    const { rows, pool } = headerRows(data, nc);
    view.pool = pool;
    view.body = bodyRows(data, nr, nc);
    const thead = el('thead');
    thead.append(...rows);
    const tbody = el('tbody');
    tbody.append(...view.body.map((b) => b.tr));
    grid.replaceChildren(thead, tbody);
  }

  function paint(force = false) {
    const r0 = Math.min(data.rows - view.nr, Math.floor(scroll.scrollTop / CELL_H));
    const c0 = Math.min(data.cols - view.nc, Math.floor(scroll.scrollLeft / CELL_W));
    if (!force && r0 === view.r0 && c0 === view.c0) return;
    Object.assign(view, { r0, c0 });
    view.pool.labels.forEach((th, j) => {
      th.textContent = data.colLabels[c0 + j];
      th.dataset.c = c0 + j;
      if (data.colAxisIsTokens) th.title = data.colLabels[c0 + j];
      if (view.pool.bands[j]) fillBand(view.pool.bands[j], bandAt(data.colBands, c0 + j), j === 0, 'hm-band', c0 + j);
    });
    view.body.forEach((b, i) => {
      const r = r0 + i;
      b.tr.setAttribute('aria-rowindex', String(r + 2));
      b.head.textContent = data.rowLabels[r];
      b.head.dataset.r = r;
      if (b.vband) fillBand(b.vband, bandAt(data.rowBands, r), i === 0, 'hm-vband', r);
      b.cells.forEach((td, j) => fillCell(td, data, r, c0 + j));
      if (b.total) b.total.textContent = `\u03a3 = ${data.totals.texts[r]}`;
    });
    where.textContent = `rows ${r0}\u2013${r0 + view.nr - 1} and columns ${c0}\u2013${c0 + view.nc - 1} of ${data.rows} \u00d7 ${data.cols} in view `;
    view.onPaint();
  }

  const onScroll = () => paint();
  const resize = new ResizeObserver(() => {
    layOut();
    paint();
  });
  return {
    caption: caption(data),
    scroll,
    grid,
    foot,
    readout,
    window: {
      /** Starts drawing once the figure is in the document; onPaint runs after each refill. */
      attach(onPaint) {
        view.onPaint = onPaint;
        layOut();
        paint(true);
        scroll.addEventListener('scroll', onScroll, { passive: true });
        resize.observe(scroll);
      },
      /** Scrolls cell (r, c) into the window and refills it at once. */
      reveal(r, c) {
        if (r < view.r0) scroll.scrollTop = r * CELL_H;
        else if (r >= view.r0 + view.nr) scroll.scrollTop = (r - view.nr + 1) * CELL_H;
        if (c < view.c0) scroll.scrollLeft = c * CELL_W;
        else if (c >= view.c0 + view.nc) scroll.scrollLeft = (c - view.nc + 1) * CELL_W;
        paint();
      },
      destroy() {
        resize.disconnect();
        scroll.removeEventListener('scroll', onScroll);
      },
    },
  };
}
