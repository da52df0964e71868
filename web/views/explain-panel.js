// "Explain a number": the chosen cell's formula in symbols, then filled with the numbers, and a
// table of every term. update({ title, value, symbolicTex, filledTex, table } | null).

import { el, redrawingView } from './dom.js';
import { createFormula } from './formula.js';

function termsTable(table) {
  const t = el('table', 'terms');
  const head = el('tr');
  for (const h of table.headers) {
    const th = el('th', null, h);
    th.scope = 'col';
    head.append(th);
  }
  const thead = el('thead');
  thead.append(head);
  const row = (cells, tag) => {
    const tr = el('tr');
    cells.forEach((c, i) => {
      const td = el(i === 0 ? 'th' : tag, null, c.text);
      if (i === 0) td.scope = 'row';
      if (c.full !== undefined) {
        td.title = c.full;
        td.dataset.full = c.full;
      }
      tr.append(td);
    });
    return tr;
  };
  const tbody = el('tbody');
  for (const cells of table.rows) tbody.append(row(cells, 'td'));
  const tfoot = el('tfoot');
  tfoot.append(row(table.footer, 'td'));
  t.append(thead, tbody, tfoot);
  return t;
}

export function createExplainPanel(host, { render, onClose }) {
  const root = el('section', 'explain-panel');
  root.setAttribute('aria-labelledby', 'explain-title');
  return redrawingView(host, root, (view) => {
    const header = el('div', 'explain-header');
    const title = el('h2', 'explain-title', `Explain ${view.title}`);
    title.id = 'explain-title';
    const close = el('button', 'explain-close', 'Close');
    close.type = 'button';
    close.addEventListener('click', onClose);
    header.append(title, close);
    const value = el('p', 'explain-value', `Value: ${view.value.text}  (full precision ${view.value.full})`);
    value.dataset.full = view.value.full;
    root.append(header, value);
    createFormula(root, { render, className: 'explain-symbolic' }).update({ tex: view.symbolicTex, display: true });
    // Long sums may scroll sideways: the wrapper takes focus so keyboards can scroll it too.
    const filled = el('div', 'explain-filled-wrap');
    filled.tabIndex = 0;
    filled.setAttribute('role', 'group');
    filled.setAttribute('aria-label', 'The formula with the engine\u2019s numbers');
    root.append(filled);
    createFormula(filled, { render, className: 'explain-filled' }).update({ tex: view.filledTex, display: false });
    if (view.table) {
      const details = el('details', 'explain-terms');
      details.open = view.table.rows.length <= 16;
      const n = view.table.rows.length;
      details.append(el('summary', null, n === 1 ? 'The one term' : `All ${n} terms`), termsTable(view.table));
      root.append(details);
    }
  });
}
