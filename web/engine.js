// The engine loader (ES module): the only importer of the Emscripten ES factory.
// createEngine() → { run, forward, explain, randn, presets, models, kvCacheBytes, pruneEach };
// errors from C++ arrive as thrown Errors.
// (The leak tests read the heap through engine-api.js's heapBytesOf(engine), which is not exported here.)
// loadEngine() → { engine, rest() }: in a browser the engine as soon as the core of its split
// WebAssembly is in (engine-split.js), and rest() → a promise of the rest; the page paints its
// first stage in between. Every call works before rest() resolves (a placeholder fetches what
// is missing), but the first views of the core's examples (CORE_PRESETS) need nothing more.
import createAttentionModule from './attention-wasm.mjs';
import { wrapEngine } from './engine-api.js';
import { instantiateSplit } from './engine-split.js';

const WASM_FILE = 'attention-wasm.wasm';
const isNode = typeof process === 'object' && Boolean(process.versions?.node);

export { CORE_CHAPTERS } from './engine-split.js';

// Node reads the whole .wasm from disk; browsers fetch the two parts beside this file.
async function load(restNow) {
  if (isNode) {
    const { readFile } = await import('node:fs/promises');
    const wasmBinary = await readFile(new URL(`./${WASM_FILE}`, import.meta.url));
    return { engine: wrapEngine(await createAttentionModule({ wasmBinary })), rest: () => Promise.resolve() };
  }
  const split = await instantiateSplit(createAttentionModule, import.meta.url, { restNow });
  return { engine: wrapEngine(split.module), rest: () => split.loadRest() };
}

export function loadEngine() {
  return load(false);
}

export async function createEngine() {
  const { engine, rest } = await load(true);
  await rest();
  return engine;
}
