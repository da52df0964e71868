// What every <attention-stepper> on a page shares: where the built files are, KaTeX's fonts in
// the document, and one engine. The ES bundle finds its files from import.meta.url; the classic
// bundle from its own <script> src, captured while it runs (document.currentScript is null later).

import { createEngine } from '../engine.js';
import { catalogFrom } from '../model/presets.js';

/* global ATTENTION_STEPPER_CLASSIC */
const CLASSIC = typeof ATTENTION_STEPPER_CLASSIC !== 'undefined' && ATTENTION_STEPPER_CLASSIC;
const SCRIPT_URL = (typeof document !== 'undefined' && document.currentScript?.src) || import.meta.url;
const FACTORY_FILE = 'attention-wasm.classic.js';

/** The URL of a built file (dist/…) beside the bundle. */
export function assetUrl(file) {
  return new URL(file, SCRIPT_URL).href;
}

export const STYLESHEETS = ['vendor/katex/katex.min.css', 'attention-stepper.css'];

// Chromium ignores @font-face inside shadow roots: KaTeX's fonts must be declared in the document.
export function addDocumentFonts() {
  if (document.querySelector('link[data-attention-stepper="katex"]')) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = assetUrl('vendor/katex/katex.min.css');
  link.dataset.attentionStepper = 'katex';
  document.head.append(link);
}

// The classic engine needs the global factory; a page that forgot its <script> gets it here.
function loadFactory() {
  if (typeof globalThis.createAttentionModule === 'function') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = assetUrl(FACTORY_FILE);
    script.addEventListener('load', () => resolve());
    script.addEventListener('error', () => reject(new Error(`${script.src} could not be loaded`)));
    document.head.append(script);
  });
}

let shared = null;

/** One engine (one WASM instance) and its catalog for every element on the page: { engine, catalog }. */
export function sharedEngine() {
  shared ??= (CLASSIC ? loadFactory() : Promise.resolve()).then(() => createEngine()).then((engine) => ({ engine, catalog: catalogFrom(engine) }));
  return shared;
}
