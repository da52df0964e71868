// Head pruning: a switch per head, the change pruning makes, and a bar per head for pruning it
// alone. update(view | null); onToggle(head).

import { el, foldNotes, redrawingView } from './dom.js';

function switches(view, onToggle) {
  const group = el('div', 'prune-switches');
  group.setAttribute('role', 'group');
  group.setAttribute('aria-label', 'Prune heads');
  group.append(el('span', 'prune-label', 'Prune'));
  for (const h of view.heads) {
    const b = el('button', `head-button head-${h.head % 8}`, `head ${h.head}`);
    b.type = 'button';
    b.setAttribute('aria-pressed', String(h.pruned));
    b.setAttribute('aria-label', `Prune head ${h.head}`);
    b.addEventListener('click', () => onToggle(h.head));
    group.append(b);
  }
  return group;
}

function bars(view) {
  const list = el('ol', 'prune-bars');
  list.setAttribute('aria-label', 'Change of the output when each head alone is pruned');
  for (const b of view.bars) {
    const li = el('li', 'prune-bar');
    const track = el('span', 'prune-track');
    const fill = el('span', `prune-fill head-${b.head % 8}`);
    fill.style.width = `${(b.share * 100).toFixed(1)}%`;
    track.append(fill);
    li.append(el('span', 'prune-head', `head ${b.head}`), track, el('span', 'prune-value', b.text));
    list.append(li);
  }
  return list;
}

export function createPruning(host, { onToggle }) {
  const root = el('section', 'pruning');
  root.setAttribute('aria-labelledby', 'pruning-title');
  return redrawingView(host, root, (view) => {
    const title = el('h3', 'pruning-title', 'Prune heads');
    title.id = 'pruning-title';
    const now =
      view.change === null
        ? 'No head is pruned. Switch one off to zero its columns before W_O.'
        : `Pruning head${view.pruned.length > 1 ? 's' : ''} ${view.pruned.join(', ')} changes ` +
          `the output by ${view.change} (\u2016\u0394output\u2016 / \u2016output\u2016).`;
    root.append(title, switches(view, onToggle), el('p', 'prune-change', now));
    root.append(el('p', 'panel-label', 'Each head pruned alone:'), bars(view), el('p', 'panel-note', view.note));
    foldNotes(root, 'pruning');
  });
}
