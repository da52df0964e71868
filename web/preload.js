// The first script of index.html's <head>, tiny and synchronous, so that the first paint's longest
// waits start while the page script is still on its way: it asks for the engine's core .wasm,
// the ES factory that instantiates it and the opening formulas' font faces (PRELOAD_FONTS: the
// build's first faces). Over http(s) only: from file:// Chromium refuses these fetches (CORS
// errors in the console) and the page loads the classic single-file engine instead.
// A <link rel=preload> in the HTML itself could not tell the two apart; an inline script the
// CSP (script-src 'self') would block. engine-split.js's fetch of the core (mode cors,
// credentials same-origin) matches the preload's as=fetch crossorigin, so it is fetched once.

const BASE = document.currentScript?.src || window.location.href;
const LINKS = [
  { rel: 'preload', as: 'fetch', href: 'attention-wasm.core.wasm', fetchPriority: 'high' },
  { rel: 'modulepreload', href: 'attention-wasm.mjs' },
  ...PRELOAD_FONTS.map((href) => ({ rel: 'preload', as: 'font', type: 'font/woff2', href })),
];

if (/^https?:$/.test(new URL(BASE).protocol)) {
  for (const { href, ...attributes } of LINKS) {
    const link = document.createElement('link');
    Object.assign(link, attributes, { crossOrigin: 'anonymous', href: new URL(href, BASE).href });
    document.head.append(link);
  }
}
