// The panel a chapter adds above its stages: the two sequences of cross-attention, the head
// groups and K/V sizes of grouped-query attention (with the real models), or the encoder
// layer's sub-layers, a decode step's costs, FlashAttention's tiles, the backward pass's chain
// and √d_k study, the models that use Modern attention's changes. update(panel | null);
// onPickHead(head), onLoadModel(id), onPickTile(ordinal), onPickStage(index).

import { assetUrl } from '../asset-url.js';
import { backward } from './backward-panel.js';
import { costs } from './cost-panels.js';
import { el, foldNotes, redrawingView } from './dom.js';
import { scrolling, table } from './panel-table.js';
import { masks, positions } from './position-panels.js';

function chips(list, className) {
  const ul = el('ul', `chips ${className}`);
  for (const item of list) ul.append(el('li', `chip${item.padding ? ' is-padding' : ''}`, item.text));
  return ul;
}

function sequences(root, p) {
  root.append(el('p', 'panel-label', 'Queries come from the target, X_q:'), chips(p.queries, 'queries'));
  root.append(el('p', 'panel-label', 'Keys and values come from the source, X_kv:'), chips(p.keys, 'keys'));
  root.append(
    el(
      'p',
      'panel-note',
      `So the weights are ${p.shape}: one row per target token, one column per source token.${
        p.keys.some((k) => k.padding) ? ' Struck-out source tokens are padding.' : ''
      }`,
    ),
  );
}

function groupDiagram(p, onPickHead) {
  const box = el('ol', 'kv-groups');
  box.setAttribute('aria-label', 'Which query heads share which K/V head');
  for (const g of p.groups) {
    const li = el('li', 'kv-group');
    li.append(el('span', 'kv-head', `K/V head ${g.kvHead}`));
    const heads = el('span', 'kv-queries');
    for (const h of g.heads) {
      const b = el('button', `head-button head-${h.head % 8}`, `Q${h.head}`);
      b.type = 'button';
      b.setAttribute('aria-pressed', String(h.current));
      b.setAttribute('aria-label', `Query head ${h.head}, reads K/V head ${g.kvHead}`);
      b.addEventListener('click', () => onPickHead(h.head));
      heads.append(b);
    }
    li.append(heads);
    box.append(li);
  }
  return box;
}

function modelsTable(p, onLoadModel) {
  const t = table(
    { headers: ['Model', 'd_model', 'heads', 'd_k', 'layers', 'K/V heads', ''], rows: [] },
    'models-table',
  );
  const tbody = t.querySelector('tbody');
  for (const m of p.models) {
    const tr = el('tr', m.current ? 'is-current' : null);
    const th = el('th', null, m.name);
    th.scope = 'row';
    tr.append(th, ...m.cells.map((c) => el('td', null, c)));
    const b = el('button', 'model-load', 'Load');
    b.type = 'button';
    b.setAttribute('aria-label', `Load the head geometry of ${m.name}`);
    b.addEventListener('click', () => onLoadModel(m.id));
    const td = el('td');
    td.append(b);
    tr.append(td);
    tbody.append(tr);
  }
  return t;
}

function groups(root, p, on) {
  root.append(el('p', 'panel-label', `This layer is ${p.name}: ${p.saving}.`));
  root.append(groupDiagram(p, on.onPickHead), table(p.sizes, 'kv-sizes'));
  root.append(
    el(
      'p',
      'panel-note',
      'One K/V head for every query head is ordinary multi-head attention; ' +
        'a single K/V head shared by all is multi-query attention (MQA).',
    ),
    el('p', 'panel-note gqa-quality', p.quality),
  );
  const details = el('details', 'real-models');
  details.open = Boolean(p.note);
  details.append(el('summary', null, 'Real models: load one\u2019s head geometry'), modelsTable(p, on.onLoadModel));
  details.append(el('p', 'panel-note models-footnote', p.footnote));
  if (p.note) details.append(el('p', 'panel-note model-note', p.note));
  root.append(details);
}

function layer(root, p) {
  const list = el('ol', 'layer-parts');
  for (const part of p.parts) {
    const li = el('li', `layer-part${part.current ? ' is-current' : ''}`, part.label);
    if (part.current) li.setAttribute('aria-current', 'step');
    list.append(li);
  }
  root.append(
    list,
    el(
      'p',
      'panel-note',
      `The feed-forward network widens each token from d_model = ${p.widths[0]} ` +
        `to d_ff = ${p.widths[1]} features and back to ${p.widths[2]}.`,
    ),
  );
}

function decode(root, p) {
  root.append(
    el(
      'p',
      'panel-label',
      `Step ${p.step}: token \u201c${p.token}\u201d is new. Its q, k and v are the only projections this ` +
        `step computes; the keys and values of the ${p.cached} earlier token${p.cached === 1 ? '' : 's'} ` +
        `are read from the cache, which now holds ${p.cacheBytes} bytes (float64).`,
    ),
  );
  root.append(table(p.macs, 'macs-table'));
  if (p.rows) {
    const rows = {
      headers: ['', ...p.rows.decoded.map((_, j) => String(j))],
      rows: [
        [`decode step ${p.step}`, ...p.rows.decoded],
        [`causal pass, row ${p.step}`, ...p.rows.causal],
      ],
    };
    const wrap = scrolling(
      table(rows, 'compare-table'),
      `Decode step ${p.step} beside row ${p.step} of the causal pass`,
    );
    root.append(
      el('p', 'panel-label', `The same row from one causal forward pass (largest difference ${p.difference}):`),
      wrap,
    );
  }
}

function tileGrid(p, onPickTile) {
  const grid = el('div', 'tile-grid');
  grid.setAttribute('role', 'group');
  grid.setAttribute('aria-label', 'Tiles: query blocks down, key blocks across');
  grid.style.gridTemplateColumns = p.grid[0].map((t) => `${t.cols[1] - t.cols[0]}fr`).join(' ');
  grid.style.gridTemplateRows = p.grid.map((r) => `${r[0].rows[1] - r[0].rows[0]}fr`).join(' ');
  for (const row of p.grid) {
    for (const t of row) {
      const name = `queries ${t.rows[0]}\u2013${t.rows[1] - 1}, keys ${t.cols[0]}\u2013${t.cols[1] - 1}`;
      const b = el('button', `tile is-${t.status}`, t.ordinal === null ? '\u2013' : String(t.ordinal));
      b.type = 'button';
      b.disabled = t.ordinal === null;
      b.setAttribute('aria-label', `Tile ${t.ordinal ?? ''} (${name}): ${t.status}`);
      if (t.status === 'current') b.setAttribute('aria-current', 'step');
      if (t.ordinal !== null) b.addEventListener('click', () => onPickTile(t.ordinal));
      grid.append(b);
    }
  }
  return grid;
}

function tiles(root, p, on) {
  const box = el('div', 'tile-box');
  box.append(tileGrid(p, on.onPickTile));
  const legend = el(
    'p',
    'panel-note',
    'Tiles in loop order: query blocks down, key blocks across. Done, current (outlined), ' +
      'still to come; \u2013 marks a tile the causal mask leaves nothing to do, skipped.',
  );
  box.append(legend);
  root.append(box, table(p.floats, 'floats-table'));
  root.append(
    el(
      'p',
      'panel-note',
      'Only one query block is live at a time, so the tiled count is one tile of logits and the \u03bc and Z ' +
        'of that block\u2019s rows, the same at any T. Neither count includes Q, K, V or the output O ' +
        '(T \u00d7 d_v), which both ways hold.',
    ),
  );
  root.append(
    el(
      'p',
      'panel-note',
      `Here every query block keeps its own U, \u03bc and Z while it sweeps all the key blocks ` +
        `(FlashAttention-2\u2019s order). FlashAttention-1 ran the key blocks in the outer loop instead, ` +
        `reading and writing every block\u2019s U, \u03bc and Z back to memory at each tile. Either way the result ` +
        `is ordinary attention: here it differs from it by at most ${p.difference} (absolute while every ` +
        `|value| is at most 1, relative to the largest |value| otherwise).`,
    ),
  );
  if (p.traffic) root.append(el('p', 'panel-note memory-traffic', p.traffic));
}

function designed(root, p, on) {
  const list = el('ol', 'designed-heads');
  for (const h of p.heads) {
    const li = el('li', `designed-head head-${h.head % 8}${h.current ? ' is-current' : ''}`);
    const b = el('button', `head-button head-${h.head % 8}`, `head ${h.head}`);
    b.type = 'button';
    b.setAttribute('aria-pressed', String(h.current));
    b.setAttribute('aria-label', `Head ${h.head}: ${h.name}`);
    b.addEventListener('click', () => on.onPickHead(h.head));
    const text = el('div', 'designed-text');
    text.append(el('strong', null, h.name), el('span', null, ` \u2014 ${h.key}`));
    li.append(b, text);
    list.append(li);
  }
  root.append(list);
  // How each head does it, one click away (foldNotes).
  for (const h of p.heads)
    root.append(el('p', 'panel-note', `Head ${h.head}, ${h.name}: ${h.more ? `${h.more} ` : ''}${h.construction}.`));
  root.append(el('p', 'panel-note', p.sizes));
  const learned = el('p', 'panel-note learned-link');
  const link = el('a', null, 'Heads that learn');
  link.href = assetUrl('training.html'); // beside the bundle, also inside a course page's element
  learned.append(
    'These heads were built by hand. In ',
    link,
    ' a small model learns a previous-token head and an induction head from next-token prediction, in seconds; ' +
      'the next chapter, Trained heads, steps through its trained weights.',
  );
  root.append(learned);
}

function trained(root, p) {
  root.append(el('p', 'panel-note', p.sizes), el('p', 'panel-note', p.heads));
  const retrain = el('p', 'panel-note learned-link');
  const link = el('a', null, 'Heads that learn');
  link.href = assetUrl('training.html');
  retrain.append(link, ' trains this model in your browser, reproduces these weights number for number, and ', p.more);
  root.append(retrain);
  const reading = el('details', 'further-reading');
  reading.append(el('summary', null, 'Further reading'));
  const refs = el('ul', 'reading-list');
  for (const r of p.reading) refs.append(el('li', null, r));
  reading.append(refs);
  root.append(reading);
}

// Each change in force: the models that use it, what the engine measured, the references.
function modern(root, p) {
  for (const c of p.changes) {
    root.append(
      el('p', 'panel-label', `${c.title} in published models:`),
      scrolling(table(c.models, 'models-table modern-models'), c.title),
    );
    if (c.measured)
      root.append(el('p', 'panel-label', 'In this run, by the engine:'), table(c.measured, 'modern-measured'));
    const refs = el('ul', 'reading-list');
    for (const r of c.references) refs.append(el('li', null, r));
    root.append(refs);
  }
  if (!p.changes.length)
    root.append(el('p', 'panel-note', 'None of this chapter\u2019s changes is on: set one in the configuration.'));
}

const DRAW = { sequences, groups, layer, decode, tiles, designed, trained, positions, masks, costs, backward, modern };

export function createChapterPanel(host, on) {
  const root = el('section', 'chapter-panel');
  root.setAttribute('aria-label', 'About this chapter');
  return redrawingView(host, root, (p) => {
    root.dataset.panel = p.kind;
    DRAW[p.kind](root, p, on);
    foldNotes(root, `panel-${p.kind}`);
  });
}
