// A labelled checkbox that can be hidden. update({ visible, checked, label? }); onChange(checked).

import { el } from './dom.js';

export function createToggle(host, { label, onChange, className = 'toggle' }) {
  const root = el('label', className);
  const box = el('input');
  box.type = 'checkbox';
  box.addEventListener('change', () => onChange(box.checked));
  const text = el('span', null, label);
  root.append(box, text);
  host.append(root);
  return {
    update({ visible, checked, label: now }) {
      root.hidden = !visible;
      box.checked = Boolean(checked);
      if (now) text.textContent = now;
    },
    destroy() {
      root.remove();
    },
  };
}
