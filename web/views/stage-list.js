// The clickable list of stages, in groups. update({ groups: [{ id, title, items: [{ index,
// label, current, done }] }] }); onSelect(index) when an item is chosen. An item whose index is
// null is a stage this configuration leaves out, kept in its place: listed, not clickable. A new
// outline (another chapter, another number of heads) keeps every group and item it shares with
// the last one and inserts or removes only the rest: rebuilding the list restyled and laid out
// all of it on each such edit. Moving through the stages marks the current and done items. A
// collapsible group shows its items while `open` (the current stage is in it) or while the
// reader has opened it with the toggle that is its title.

import { el, setText } from './dom.js';

function item(onSelect) {
  const li = el('li');
  const button = el('button', 'stage-item');
  button.type = 'button';
  button.addEventListener('click', () => onSelect(Number(button.dataset.index)));
  li.append(button);
  return li;
}

function mark(button, entry) {
  button.classList.toggle('is-done', entry.done);
  if (entry.current) button.setAttribute('aria-current', 'step');
  else button.removeAttribute('aria-current');
}

// parent's children become nodes, in order, moving none that stays: the ones not kept leave
// first, so only new nodes are inserted.
function reconcile(parent, nodes) {
  const keep = new Set(nodes);
  for (const child of [...parent.children]) if (!keep.has(child)) child.remove();
  nodes.forEach((node, i) => {
    if (parent.children[i] !== node) parent.insertBefore(node, parent.children[i] ?? null);
  });
}

// A node for each key, made once and kept while the outline has it; keys seen again in one
// outline (two items with one label) count up.
function keyed(made, make) {
  const seen = new Map();
  const used = new Map();
  return {
    get(key) {
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      const id = `${key}#${n}`;
      const node = made.get(id) ?? make();
      used.set(id, node);
      return node;
    },
    used,
  };
}

export function createStageList(host, { onSelect }) {
  const root = el('div', 'stage-list');
  host.append(root);
  let sections = new Map(); // 'group id#1' → { section, title, list }
  let items = new Map(); // 'group id\0label#n' (n: the label's count in its group) → li
  const opened = new Set(); // the collapsible groups the reader opened
  let last = null;
  const makeGroup = () => {
    const group = { section: el('section'), title: el('h3', 'stage-group-title'), list: el('ol') };
    group.section.append(group.title, group.list);
    return group;
  };
  // A collapsible group's title: a button that shows or hides its items.
  const toggleOf = (group, id) => {
    if (!group.toggle) {
      group.toggle = el('button', 'stage-group-toggle');
      group.toggle.type = 'button';
      group.toggle.addEventListener('click', () => {
        if (opened.has(id)) opened.delete(id);
        else opened.add(id);
        update(last);
      });
    }
    return group.toggle;
  };
  const title = (group, g) => {
    if (!g.collapsible) {
      setText(group.title, g.title);
      group.list.hidden = false;
      return;
    }
    const toggle = toggleOf(group, g.id);
    const open = g.open || opened.has(g.id);
    if (group.title.firstChild !== toggle) group.title.replaceChildren(toggle);
    setText(toggle, g.title);
    toggle.setAttribute('aria-expanded', String(open));
    group.list.hidden = !open;
  };
  function update(outline) {
    last = outline;
    const groupsNow = keyed(sections, makeGroup);
    const itemsNow = keyed(items, () => item(onSelect));
    const shown = outline.groups.map((g) => {
      const group = groupsNow.get(g.id);
      const className = `stage-group group-${g.id}`;
      if (group.section.className !== className) group.section.className = className;
      title(group, g);
      const lis = g.items.map((entry) => {
        const li = itemsNow.get(`${g.id}\u0000${entry.label}`);
        const button = li.firstChild;
        setText(button, entry.label);
        button.disabled = entry.index === null;
        if (!button.disabled && button.dataset.index !== String(entry.index)) button.dataset.index = entry.index;
        mark(button, entry);
        return li;
      });
      reconcile(group.list, lis);
      return group.section;
    });
    reconcile(root, shown);
    sections = groupsNow.used;
    items = itemsNow.used;
  }
  return {
    update,
    destroy() {
      root.remove();
    },
  };
}
