// A TeX formula typeset by the KaTeX render function it is given (katex.render builds DOM nodes
// and sets styles through the CSSOM, which the page's CSP allows). update({ tex, display, stage }).
// Each formula is typeset into a face of its own. The last few faces shown stay in the root,
// hidden by content-visibility (panels.css), which keeps their style and layout: showing one
// again (the causal mask switched off and on, a step back) typesets, styles and lays out nothing
// new, where a new face cost about 5 ms of a frame.

import { el, scrollCue, steadyHeight } from './dom.js';

const KEPT = 4; // faces kept, the one shown among them

function typeset(render, tex, display) {
  const face = el('div', 'formula-face');
  face.dataset.tex = tex;
  try {
    render(tex, face, { displayMode: display, throwOnError: true, output: 'htmlAndMathml' });
  } catch (error) {
    face.textContent = tex; // show the source rather than nothing
    face.dataset.error = error.message;
  }
  return face;
}

/** steady: within one stage (update's stage), the formula's area never grows shorter; cue: host
 * scrolls, and marks the sides it has more of the formula beyond (dom.js's scrollCue). */
export function createFormula(host, { render, className = 'formula', steady = false, cue = false }) {
  const root = el('div', className);
  host.append(root);
  const mark = cue ? scrollCue(host) : () => {};
  const faces = new Map(); // `${display}:${tex}` → face, the least recently shown first
  const height = steady ? steadyHeight(root) : null;
  let shown = null;
  return {
    update({ tex, display = true, stage = null }) {
      height?.hold(stage);
      const key = `${display}:${tex}`;
      let face = faces.get(key);
      if (face?.dataset.error) {
        face.remove(); // typeset again: KaTeX may have come in since
        face = null;
      }
      if (face && face === shown) return;
      if (!face) root.append((face = typeset(render, tex, display)));
      faces.delete(key);
      faces.set(key, face);
      shown?.classList.add('is-kept');
      face.classList.remove('is-kept');
      shown = face;
      root.dataset.tex = tex; // the formula shown
      mark();
      for (const [old, kept] of faces) {
        if (faces.size <= KEPT) break;
        faces.delete(old);
        kept.remove();
      }
    },
    destroy() {
      height?.stop();
      root.remove();
    },
  };
}
