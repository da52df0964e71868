// Bundles the page scripts and the element with esbuild:
//   attention-stepper.js                ES module, defines <attention-stepper>; imports ./engine.js
//   attention-stepper.classic.js        the same as a classic script, for file:// and plain <script>
//   attention-stepper-preload.js        index.html's first script: over http(s), preloads the engine's
//                                       core, its factory and the first font faces (web/preload.js)
//   attention-stepper-page.classic.js   index.html (full page, URL hash)
//   attention-stepper-embed.classic.js  embed.html (iframes: query string, height messages)
//   attention-stepper-scorm.classic.js  scorm.html (a SCORM 1.2 package's launch page, scorm.js)
//   attention-stepper-builder.classic.js builder.html (a lecturer's embed, builder.js)
//   attention-stepper-later.js          what no first stage needs (web/later-script.js: the real
//                                       modules of web/app/later-views.js), loaded after the
//                                       first paint by every page and both element bundles
//   attention-stepper-katex.js          KaTeX (from node_modules), loaded after the first paint
//   attention-stepper.css               the element's styles (read into its shadow root)
//   attention-stepper-page.css          index.html's styles
//   attention-stepper-training.js       training.html (ES module), and its -worker.js and .css
//   attention-stepper-run-worker.js     the stepper's engine calls off the main thread (app/run-worker.js)
// Classic bundles take the engine from engine-classic.js (the split .wasm over http, the classic
// single-file factory from file://). Every bundle typesets the stage table's formulas from the
// build's prerendered module (scripts/prerender-formulas.mjs), KaTeX's runtime is not in them.
// In the bundles that paint the first stage, web/app/later-views.js (what mount-stepper.js takes
// from the later script) is swapped for its stand-ins, web/later/stand-ins.js, which wait for
// the later script (web/later/load.js).
import path from 'node:path';
import { build } from 'esbuild';

const PRERENDERED = 'attention-stepper:prerendered-formulas';
const LATER_FORMULAS = 'attention-stepper:later-formulas';

// './engine.js' → the classic engine, or left as an import of the engine beside the bundle.
function enginePlugin(web, mode) {
  return {
    name: 'engine',
    setup(b) {
      b.onResolve({ filter: /(^|\/)engine\.js$/ }, (args) => {
        if (path.resolve(args.resolveDir, args.path) !== path.join(web, 'engine.js')) return undefined;
        return mode === 'classic'
          ? { path: path.join(web, 'engine-classic.js') }
          : { path: './engine.js', external: true };
      });
    },
  };
}

// The one swap of the first bundles: web/app/later-views.js → web/later/stand-ins.js.
export const LATER_SWAP = { from: 'app/later-views.js', to: 'later/stand-ins.js' };

function laterPlugin(web) {
  const [from, to] = [path.join(web, LATER_SWAP.from), path.join(web, LATER_SWAP.to)];
  return {
    name: 'later',
    setup(b) {
      b.onResolve({ filter: /later-views\.js$/ }, (args) =>
        path.resolve(args.resolveDir, args.path) === from ? { path: to } : undefined,
      );
    },
  };
}

// The prerendered formulas' modules: the build's text, or none (every formula then waits for
// KaTeX). PRERENDERED for the first bundles, LATER_FORMULAS for the later script.
function formulasPlugin(first, later) {
  const sources = {
    [PRERENDERED]:
      first ?? 'export const PRERENDERED = {}; export const FIRST_FACES = []; export const FIRST_FONTS = [];',
    [LATER_FORMULAS]: later ?? 'export const LATER_FORMULAS = {};',
  };
  return {
    name: 'formulas',
    setup(b) {
      b.onResolve({ filter: /^attention-stepper:/ }, (args) =>
        args.path in sources ? { path: args.path, namespace: 'formulas' } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'formulas' }, (args) => ({ contents: sources[args.path], loader: 'js' }));
    },
  };
}

const COMMON = {
  bundle: true,
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  legalComments: 'none',
  logLevel: 'warning',
  minify: true,
};

/** Writes the bundles into dist; formulas, laterFormulas: the prerendered modules' sources (or null);
 * firstFaces: the first font faces' paths in dist, for the preload script. */
export async function bundle({ web, dist, formulas = null, laterFormulas = null, firstFaces = [] }) {
  // first: a bundle that paints the first stage (all but the later script's), which takes stand-ins
  const plugins = (mode, first = true) => [
    enginePlugin(web, mode),
    formulasPlugin(formulas, laterFormulas),
    ...(first ? [laterPlugin(web)] : []),
  ];
  const classic = {
    ...COMMON,
    format: 'iife',
    plugins: plugins('classic'),
    define: { ATTENTION_STEPPER_CLASSIC: 'true' },
    logOverride: { 'empty-import-meta': 'silent' },
  };
  await Promise.all([
    build({
      ...COMMON,
      format: 'esm',
      plugins: plugins('esm'),
      define: { ATTENTION_STEPPER_CLASSIC: 'false' },
      entryPoints: [path.join(web, 'element', 'define.js')],
      outfile: path.join(dist, 'attention-stepper.js'),
    }),
    build({
      ...classic,
      entryPoints: [path.join(web, 'element', 'define.js')],
      outfile: path.join(dist, 'attention-stepper.classic.js'),
    }),
    build({
      ...COMMON,
      format: 'iife',
      define: { PRELOAD_FONTS: JSON.stringify(firstFaces) },
      entryPoints: [path.join(web, 'preload.js')],
      outfile: path.join(dist, 'attention-stepper-preload.js'),
    }),
    build({
      ...classic,
      entryPoints: [path.join(web, 'main.js')],
      outfile: path.join(dist, 'attention-stepper-page.classic.js'),
    }),
    build({
      ...classic,
      entryPoints: [path.join(web, 'embed.js')],
      outfile: path.join(dist, 'attention-stepper-embed.classic.js'),
    }),
    build({
      ...classic,
      entryPoints: [path.join(web, 'builder.js')],
      outfile: path.join(dist, 'attention-stepper-builder.classic.js'),
    }),
    build({
      ...classic,
      entryPoints: [path.join(web, 'scorm.js')],
      outfile: path.join(dist, 'attention-stepper-scorm.classic.js'),
    }),
    build({
      ...classic,
      plugins: plugins('classic', false),
      entryPoints: [path.join(web, 'later-script.js')],
      outfile: path.join(dist, 'attention-stepper-later.js'),
    }),
    build({
      ...COMMON,
      format: 'iife',
      entryPoints: [path.join(web, 'katex-global.js')],
      outfile: path.join(dist, 'attention-stepper-katex.js'),
    }),
    build({
      ...COMMON,
      entryPoints: [path.join(web, 'styles', 'element.css')],
      outfile: path.join(dist, 'attention-stepper.css'),
    }),
    build({
      ...COMMON,
      entryPoints: [path.join(web, 'styles', 'page.css')],
      outfile: path.join(dist, 'attention-stepper-page.css'),
    }),
    // training.html and the workers: ES modules over http(s) (a worker does not run from file://).
    ...[
      ['training/main.js', 'attention-stepper-training.js'],
      ['training/worker.js', 'attention-stepper-training-worker.js'],
      ['app/run-worker.js', 'attention-stepper-run-worker.js'],
    ].map(([entry, out]) =>
      build({
        ...COMMON,
        format: 'esm',
        plugins: [enginePlugin(web, 'esm')],
        entryPoints: [path.join(web, entry)],
        outfile: path.join(dist, out),
      }),
    ),
    build({
      ...COMMON,
      entryPoints: [path.join(web, 'styles', 'training.css')],
      outfile: path.join(dist, 'attention-stepper-training.css'),
    }),
  ]);
}
