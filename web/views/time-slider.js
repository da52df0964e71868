// The second axis: a slider over the decode steps (or tiles) with its label. The input is kept
// across updates, so that a drag is not cut short. update({ max, value, label } | null);
// onChange(value).

import { el } from './dom.js';

export function createTimeSlider(host, { onChange }) {
  const root = el('div', 'time-slider');
  const label = el('label', 'time-label');
  const range = el('input');
  range.type = 'range';
  range.id = 'time-range';
  range.min = '0';
  label.htmlFor = range.id;
  range.setAttribute('aria-keyshortcuts', 'ArrowUp ArrowDown');
  range.addEventListener('input', () => onChange(Number(range.value)));
  root.append(label, range);
  host.append(root);
  return {
    update(view) {
      root.hidden = !view;
      if (!view) return;
      label.textContent = view.label;
      range.max = String(view.max);
      if (range.value !== String(view.value)) range.value = String(view.value);
      range.setAttribute('aria-valuetext', view.label);
    },
    destroy() {
      root.remove();
    },
  };
}
