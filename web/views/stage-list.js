// The clickable list of stages, in groups. update({ groups: [{ id, title, items: [{ index,
// label, current, done }] }] }); onSelect(index) when an item is chosen.

import { el } from './dom.js';

function item(entry, onSelect) {
  const li = el('li');
  const button = el('button', `stage-item${entry.done ? ' is-done' : ''}`, entry.label);
  button.type = 'button';
  button.dataset.index = entry.index;
  if (entry.current) button.setAttribute('aria-current', 'step');
  button.addEventListener('click', () => onSelect(entry.index));
  li.append(button);
  return li;
}

export function createStageList(host, { onSelect }) {
  const root = el('div', 'stage-list');
  host.append(root);
  return {
    update({ groups }) {
      root.textContent = '';
      for (const group of groups) {
        const section = el('section', `stage-group group-${group.id}`);
        const title = el('h3', 'stage-group-title', group.title);
        const list = el('ol');
        for (const entry of group.items) list.append(item(entry, onSelect));
        section.append(title, list);
        root.append(section);
      }
    },
    destroy() {
      root.remove();
    },
  };
}
