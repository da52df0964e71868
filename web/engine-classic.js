// The engine for the classic-script bundles (scripts/bundle.mjs puts it where ./engine.js is
// imported): the same loadEngine() and createEngine() as engine.js. Over http it imports the ES
// factory and fetches the split WebAssembly (engine-split.js) like engine.js; from file://, where
// Chromium allows neither ES modules nor fetching a .wasm, or when that fails, it loads
// attention-wasm.classic.js (the whole wasm inlined) with a plain <script>, which defines
// createAttentionModule globally. A page that loaded that script itself gets its engine.
import { wrapEngine } from './engine-api.js';
import { instantiateSplit, prefetchCore } from './engine-split.js';

export { CORE_CHAPTERS } from './engine-split.js';

const FACTORY_FILE = 'attention-wasm.classic.js';
const ES_FACTORY_FILE = 'attention-wasm.mjs';
// The bundle's own URL, read while it runs (document.currentScript is null later).
const SCRIPT_URL = (typeof document !== 'undefined' && document.currentScript?.src) || '';

const whole = async (factory) => ({ engine: wrapEngine(await factory()), rest: () => Promise.resolve() });

function loadFactoryScript() {
  if (typeof globalThis.createAttentionModule === 'function') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = new URL(FACTORY_FILE, SCRIPT_URL).href;
    script.addEventListener('load', () => resolve());
    script.addEventListener('error', () => reject(new Error(`${script.src} could not be loaded`)));
    document.head.append(script);
  });
}

async function loadSplit() {
  const factoryUrl = new URL(ES_FACTORY_FILE, SCRIPT_URL).href;
  prefetchCore(factoryUrl); // the core's bytes and the factory's script arrive side by side
  const { default: factory } = await import(factoryUrl);
  const split = await instantiateSplit(factory, factoryUrl);
  return { engine: wrapEngine(split.module), rest: () => split.loadRest() };
}

/** { engine, rest() }: see engine.js. */
export async function loadEngine() {
  if (typeof globalThis.createAttentionModule !== 'function' && SCRIPT_URL && !SCRIPT_URL.startsWith('file:')) {
    try {
      return await loadSplit();
    } catch {
      // ES modules or the .wasm files refused (an old server, a stricter policy): the classic file
    }
  }
  await loadFactoryScript();
  if (typeof globalThis.createAttentionModule !== 'function') {
    throw new Error(`${FACTORY_FILE} must be loaded (with a <script> tag) before the page script`);
  }
  return whole(globalThis.createAttentionModule);
}

export async function createEngine() {
  const { engine, rest } = await loadEngine();
  await rest();
  return engine;
}
