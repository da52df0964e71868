// A short paragraph of explanation. update({ text, stage }). steady: within one stage (update's
// stage), the paragraph never grows shorter, so a config change that rewords it (W_O off: the
// concat is the output) moves nothing below it.

import { el, setText, steadyHeight } from './dom.js';

export function createExplanation(host, { steady = false } = {}) {
  const root = el('p', 'explanation');
  host.append(root);
  const height = steady ? steadyHeight(root) : null;
  return {
    update({ text, stage = null }) {
      height?.hold(stage);
      setText(root, text);
    },
    destroy() {
      height?.stop();
      root.remove();
    },
  };
}
