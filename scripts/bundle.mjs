// Bundles the page scripts and the element with esbuild (KaTeX included from node_modules):
//   attention-stepper.js                ES module, defines <attention-stepper>; imports ./engine.js
//   attention-stepper.classic.js        the same as a classic script, for file:// and plain <script>
//   attention-stepper-page.classic.js   index.html (full page, URL hash)
//   attention-stepper-embed.classic.js  embed.html (iframes: query string, height messages)
//   attention-stepper.css               the element's styles (read into its shadow root)
// Classic bundles take the engine from engine-classic.js, i.e. from the global factory that
// attention-wasm.classic.js (loaded first, wasm inlined) defines: no ES modules, no fetched .wasm.
import path from 'node:path';
import { build } from 'esbuild';

// './engine.js' → the classic engine, or left as an import of the engine beside the bundle.
function enginePlugin(web, mode) {
  return {
    name: 'engine',
    setup(b) {
      b.onResolve({ filter: /(^|\/)engine\.js$/ }, (args) => {
        if (path.resolve(args.resolveDir, args.path) !== path.join(web, 'engine.js')) return undefined;
        return mode === 'classic' ? { path: path.join(web, 'engine-classic.js') } : { path: './engine.js', external: true };
      });
    },
  };
}

const COMMON = { bundle: true, target: ['es2020', 'chrome100', 'firefox100', 'safari15'], legalComments: 'none', logLevel: 'warning', minify: true };

/** Writes the bundles into dist. */
export async function bundle({ web, dist }) {
  const classic = { ...COMMON, format: 'iife', plugins: [enginePlugin(web, 'classic')], define: { ATTENTION_STEPPER_CLASSIC: 'true' }, logOverride: { 'empty-import-meta': 'silent' } };
  await Promise.all([
    build({ ...COMMON, format: 'esm', plugins: [enginePlugin(web, 'esm')], define: { ATTENTION_STEPPER_CLASSIC: 'false' }, entryPoints: [path.join(web, 'element', 'define.js')], outfile: path.join(dist, 'attention-stepper.js') }),
    build({ ...classic, entryPoints: [path.join(web, 'element', 'define.js')], outfile: path.join(dist, 'attention-stepper.classic.js') }),
    build({ ...classic, entryPoints: [path.join(web, 'main.js')], outfile: path.join(dist, 'attention-stepper-page.classic.js') }),
    build({ ...classic, entryPoints: [path.join(web, 'embed.js')], outfile: path.join(dist, 'attention-stepper-embed.classic.js') }),
    build({ ...COMMON, entryPoints: [path.join(web, 'styles', 'element.css')], outfile: path.join(dist, 'attention-stepper.css') }),
  ]);
}
