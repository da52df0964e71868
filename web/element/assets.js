// What every <attention-stepper> on a page shares: its stylesheets, KaTeX's fonts in the
// document, one engine and one typesetter; its built files are found beside its bundle
// (asset-url.js). The engine's rest, KaTeX and the later script load after the first paint
// (engine.js, typeset.js, later/load.js).

import { SCRIPT_URL, assetUrl } from '../asset-url.js';
import { loadEngine } from '../engine.js';
import { loadLater } from '../later/load.js';
import { catalogFrom } from '../model/presets.js';
import { createTypesetter, preloadFirstFaces } from '../typeset.js';
import { whenPainted } from '../views/dom.js';

export const STYLESHEETS = ['vendor/katex/katex.min.css', 'attention-stepper.css'];

// Chromium ignores @font-face inside shadow roots: KaTeX's fonts must be declared in the document
// (and the first stages' faces asked for at once).
export function addDocumentFonts() {
  if (document.querySelector('link[data-attention-stepper="katex"]')) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = assetUrl('vendor/katex/katex.min.css');
  link.dataset.attentionStepper = 'katex';
  // The faces exist once the sheet is in: loaded then (from the preloads below), they are ready
  // before the first stage is laid out, not asked for by its first layout and drawn a frame late.
  link.addEventListener('load', () => preloadFirstFaces(SCRIPT_URL), { once: true });
  document.head.append(link);
  preloadFirstFaces(SCRIPT_URL); // the font files' preloads, at once
}

let shared = null;

/**
 * One engine (one WASM instance), its catalog and one typesetter for every element on the page:
 * { engine, catalog, typesetter, rest() }, rest() → a promise of the engine's rest (engine.js)
 * and the later script (later/load.js): what a first view beyond later/first-view.js needs.
 * The rest, KaTeX and the later script start loading after the first elements' paint.
 */
export function sharedEngine() {
  shared ??= loadEngine().then(({ engine, rest }) => {
    const typesetter = createTypesetter(SCRIPT_URL);
    whenPainted()
      .then(() => Promise.all([rest(), typesetter.load(), loadLater()]))
      .catch(() => {});
    const whole = () => Promise.all([rest(), loadLater()]).then(() => undefined);
    return { engine, catalog: catalogFrom(engine), typesetter, rest: whole };
  });
  return shared;
}
