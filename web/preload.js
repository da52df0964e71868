// The first script of index.html's, embed.html's and training.html's <head>, tiny and synchronous.
// Each holds its first view as markup (scripts/prerender-page.mjs), so only their stylesheets and the formula's
// font faces need arrive before the first paint: over http(s) this script preloads those faces at once
// (PRELOAD_FONTS: the build's first faces), so that they are in by the first layout and do not
// move the stage; after that paint it adds the page script and, over http(s), fetches and
// compiles the engine's core .wasm (globalThis.attentionStepperCore: { href, module: a promise of
// the compiled module }, which engine-split.js instantiates) and preloads the ES factory. From
// file:// Chromium refuses these fetches (CORS errors in the console): the page script alone, which
// loads the classic single-file engine. A <link rel=preload> in the HTML itself could not tell the
// two apart; an inline script the CSP (script-src 'self') would block.

const BASE = document.currentScript?.src || window.location.href;
// The page's script, added after the first paint: index.html's, or the one data-then names
// (embed.html: attention-stepper-embed.classic.js; training.html: its ES module, with data-module).
const PAGE_SCRIPT = document.currentScript?.dataset.then ?? 'attention-stepper-page.classic.js';
const PAGE_MODULE = document.currentScript?.dataset.module !== undefined; // training.html's script
const HTTP = /^https?:$/.test(new URL(BASE).protocol);

function preload(attributes) {
  const link = document.createElement('link');
  Object.assign(link, attributes, { crossOrigin: 'anonymous', href: new URL(attributes.href, BASE).href });
  document.head.append(link);
}

function preloadEngine() {
  const href = new URL('attention-wasm.core.wasm', BASE).href;
  if (WebAssembly.compileStreaming) {
    const module = WebAssembly.compileStreaming(fetch(href));
    module.catch(() => {}); // engine-split.js then fetches the core itself
    globalThis.attentionStepperCore = { href, module };
  }
  preload({ rel: 'modulepreload', href: 'attention-wasm.mjs' });
}

let started = false;
function start() {
  if (started) return;
  started = true;
  if (HTTP) preloadEngine();
  const script = document.createElement('script');
  if (PAGE_MODULE) script.type = 'module';
  script.src = new URL(PAGE_SCRIPT, BASE).href;
  document.head.append(script);
}

if (HTTP) for (const href of PRELOAD_FONTS) preload({ rel: 'preload', as: 'font', type: 'font/woff2', href });
// After the prerendered stage is painted: its first contentful paint where the browser reports
// it (a frame before the body is parsed paints nothing), else a frame after the document is
// parsed; a page with nothing to paint (embed.html as the build first opens it) once it has
// loaded; a hidden page paints nothing: at once.
window.addEventListener('load', () => document.body.textContent.trim() || start());
if (document.hidden) start();
else if (globalThis.PerformanceObserver?.supportedEntryTypes?.includes('paint')) {
  new PerformanceObserver((list, observer) => {
    if (!list.getEntriesByName('first-contentful-paint').length) return;
    observer.disconnect();
    setTimeout(start, 0);
  }).observe({ type: 'paint', buffered: true });
} else {
  document.addEventListener('DOMContentLoaded', () => requestAnimationFrame(() => setTimeout(start, 0)));
}
document.addEventListener('visibilitychange', () => document.hidden && start());
