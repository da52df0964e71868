// README.md's dependency graph, read from the sources (tests/model/readme-layout.test.mjs checks
// that README.md holds exactly this):
//   node scripts/readme-graph.mjs           prints it
//   node scripts/readme-graph.mjs --write   puts it into README.md between the markers
// C++: the core's modules (a header of cpp/include/attention and the cpp/src files that implement
// it) by level, each line's modules including only those of the lines below (cpp/bindings/ as one,
// on top); a cycle (an include that turns back up) throws, naming it. JS: web/'s folders and
// top-level files, each importing only those below it, then what web/ imports from elsewhere.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { filesUnder, importsOf } from '../tests/model/modules.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const README = path.join(ROOT, 'README.md');
export const START = '<!-- dependency graph: node scripts/readme-graph.mjs --write -->';
export const END = '<!-- end of the dependency graph -->';
const WIDTH = 118;

const read = (file) => readFileSync(path.join(ROOT, file), 'utf8');
const namesIn = (dir, pattern) =>
  readdirSync(path.join(ROOT, dir))
    .filter((f) => pattern.test(f))
    .sort();

// The core headers a file includes ("attention/ops.hpp" → ops), each once.
const included = (file) => [
  ...new Set([...read(file).matchAll(/^#include "attention\/(\w+)\.hpp"/gm)].map((m) => m[1])),
];

// Each node's level: 0 when it depends on nothing else, else one above the highest it depends on.
function levels(graph) {
  const level = new Map();
  const visit = (name, trail = []) => {
    if (trail.includes(name)) throw new Error(`a cycle: ${[...trail, name].join(' \u2192 ')}`);
    if (!level.has(name))
      level.set(name, 1 + Math.max(-1, ...[...graph.get(name)].map((d) => visit(d, [...trail, name]))));
    return level.get(name);
  };
  for (const name of graph.keys()) visit(name);
  return level;
}

// Items joined by sep, wrapped at WIDTH with the continuation indented.
function wrap(items, sep, indent = '  ') {
  const lines = [''];
  for (const item of items) {
    const last = lines.length - 1;
    if (lines[last] && (lines[last] + sep + item).length > WIDTH) lines.push(indent + item);
    else lines[last] = lines[last] ? lines[last] + sep + item : item;
  }
  return lines;
}

// A line a level, the top one first; the names with the same arrows share one entry, and those
// with none (the last line) are followed by what they depend on instead: nothing.
function byLevel(graph, nothing) {
  const level = levels(graph);
  const out = [];
  for (let l = Math.max(...level.values()); l >= 0; l -= 1) {
    const groups = new Map();
    for (const name of [...graph.keys()].filter((n) => level.get(n) === l).sort()) {
      const deps = [...graph.get(name)].sort().join(', ');
      groups.set(deps, [...(groups.get(deps) ?? []), name]);
    }
    // Pieces, each with the separator before it: entries apart by '; ', an entry's arrows by ', '.
    const pieces = [...groups].flatMap(([deps, names], e) => {
      const head = `${names.join(', ')}${deps ? ' \u2192' : `: ${nothing}`}`;
      const [first, ...more] = deps ? deps.split(', ') : [];
      return [[e ? '; ' : '', deps ? `${head} ${first}` : head], ...more.map((d) => [', ', d])];
    });
    const lines = [''];
    for (const [sep, piece] of pieces) {
      const last = lines.length - 1;
      if (lines[last] && (lines[last] + sep + piece).length > WIDTH) {
        lines[last] += sep.trim();
        lines.push(`  ${piece}`);
      } else lines[last] += lines[last] ? sep + piece : piece;
    }
    out.push(...lines);
  }
  return out;
}

// A source's module: its own header's (ops.cpp: ops), else the header it includes first, the one
// it implements (head.cpp: passes).
function moduleOf(file, headers) {
  const own = path.basename(file, '.cpp');
  return headers.has(own) ? own : included(file)[0];
}

// Each module (a header and the sources that implement it) with the modules it includes.
function modules() {
  const graph = new Map(
    namesIn('cpp/include/attention', /\.hpp$/).map((f) => [
      f.slice(0, -4),
      new Set(included(`cpp/include/attention/${f}`)),
    ]),
  );
  for (const f of namesIn('cpp/src', /\.cpp$/)) {
    const own = moduleOf(`cpp/src/${f}`, graph);
    for (const d of included(`cpp/src/${f}`)) if (d !== own) graph.get(own).add(d);
  }
  return graph;
}

function cppLines() {
  const [first, ...rest] = [
    ...new Set(namesIn('cpp/bindings', /\.[ch]pp$/).flatMap((f) => included(`cpp/bindings/${f}`))),
  ].sort();
  return [...wrap([`bindings/ \u2192 ${first}`, ...rest], ', '), ...byLevel(modules(), 'no core header')];
}

// A web/ file's unit: its folder under web/ ("model/") or, at the top, the file itself.
const unitOf = (file) => (file.split('/').length > 2 ? `${file.split('/')[1]}/` : file.split('/')[1]);

function webLines() {
  const graph = new Map();
  const outside = new Set();
  for (const file of filesUnder('web', /\.m?js$/)) {
    const deps = graph.get(unitOf(file)) ?? new Set();
    graph.set(unitOf(file), deps);
    for (const imported of importsOf(file)) {
      if (!imported.startsWith('web/')) outside.add(imported);
      else if (!existsSync(path.join(ROOT, imported))) outside.add(`${imported.slice(4)} (built)`);
      else if (unitOf(imported) !== unitOf(file)) deps.add(unitOf(imported));
    }
  }
  const [first, ...rest] = [...outside].sort();
  return [...byLevel(graph, 'nothing of web/'), ...wrap([`from outside web/: ${first}`, ...rest], ', ')];
}

/** The generated text: the C++ graph, a caption, the JS graph. */
export function graph() {
  const block = (lines) => ['```', ...lines, '```'].join('\n');
  return [
    block(cppLines()),
    '**JS.** The folders and top-level files of `web/`, each above what it imports:',
    block(webLines()),
  ].join('\n\n');
}

/** README.md's text between the markers, or null without them. */
export function graphInReadme(text = readFileSync(README, 'utf8')) {
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  return a < 0 || b < a ? null : text.slice(a + START.length, b).trim();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--write')) console.log(graph());
  else {
    const text = readFileSync(README, 'utf8');
    if (graphInReadme(text) === null) throw new Error(`README.md has no ${START} … ${END} markers`);
    writeFileSync(
      README,
      `${text.slice(0, text.indexOf(START) + START.length)}\n${graph()}\n${text.slice(text.indexOf(END))}`,
    );
  }
}
