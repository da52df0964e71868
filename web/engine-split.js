// The engine's WebAssembly in two parts, for browsers that fetch it (scripts/split-wasm.mjs cuts
// attention-wasm.wasm with Binaryen's wasm-split): the core holds every function the first view
// of the seed-42 examples runs, the rest everything else (other kinds, explain, forward, …).
// The core imports a placeholder for each function it lacks; the rest, once instantiated, writes
// its functions into the shared table over them. loadRest() fetches it after the first paint;
// a placeholder called before that loads it synchronously, so every call still works, only later.

export const CORE_FILE = 'attention-wasm.core.wasm';
export const REST_FILE = 'attention-wasm.rest.wasm';

// The examples whose first view (as they open, before any edit) scripts/split-wasm.mjs runs to
// choose the core's functions: the three seed-42 examples. Their first view needs nothing from the rest;
// any other first view waits for the rest before running (else its first call of a function
// the core lacks would fetch the rest synchronously).
export const CORE_PRESETS = ['lesson-multi-head', 'lesson-self-attention', 'lesson-causal'];
// Their chapter, whose formulas the build typesets (scripts/prerender-formulas.mjs).
export const CORE_CHAPTERS = ['attention'];

const tableOf = (instance) => Object.values(instance.exports).find((v) => v instanceof WebAssembly.Table);

// The core, compiled as it arrives, asked for before the factory is in (prefetchCore) or by the
// page's first script (web/preload.js: globalThis.attentionStepperCore), by URL: each used once.
const early = new Map();

/** Starts fetching and compiling the core beside baseUrl now, e.g. while the factory's script is
 * on its way; instantiateSplit then instantiates this module. */
export function prefetchCore(baseUrl) {
  const url = new URL(CORE_FILE, baseUrl).href;
  adoptPageCore(url);
  if (early.has(url) || !WebAssembly.compileStreaming) return;
  const module = WebAssembly.compileStreaming(fetch(url));
  module.catch(() => {}); // instantiateUrl then fetches the core itself
  early.set(url, module);
}

function adoptPageCore(url) {
  const fromPage = globalThis.attentionStepperCore;
  if (fromPage?.href !== url) return;
  delete globalThis.attentionStepperCore;
  early.set(url, fromPage.module);
}

// instantiateStreaming compiles while the bytes arrive; a server that does not send .wasm as
// application/wasm gets the plain fetch-then-compile instead.
async function instantiateUrl(url, imports) {
  adoptPageCore(url);
  const compiled = early.get(url);
  early.delete(url);
  if (compiled) {
    try {
      const module = await compiled;
      return { module, instance: await WebAssembly.instantiate(module, imports) };
    } catch {
      // not compiled (a wrong MIME type, a failed fetch): fetched again below
    }
  }
  try {
    return await WebAssembly.instantiateStreaming(fetch(url), imports);
  } catch {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    return WebAssembly.instantiate(await response.arrayBuffer(), imports);
  }
}

// The rest's bytes, synchronously: only for a placeholder called before loadRest() finished.
function fetchSync(url) {
  const xhr = new XMLHttpRequest();
  xhr.open('GET', url, false);
  xhr.overrideMimeType('text/plain; charset=x-user-defined'); // bytes as chars 0–255
  xhr.send();
  if (xhr.status !== 200 && xhr.status !== 0) throw new Error(`${url}: HTTP ${xhr.status}`);
  const text = xhr.responseText;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.arrayBuffer();
}

/**
 * Instantiates an Emscripten factory over the split files beside baseUrl →
 * { module, loadRest(), complete() }: module is the factory's (only the core is in), loadRest()
 * fetches and attaches the rest (once; a promise), complete() says whether it is attached.
 * restNow fetches the rest beside the core instead of when loadRest() is called. sources
 * replaces fetching (node, tests): { core(imports) → Promise<{ instance, module }>,
 * rest() → Promise<bytes>, restSync() → bytes }.
 */
export async function instantiateSplit(factory, baseUrl, { sources = null, restNow = false } = {}) {
  const url = (file) => new URL(file, baseUrl).href;
  const from = sources ?? {
    core: (imports) => instantiateUrl(url(CORE_FILE), imports),
    rest: () => fetchBytes(url(REST_FILE)),
    restSync: () => fetchSync(url(REST_FILE)),
  };
  let primary = null;
  let rest = null;
  let restModule = null;
  let restBytes = restNow ? from.rest() : null;
  restBytes?.catch(() => {}); // a failure surfaces when loadRest() awaits it
  let pending = null;
  const attach = (module) => {
    rest ??= new WebAssembly.Instance(module, { primary: primary.exports });
  };
  const placeholder = new Proxy(
    {},
    {
      get:
        (_, index) =>
        (...args) => {
          if (!rest) attach(restModule ?? new WebAssembly.Module(from.restSync()));
          return tableOf(primary).get(Number(index))(...args);
        },
    },
  );
  let fail;
  const failed = new Promise((_, reject) => {
    fail = reject;
  });
  const instantiateWasm = (imports, receive) => {
    from.core({ ...imports, placeholder }).then(({ instance, module }) => {
      primary = instance;
      receive(instance, module);
    }, fail);
    return {}; // the exports arrive through receive
  };
  const module = await Promise.race([factory({ instantiateWasm }), failed]);
  return {
    module,
    loadRest() {
      pending ??= (async () => {
        restBytes ??= from.rest();
        restModule = await WebAssembly.compile(await restBytes);
        attach(restModule);
      })();
      return pending;
    },
    complete: () => rest !== null,
  };
}
