// The clickable list of stages, in groups. update({ groups: [{ id, title, items: [{ index,
// label, current, done }] }] }); onSelect(index) when an item is chosen. Rebuilt only when the
// groups or their items change; moving through them marks the current and done items in place.

import { el } from './dom.js';

function item(entry, onSelect) {
  const li = el('li');
  const button = el('button', 'stage-item', entry.label);
  button.type = 'button';
  button.dataset.index = entry.index;
  button.addEventListener('click', () => onSelect(entry.index));
  li.append(button);
  return li;
}

function mark(button, entry) {
  button.classList.toggle('is-done', entry.done);
  if (entry.current) button.setAttribute('aria-current', 'step');
  else button.removeAttribute('aria-current');
}

const outline = (groups) => JSON.stringify(groups.map((g) => [g.id, g.title, g.items.map((i) => [i.index, i.label])]));

export function createStageList(host, { onSelect }) {
  const root = el('div', 'stage-list');
  host.append(root);
  let drawn = '';
  let buttons = [];
  return {
    update({ groups }) {
      const now = outline(groups);
      if (now !== drawn) {
        root.textContent = '';
        for (const group of groups) {
          const section = el('section', `stage-group group-${group.id}`);
          const title = el('h3', 'stage-group-title', group.title);
          const list = el('ol');
          for (const entry of group.items) list.append(item(entry, onSelect));
          section.append(title, list);
          root.append(section);
        }
        buttons = [...root.querySelectorAll('button.stage-item')];
        drawn = now;
      }
      groups.flatMap((g) => g.items).forEach((entry, k) => mark(buttons[k], entry));
    },
    destroy() {
      root.remove();
    },
  };
}
