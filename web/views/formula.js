// A TeX formula typeset by the KaTeX render function it is given (katex.render builds DOM nodes
// and sets styles through the CSSOM, which the page's CSP allows). update({ tex, display }).
// The same formula again (a new trace, the same stage) is not typeset again.

import { el } from './dom.js';

export function createFormula(host, { render, className = 'formula' }) {
  const root = el('div', className);
  host.append(root);
  let shown = null;
  return {
    update({ tex, display = true }) {
      if (shown === `${display}:${tex}` && !root.dataset.error) return;
      shown = `${display}:${tex}`;
      root.dataset.tex = tex;
      delete root.dataset.error;
      try {
        render(tex, root, { displayMode: display, throwOnError: true, output: 'htmlAndMathml' });
      } catch (error) {
        root.textContent = tex; // show the source rather than nothing
        root.dataset.error = error.message;
      }
    },
    destroy() {
      root.remove();
    },
  };
}
