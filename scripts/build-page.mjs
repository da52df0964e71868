// Assembles dist/ from web/ (pages, styles, examples, the ES engine loader), the engine
// artifacts (from build/wasm) and the .wasm cut in two for browsers (scripts/split-wasm.mjs), the
// stage table's formulas typeset by KaTeX (scripts/prerender-formulas.mjs), the bundles
// (scripts/bundle.mjs: esbuild), KaTeX's CSS and fonts. It clears dist/ first, so running it
// twice is the same as running it once. Usage: node scripts/build-page.mjs
import { cpSync, existsSync, mkdirSync, rmSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import katexLib from 'katex';
import { fileURLToPath } from 'node:url';
import { FILE_LIST, shipsInPackage } from '../web/lms/scorm-package.js';
import { bundle } from './bundle.mjs';
import { docsPage } from './docs-page.mjs';
import { skipDataUriFetch } from './patch-classic.mjs';
import { firstFormulas, laterModule, prerenderFormulas, prerenderedModule } from './prerender-formulas.mjs';
import { prerenderPage } from './prerender-page.mjs';
import { splitWasm } from './split-wasm.mjs';
import { subsetFonts } from './subset-fonts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const web = path.join(root, 'web');
const katex = path.join(root, 'node_modules', 'katex', 'dist');
const wasmDir = path.join(root, 'build', 'wasm');

const ENGINE_FILES = ['attention-wasm.mjs', 'attention-wasm.wasm', 'attention-wasm.classic.js'];
const KATEX_FILES = ['katex.min.css', 'fonts'];
// What dist/ takes from web/ as it is; the rest of web/ reaches dist/ through the bundles.
const WEB_FILES = [
  'index.html',
  'embed.html',
  'scorm.html',
  'builder.html',
  'training.html',
  'favicon.svg',
  'engine.js',
  'engine-api.js',
  'engine-split.js',
  'styles',
  'examples',
  'checkpoints',
];

function fail(message) {
  console.error(`build-page: ${message}`);
  process.exit(1);
}

function copy(from, to) {
  cpSync(from, to, { recursive: true });
}

// The single-file factory for file://, with its data: URI fetch skipped (scripts/patch-classic.mjs).
function copyClassicFactory(from, to) {
  try {
    writeFileSync(to, skipDataUriFetch(readFileSync(from, 'utf8'), from));
  } catch (error) {
    fail(error.message);
  }
}

// Every file under dir, as paths with '/' relative to it, sorted.
function filesUnder(dir, prefix = '') {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const rel = prefix + name;
      return statSync(path.join(dir, name)).isDirectory() ? filesUnder(path.join(dir, name), `${rel}/`) : [rel];
    });
}

if (!existsSync(path.join(web, 'index.html'))) fail(`${web}/index.html is missing`);
for (const f of KATEX_FILES) {
  if (!existsSync(path.join(katex, f))) fail(`node_modules/katex/dist/${f} is missing: run npm install`);
}

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

for (const f of WEB_FILES) {
  if (!existsSync(path.join(web, f))) fail(`web/${f} is missing`);
  copy(path.join(web, f), path.join(dist, f));
}
// How to embed it, as a page of the site (linked from each page's footer).
writeFileSync(
  path.join(dist, 'embedding.html'),
  docsPage(readFileSync(path.join(root, 'docs', 'embedding.md'), 'utf8'), { title: 'Embed the attention stepper' }),
);

const missing = ENGINE_FILES.filter((f) => !existsSync(path.join(wasmDir, f)));
let formulas = {};
let first = [];
if (missing.length) {
  console.warn(
    `build-page: skipped the engine: build/wasm/${missing.join(', build/wasm/')} not found ` +
      '(build it with bash scripts/build.sh)',
  );
} else {
  for (const f of ENGINE_FILES) {
    if (f === 'attention-wasm.classic.js') copyClassicFactory(path.join(wasmDir, f), path.join(dist, f));
    else copy(path.join(wasmDir, f), path.join(dist, f));
  }
  const parts = await splitWasm({ dist, work: path.join(root, 'build', 'split-wasm') });
  console.log(`build-page: attention-wasm.wasm cut into core (${parts.core} B) and rest (${parts.rest} B)`);
  const { createEngine } = await import(path.join(dist, 'engine.js'));
  const engine = await createEngine();
  formulas = prerenderFormulas(engine);
  first = firstFormulas(engine);
}
const vendor = path.join(dist, 'vendor', 'katex');
mkdirSync(vendor, { recursive: true });
// Every browser that runs WebAssembly reads woff2, the first format katex.min.css offers, so
// the .woff and .ttf copies (three quarters of the fonts' bytes) stay behind, and so do the
// CSS's references to them.
cpSync(path.join(katex, 'fonts'), path.join(vendor, 'fonts'), {
  recursive: true,
  filter: (src) => !/\.(woff|ttf)$/.test(src),
});
const katexCss = readFileSync(path.join(katex, 'katex.min.css'), 'utf8').replace(
  /,url\([^)]*\.(woff|ttf)\) format\("(woff|truetype)"\)/g,
  '',
);
// The prerendered formulas' glyphs, in small faces of their own (scripts/subset-fonts.mjs: which
// face draws what, read from KaTeX's CSS): the first stages' glyphs in one, the others' in a face
// fetched after the first paint.
const html = (texs) => texs.filter((tex) => tex in formulas).map((tex) => formulas[tex]);
const later = Object.keys(formulas).filter((tex) => !first.includes(tex));
// training.html's own formulas (its .tex spans, which its script typesets), among the later
// glyphs: its first paint then needs no whole KaTeX font.
const trainingFormulas = [...readFileSync(path.join(web, 'training.html'), 'utf8').matchAll(/data-tex="([^"]*)"/g)].map(
  ([, tex]) => katexLib.renderToString(tex.replaceAll('&quot;', '"').replaceAll('&amp;', '&')),
);
const subsets = await subsetFonts(
  { first: html(first), later: [...html(later), ...trainingFormulas] },
  katexCss,
  path.join(katex, 'fonts'),
  path.join(vendor, 'fonts'),
);
writeFileSync(path.join(vendor, 'katex.min.css'), katexCss + subsets.css);
// The first bundles hold the opening stages' formulas and name their faces (to preload them);
// the later script holds the other formulas.
const firstFaces = subsets.first.map((f) => `vendor/katex/fonts/${f}`);
const some = (texs) => Object.fromEntries(texs.filter((tex) => tex in formulas).map((tex) => [tex, formulas[tex]]));
await bundle({
  web,
  dist,
  formulas: prerenderedModule(some(first), firstFaces, subsets.firstFonts),
  laterFormulas: laterModule(some(later)),
  firstFaces,
});

// index.html's first stage as markup, painted by the page just built (Chromium: setup installs it).
if (!missing.length) {
  const shown = await prerenderPage(dist);
  console.log(
    `build-page: index.html and embed.html hold their first stage (${shown.bytes} B, ${shown.embedBytes} B), ` +
      `training.html its shipped run (${shown.trainingBytes} B)`,
  );
}

// What a SCORM package ships (web/lms/scorm-package.js), for npm run package and builder.html.
const shipped = filesUnder(dist).filter(shipsInPackage);
writeFileSync(path.join(dist, FILE_LIST), `${JSON.stringify(shipped, null, 1)}\n`);
console.log(`build-page: dist/ holds ${filesUnder(dist).length} files, ${shipped.length} of them in a SCORM package`);
