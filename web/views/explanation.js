// A short paragraph of explanation. update({ text }).

import { el, setText } from './dom.js';

export function createExplanation(host) {
  const root = el('p', 'explanation');
  host.append(root);
  return {
    update({ text }) {
      setText(root, text);
    },
    destroy() {
      root.remove();
    },
  };
}
