// The engine for the classic-script bundle, which must also run from file://: there
// Chromium allows neither ES modules nor fetching a .wasm, so the page first loads
// attention-wasm.classic.js (the wasm inlined) with a plain <script>, which defines
// createAttentionModule globally.
import { wrapEngine } from './engine-api.js';

export async function createEngine() {
  const factory = globalThis.createAttentionModule;
  if (typeof factory !== 'function') {
    throw new Error('attention-wasm.classic.js must be loaded (with a <script> tag) before the page script');
  }
  return wrapEngine(await factory());
}
