// Cuts dist/attention-wasm.wasm in two with Binaryen's wasm-split (it comes with Debian's
// emscripten): attention-wasm.core.wasm, every function the first view of the core chapters'
// examples runs, and attention-wasm.rest.wasm, the others. The browser fetches the core before the
// first paint and the rest after it (web/engine-split.js). Which functions are "run" is measured:
// an instrumented copy drives the page's own first-view actions in node (presets, models, the run,
// each head pruned alone, the KV calculator) for every example of CORE_PRESETS, as it opens, and
// writes wasm-split's profile. Edits are left out: a reader makes them after the first paint,
// when the rest is on its way (one made before it is in fetches the rest at once). Then the two
// parts are checked against the whole module: every preset's trace, and an explained cell, bit
// for bit.
//   splitWasm({ dist, work }) → { core, rest } (bytes of each file)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pruneEachOf, runForm, sizeTable } from '../web/app/actions.js';
import { wrapEngine } from '../web/engine-api.js';
import { CORE_FILE, CORE_PRESETS, REST_FILE, instantiateSplit } from '../web/engine-split.js';
import { DEFAULT_CALCULATOR } from '../web/model/kv-calculator.js';
import { catalogFrom } from '../web/model/presets.js';
import { presetForm } from '../web/state/form.js';

const FEATURES = '--all-features'; // parse what the module uses (SIMD, bulk memory, …); add nothing

function wasmSplit(args) {
  execFileSync('wasm-split', [FEATURES, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
}

// The page's first view of one form: what mount-stepper asks the engine before its first paint.
function firstView(engine, catalog, form) {
  const s = runForm(engine, catalog, form);
  if (!s.trace) throw new Error(`split-wasm: ${form.preset}: ${s.engineError ?? JSON.stringify(s.errors)}`);
  pruneEachOf(engine, s.spec, s.trace.config);
  sizeTable(engine, catalog, DEFAULT_CALCULATOR, s.trace.config);
  return { ...s, step: 0, head: 0 };
}

async function writeProfile(factory, instrumented, profile) {
  let instance;
  const module = await factory({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(instrumented, imports).then((r) => {
        instance = r.instance;
        receive(r.instance, r.module);
      });
      return {};
    },
  });
  const engine = wrapEngine(module);
  const catalog = catalogFrom(engine);
  for (const id of CORE_PRESETS) firstView(engine, catalog, presetForm(catalog, id));
  const size = 1 << 16;
  const at = module._malloc(size);
  const written = instance.exports.__write_profile(at, size);
  writeFileSync(profile, module.HEAPU8.slice(at, at + written));
}

const bits = (trace) => JSON.stringify(trace, (_, v) => (v instanceof Float64Array ? Array.from(v) : v));

// The split engine against the whole one: every preset, and one explained cell of each.
async function check(factory, whole, core, rest) {
  const sources = {
    core: (imports) => WebAssembly.instantiate(core, imports),
    rest: async () => rest,
    restSync: () => rest,
  };
  const split = await instantiateSplit(factory, 'file:///', { sources });
  const engine = wrapEngine(split.module);
  for (const { id } of whole.presets()) {
    const spec = { preset: id };
    if (bits(engine.run(spec)) !== bits(whole.run(spec)))
      throw new Error(`split-wasm: ${id}: the split engine's trace differs`);
    const cell = { stage: whole.run(spec).stages.at(-1).id, head: 0, row: 0, col: 0 };
    const explain = (e) => {
      try {
        return bits(e.explain(spec, cell));
      } catch (error) {
        return error.message;
      }
    };
    if (explain(engine) !== explain(whole)) throw new Error(`split-wasm: ${id}: the split engine's explain differs`);
  }
  if (!split.complete()) throw new Error('split-wasm: the rest was never needed: is the profile everything?');
}

export async function splitWasm({ dist, work }) {
  mkdirSync(work, { recursive: true });
  const whole = path.join(dist, 'attention-wasm.wasm');
  const instrumented = path.join(work, 'instrumented.wasm');
  const profile = path.join(work, 'core.profile');
  const { default: factory } = await import(pathToFileURL(path.join(dist, 'attention-wasm.mjs')).href);
  wasmSplit(['--instrument', whole, '-o', instrumented]);
  await writeProfile(factory, readFileSync(instrumented), profile);
  const core = path.join(dist, CORE_FILE);
  const rest = path.join(dist, REST_FILE);
  wasmSplit([
    '--split',
    whole,
    `--profile=${profile}`,
    '-o1',
    core,
    '-o2',
    rest,
    '--export-prefix=%',
    '--placeholder-namespace=placeholder',
  ]);
  const wholeEngine = wrapEngine(await factory({ wasmBinary: readFileSync(whole) }));
  await check(factory, wholeEngine, readFileSync(core), readFileSync(rest));
  return { core: readFileSync(core).length, rest: readFileSync(rest).length };
}
