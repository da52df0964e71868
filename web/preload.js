// The first script of index.html's <head>, tiny and synchronous, so that the first paint's longest
// waits start while the page script is still on its way: it fetches and compiles the engine's
// core .wasm (globalThis.attentionStepperCore: { href, module: a promise of the compiled module },
// which engine-split.js instantiates), preloads the ES factory and the opening formulas' font
// faces (PRELOAD_FONTS: the build's first faces). Over http(s) only: from file:// Chromium refuses
// these fetches (CORS errors in the console) and the page loads the classic single-file engine.
// A <link rel=preload> in the HTML itself could not tell the two apart; an inline script the
// CSP (script-src 'self') would block.

const BASE = document.currentScript?.src || window.location.href;
const LINKS = [
  { rel: 'modulepreload', href: 'attention-wasm.mjs' },
  ...PRELOAD_FONTS.map((href) => ({ rel: 'preload', as: 'font', type: 'font/woff2', href })),
];

if (/^https?:$/.test(new URL(BASE).protocol)) {
  const href = new URL('attention-wasm.core.wasm', BASE).href;
  if (WebAssembly.compileStreaming) {
    const module = WebAssembly.compileStreaming(fetch(href));
    module.catch(() => {}); // engine-split.js then fetches the core itself
    globalThis.attentionStepperCore = { href, module };
  }
  for (const { href, ...attributes } of LINKS) {
    const link = document.createElement('link');
    Object.assign(link, attributes, { crossOrigin: 'anonymous', href: new URL(href, BASE).href });
    document.head.append(link);
  }
}
