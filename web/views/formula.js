// A TeX formula typeset by the KaTeX render function it is given (katex.render builds DOM nodes
// and sets styles through the CSSOM, which the page's CSP allows). update({ tex, display }).

import { el } from './dom.js';

export function createFormula(host, { render, className = 'formula' }) {
  const root = el('div', className);
  host.append(root);
  return {
    update({ tex, display = true }) {
      root.dataset.tex = tex;
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
