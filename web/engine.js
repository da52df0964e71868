// The engine loader (ES module): the only importer of the Emscripten ES factory.
// createEngine() → { run, forward, explain, randn, presets, models, kvCacheBytes, pruneEach, heapBytes }; errors from C++ arrive as thrown Errors.
import createAttentionModule from './attention-wasm.mjs';
import { wrapEngine } from './engine-api.js';

const WASM_FILE = 'attention-wasm.wasm';

// Browsers fetch the .wasm beside this file; node reads it from disk.
async function moduleOptions() {
  const isNode = typeof process === 'object' && Boolean(process.versions?.node);
  if (!isNode) return {};
  const { readFile } = await import('node:fs/promises');
  return { wasmBinary: await readFile(new URL(`./${WASM_FILE}`, import.meta.url)) };
}

export async function createEngine() {
  return wrapEngine(await createAttentionModule(await moduleOptions()));
}
