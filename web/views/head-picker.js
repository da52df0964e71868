// One toggle button per head. update({ heads: [{ head, label, current }] } | null).

import { el, redrawingView } from './dom.js';

export function createHeadPicker(host, { onPick }) {
  const root = el('div', 'head-picker');
  root.setAttribute('role', 'group');
  root.setAttribute('aria-label', 'Head');
  return redrawingView(host, root, (view) => {
    root.append(el('span', 'head-picker-label', 'Head'));
    for (const h of view.heads) {
      const b = el('button', `head-button head-${h.head % 8}`, h.label);
      b.type = 'button';
      b.setAttribute('aria-pressed', String(h.current));
      b.setAttribute('aria-label', `Head ${h.label}`);
      b.addEventListener('click', () => onPick(h.head));
      root.append(b);
    }
  });
}
