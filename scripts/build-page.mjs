// Assembles dist/ from web/, KaTeX (from node_modules) and the engine artifacts (from build/wasm).
// A plain node script with no dependencies; it clears dist/ first, so running it twice is the
// same as running it once. Usage: node scripts/build-page.mjs
import { cpSync, existsSync, mkdirSync, rmSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const web = path.join(root, 'web');
const katex = path.join(root, 'node_modules', 'katex', 'dist');
const wasmDir = path.join(root, 'build', 'wasm');

const ENGINE_FILES = ['attention-wasm.mjs', 'attention-wasm.wasm'];
const KATEX_FILES = ['katex.mjs', 'katex.min.css', 'fonts'];

function fail(message) {
  console.error(`build-page: ${message}`);
  process.exit(1);
}

function copy(from, to) {
  cpSync(from, to, { recursive: true });
}

function countFiles(dir) {
  return readdirSync(dir).reduce((n, name) => {
    const p = path.join(dir, name);
    return n + (statSync(p).isDirectory() ? countFiles(p) : 1);
  }, 0);
}

if (!existsSync(path.join(web, 'index.html'))) fail(`${web}/index.html is missing`);
for (const f of KATEX_FILES) {
  if (!existsSync(path.join(katex, f))) fail(`node_modules/katex/dist/${f} is missing: run npm install`);
}

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

copy(web, dist);
if (!existsSync(path.join(web, 'engine.js'))) {
  console.warn('build-page: web/engine.js is missing; the page cannot load the engine until it exists');
}

const vendor = path.join(dist, 'vendor', 'katex');
mkdirSync(vendor, { recursive: true });
for (const f of KATEX_FILES) copy(path.join(katex, f), path.join(vendor, f));

const missing = ENGINE_FILES.filter((f) => !existsSync(path.join(wasmDir, f)));
if (missing.length) {
  console.warn(`build-page: skipped the engine: build/wasm/${missing.join(', build/wasm/')} not found (build it with bash scripts/build.sh)`);
} else {
  for (const f of ENGINE_FILES) copy(path.join(wasmDir, f), path.join(dist, f));
}

console.log(`build-page: dist/ holds ${countFiles(dist)} files`);
