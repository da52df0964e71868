// A panel's table: a header row of column headings, then rows whose first cell heads the row.
// { headers: [text], rows: [[text]] } → <table>.

import { el } from './dom.js';

/** t inside a group that may scroll sideways, focusable so that keyboards can scroll it. */
export function scrolling(t, label) {
  const wrap = el('div', 'row-compare');
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'group');
  wrap.setAttribute('aria-label', label);
  wrap.append(t);
  return wrap;
}

export function table({ headers, rows }, className) {
  const t = el('table', className);
  const head = el('tr');
  for (const h of headers) {
    const th = el('th', null, h);
    th.scope = 'col';
    head.append(th);
  }
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  for (const cells of rows) {
    const tr = el('tr');
    cells.forEach((c, i) => {
      const td = el(i === 0 ? 'th' : 'td', null, c);
      if (i === 0) td.scope = 'row';
      tr.append(td);
    });
    tbody.append(tr);
  }
  t.append(thead, tbody);
  return t;
}
