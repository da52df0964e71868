// The stage's shape equation, e.g. (5, 16) @ (16, 4) → (5, 4), each dimension coloured the same
// on every stage with its symbol under it. update({ text, symbolic, tokens | null }).

import { el } from './dom.js';
import { drawShapeTokens } from './shape-tokens.js';

export function createShapeEquation(host) {
  const root = el('p', 'shape-eq');
  host.append(root);
  return {
    update({ text, symbolic, tokens }) {
      if (root.dataset.equation === text && root.dataset.symbolic === symbolic) return; // drawn
      root.dataset.symbolic = symbolic;
      root.setAttribute('aria-label', `Shape: ${text}, that is ${symbolic}`);
      if (tokens) {
        drawShapeTokens(root, tokens, { stacked: true });
      } else {
        root.textContent = `${text}   ${symbolic}`;
      }
      root.dataset.equation = text;
    },
    destroy() {
      root.remove();
    },
  };
}
