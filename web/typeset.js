// Formulas without KaTeX's runtime before the first paint. The stage table's formulas come
// typeset at build time (scripts/prerender-formulas.mjs: KaTeX's own HTML and MathML for every
// formula the examples show): the opening stages' in this bundle, the others in the later script
// (later/load.js); KaTeX itself (attention-stepper-katex.js, one classic script per page) loads
// after the first paint, for explain-a-number's lines and any formula the build did not meet.
// Until its HTML or KaTeX is in, a formula shows its TeX and is typeset when they arrive.
//   createTypesetter(baseUrl) → { render(tex, root, options), load() }: render has
//   katex.render's signature and throws its errors once KaTeX is in; load() → a promise of KaTeX,
//   and it fetches the later faces of the formulas' fonts (scripts/subset-fonts.mjs: the first
//   paint fetched only the first stages' glyphs), so that a later stage does not wait for them.
//   preloadFirstFaces(baseUrl): asks for the first stages' faces now, before a formula is laid
//   out (over http; from file:// the fonts come when the formula asks), and loads them into the
//   document's fonts, so that the first layout finds them in (a face first met by a layout is
//   fetched, decoded and the text laid out again, a frame or two later).

import { FIRST_FACES, FIRST_FONTS, PRERENDERED } from 'attention-stepper:prerendered-formulas';
import { laterNow, loadLater } from './later/load.js';

const KATEX_FILE = 'attention-stepper-katex.js';
const GLOBAL = 'attentionStepperKatex';

let katex = null;
let loading = null;
const waiting = new Map(); // root → [tex, options]: shown as TeX until KaTeX is in
const fragments = new Map(); // tex → the prerendered DocumentFragment, parsed once

// KaTeX's inline styles travel as data-s="prop: value; …" and are set through the CSSOM, which
// the page's style-src 'self' allows (a style attribute in parsed HTML it would block). The HTML
// is the build's output for a formula of the stage table, never text from a reader.
function parsePrerendered(html) {
  const template = document.createElement('template');
  template.innerHTML = html;
  for (const node of template.content.querySelectorAll('[data-s]')) {
    for (const declaration of node.dataset.s.split(';')) {
      const colon = declaration.indexOf(':');
      if (colon > 0) node.style.setProperty(declaration.slice(0, colon).trim(), declaration.slice(colon + 1).trim());
    }
    node.removeAttribute('data-s');
  }
  return template.content;
}

function prerendered(tex) {
  const html = PRERENDERED[tex] ?? laterNow()?.formulas[tex];
  if (html === undefined) return null;
  if (!fragments.has(tex)) fragments.set(tex, parsePrerendered(html));
  return fragments.get(tex).cloneNode(true);
}

// Typesets what waits and can be typeset now: from the later script's HTML, else with KaTeX.
function typesetWaiting() {
  for (const [root, [tex, options]] of waiting) {
    if (!root.isConnected || root.dataset.tex !== tex) {
      // redrawn or gone meanwhile
      waiting.delete(root);
      continue;
    }
    const ready = options.displayMode ? prerendered(tex) : null;
    if (!ready && !katex) continue;
    waiting.delete(root);
    try {
      if (ready) root.replaceChildren(ready);
      else katex.render(tex, root, options);
    } catch (error) {
      root.dataset.error = error.message; // the TeX stays, as createFormula shows it
    }
  }
}

export function preloadFirstFaces(baseUrl) {
  if (typeof document === 'undefined' || new URL(baseUrl).protocol === 'file:') return;
  for (const file of FIRST_FACES) {
    const href = new URL(file, baseUrl).href;
    if ([...document.querySelectorAll('link[rel="preload"][as="font"]')].some((l) => l.href === href)) continue;
    const link = document.createElement('link');
    Object.assign(link, { rel: 'preload', as: 'font', type: 'font/woff2', crossOrigin: 'anonymous', href });
    document.head.append(link);
  }
  document.fonts?.forEach((face) => {
    if (face.status === 'unloaded' && FIRST_FONTS.some((first) => isFace(face, first))) face.load().catch(() => {});
  });
}

// Whether a FontFace of the document is the build's first face { family, style, weight, text }:
// KaTeX's own faces (no unicode-range) and the later faces do not cover its text's first character.
function isFace(face, { family, style, weight, text }) {
  if (face.family.replace(/"/g, '') !== family || face.style !== style || face.weight !== weight) return false;
  const code = text.codePointAt(0);
  return face.unicodeRange.split(',').some((range) => {
    const [from, to = from] = range.trim().replace(/^U\+/i, '').split('-');
    return parseInt(from, 16) <= code && code <= parseInt(to, 16) && to.length < 6;
  });
}

// The build's small KaTeX faces (a unicode-range of their own; KaTeX's whole fonts have none)
// that no formula has asked for yet.
function loadLaterFaces() {
  if (typeof document === 'undefined' || !document.fonts?.forEach) return;
  document.fonts.forEach((face) => {
    if (/KaTeX_/.test(face.family) && face.unicodeRange !== 'U+0-10FFFF' && face.status === 'unloaded')
      face.load().catch(() => {});
  });
}

function loadKatex(baseUrl) {
  katex ??= globalThis[GLOBAL] ?? null;
  if (katex) return Promise.resolve(katex);
  loading ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = new URL(KATEX_FILE, baseUrl).href;
    script.addEventListener('load', () => {
      katex = globalThis[GLOBAL];
      typesetWaiting();
      resolve(katex);
    });
    script.addEventListener('error', () => reject(new Error(`${script.src} could not be loaded`)));
    document.head.append(script);
  });
  return loading;
}

export function createTypesetter(baseUrl) {
  return {
    render(tex, root, options = {}) {
      waiting.delete(root);
      const ready = options.displayMode ? prerendered(tex) : null;
      if (ready) return void root.replaceChildren(ready);
      if (katex) return katex.render(tex, root, options);
      root.textContent = tex;
      waiting.set(root, [tex, options]);
      // The later script may hold its HTML; if not (or it cannot load), KaTeX. The TeX stays
      // readable if neither can.
      const later = options.displayMode && !laterNow() ? loadLater().then(typesetWaiting) : Promise.resolve();
      later
        .catch(() => {})
        .then(() => waiting.has(root) && loadKatex(baseUrl))
        .catch(() => {});
      return undefined;
    },
    load() {
      const loaded = loadKatex(baseUrl);
      loaded.then(loadLaterFaces, () => {}); // once the script is in: well after the first paint
      return loaded;
    },
  };
}
