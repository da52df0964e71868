// A labelled checkbox that can be hidden. update({ visible, checked }); onChange(checked).

import { el } from './dom.js';

export function createToggle(host, { label, onChange, className = 'toggle' }) {
  const root = el('label', className);
  const box = el('input');
  box.type = 'checkbox';
  box.addEventListener('change', () => onChange(box.checked));
  root.append(box, el('span', null, label));
  host.append(root);
  return {
    update({ visible, checked }) {
      root.hidden = !visible;
      box.checked = Boolean(checked);
    },
    destroy() {
      root.remove();
    },
  };
}
