// The KV-cache size calculator: context length, data type and batch, a custom model, and the
// table of sizes. update(view | null); onChange(field, value).

import { el, foldNotes, redrawingView } from './dom.js';

function input(view, field, label, onChange) {
  const wrap = el('div', `field field-calc-${field}`);
  const id = `calc-${field}`;
  const l = el('label', null, label);
  l.htmlFor = id;
  const box = el('input');
  box.id = id;
  box.type = 'text';
  box.inputMode = 'numeric';
  box.value = view.calc[field];
  box.addEventListener('change', () => onChange(field, box.value));
  wrap.append(l, box);
  return wrap;
}

function dtypeSelect(view, onChange) {
  const wrap = el('div', 'field field-calc-dtype');
  const l = el('label', null, 'data type');
  const select = el('select');
  select.id = 'calc-dtype';
  l.htmlFor = select.id;
  for (const d of view.dtypes) {
    const o = el('option', null, d.label);
    o.value = d.id;
    o.selected = d.id === view.calc.dtype;
    select.append(o);
  }
  select.addEventListener('change', () => onChange('dtype', select.value));
  wrap.append(l, select);
  return wrap;
}

function sizes(view) {
  const t = el('table', 'kv-calc-table');
  const head = el('tr');
  for (const h of view.headers) {
    const th = el('th', null, h);
    th.scope = 'col';
    head.append(th);
  }
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  for (const r of view.rows) {
    const tr = el('tr', r.error ? 'is-error' : r.capped ? 'is-capped' : null);
    tr.dataset.row = r.id;
    const th = el('th', null, r.name);
    th.scope = 'row';
    tr.append(th);
    r.cells.forEach((c, i) => {
      const td = el('td', null, c);
      if (r.error && i === 1) td.colSpan = 4;
      tr.append(td);
    });
    tbody.append(tr);
  }
  t.append(thead, tbody);
  return t;
}

export function createKvCalculator(host, { onChange }) {
  const root = el('section', 'kv-calculator');
  root.setAttribute('aria-labelledby', 'kv-calc-title');
  return redrawingView(host, root, (view) => {
    const title = el('h3', 'kv-calc-title', 'How big is a real KV cache?');
    title.id = 'kv-calc-title';
    const note = el(
      'p',
      'panel-note',
      'Bytes = 2 (K and V) \u00b7 tokens \u00b7 d_k \u00b7 K/V heads \u00b7 layers \u00b7 ' +
        'bytes per value \u00b7 batch, with d_v = d_k as in every model listed, computed by the engine. ' +
        'A formula often quoted ' +
        'multiplies by all heads: right for GPT-2 and GPT-3, whose every head keeps its own K ' +
        'and V, but too big for LLaMA 3, whose 32 or 64 query heads share 8 K/V heads. No model ' +
        'caches more tokens than its context window holds: a longer context length is sized at ' +
        'that limit, and the row says so.',
    );
    const form = el('div', 'field-grid kv-calc-inputs');
    form.append(
      input(view, 'context', 'context length (seqLen)', onChange),
      dtypeSelect(view, onChange),
      input(view, 'batch', 'batch', onChange),
    );
    const custom = el('div', 'field-grid kv-calc-custom');
    custom.setAttribute('role', 'group');
    custom.setAttribute('aria-label', 'The custom row');
    custom.append(
      input(view, 'dHead', 'custom: d_k', onChange),
      input(view, 'heads', 'custom: heads', onChange),
      input(view, 'kvHeads', 'custom: K/V heads', onChange),
      input(view, 'layers', 'custom: layers', onChange),
    );
    const scroll = el('div', 'kv-calc-scroll');
    scroll.tabIndex = 0;
    scroll.setAttribute('role', 'group');
    scroll.setAttribute('aria-label', 'KV cache sizes');
    scroll.append(sizes(view));
    root.append(title, note, form, custom, scroll);
    foldNotes(root, 'kv-calculator');
  });
}
