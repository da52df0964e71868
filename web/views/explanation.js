// A short paragraph of explanation. update({ text }).

import { el } from './dom.js';

export function createExplanation(host) {
  const root = el('p', 'explanation');
  host.append(root);
  return {
    update({ text }) {
      root.textContent = text;
    },
    destroy() {
      root.remove();
    },
  };
}
