// web/'s modules as text, for the tests of its wiring: what each file imports and exports, read
// from its statements (no module runs, nothing is built). Statements start a line, as Prettier
// writes them; a dynamic import(...) with a literal specifier counts as an import too.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every file under dir (relative to the repository) whose name matches ext, as repository paths. */
export function filesUnder(dir, ext) {
  return readdirSync(path.join(ROOT, dir), { recursive: true })
    .filter((f) => ext.test(f))
    .map((f) => path.posix.join(dir, f.split(path.sep).join('/')))
    .sort();
}

export const textOf = (file) => readFileSync(path.join(ROOT, file), 'utf8');

const FROM = /^(?:import|export)\b[^;'"`]*?\bfrom\s*(['"])([^'"]+)\1/gm;
const BARE = /^import\s*(['"])([^'"]+)\1/gm;
const DYNAMIC = /\bimport\(\s*(['"])([^'"]+)\1\s*\)/g;

/** The specifiers a module's text imports (import … from, export … from, import '…', import('…')). */
export function specifiersOf(text) {
  return [FROM, BARE, DYNAMIC].flatMap((re) => [...text.matchAll(re)].map((m) => m[2]));
}

/** A module's imports, each resolved to a repository path when relative ('web/views/dom.js'),
 * else as written ('node:fs', 'attention-stepper:later-formulas'). */
export function importsOf(file) {
  return specifiersOf(textOf(file)).map((s) =>
    s.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), s)) : s,
  );
}

/** The names a module's text exports: export { a, b as c } [from …], export const|let|function|class x. */
export function exportedNames(text) {
  const lists = [...text.matchAll(/^export\s*\{([^}]*)\}/gm)].flatMap((m) =>
    m[1]
      .split(',')
      .map((part) =>
        part
          .trim()
          .split(/\s+as\s+/)
          .pop(),
      )
      .filter(Boolean),
  );
  const declared = [...text.matchAll(/^export\s+(?:async\s+)?(?:const|let|var|function\*?|class)\s+([\w$]+)/gm)];
  return [...lists, ...declared.map((m) => m[1])].sort();
}
