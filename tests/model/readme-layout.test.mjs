// README.md is the repository's map: at most 300 lines, and its "## Layout" section names every
// header of cpp/include/attention/ and every directory under cpp/, web/, tests/, scripts/ and docs/,
// as read from the disk (no build needed). A directory is written as its whole path with a
// trailing slash at the start of a line (`web/model/stages/`), a header as its file name at the
// start of a line (`passes.hpp`). Its dependency graph is what scripts/readme-graph.mjs prints from
// the #includes and imports, regenerated with --write, never edited by hand.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { END, graph, graphInReadme, START } from '../../scripts/readme-graph.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const README = path.join(ROOT, 'README.md');
const MAX_LINES = 300;
const TOP = ['cpp', 'web', 'tests', 'scripts', 'docs'];
const HEADERS = 'cpp/include/attention';
// Never listed: installed or built trees, and caches.
const SKIPPED = new Set(['node_modules', 'build', 'dist', '__pycache__']);
// Listed, but what they hold is data, not layout.
const NOT_ENTERED = new Set(['tests/fuzz/corpus', 'tests/fixtures/traces']);

const readme = () => readFileSync(README, 'utf8');

/** The text of README's "## Layout" section, up to the next "## " heading. */
function layout(text = readme()) {
  const start = text.indexOf('\n## Layout\n');
  assert.ok(start >= 0, 'README.md has a "## Layout" section');
  const rest = text.slice(start + '\n## Layout\n'.length);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Every directory under the top-level ones, as a path from the root ('web/model/stages'). */
function directories() {
  const found = [];
  const walk = (dir) => {
    found.push(dir);
    if (NOT_ENTERED.has(dir)) return;
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      if (entry.isDirectory() && !entry.name.startsWith('.') && !SKIPPED.has(entry.name)) walk(`${dir}/${entry.name}`);
    }
  };
  for (const top of TOP) if (existsSync(path.join(ROOT, top))) walk(top);
  return found.sort();
}

const headers = () =>
  readdirSync(path.join(ROOT, HEADERS))
    .filter((f) => f.endsWith('.hpp'))
    .sort();

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const startsALine = (section, word) => new RegExp(`^\\s*${escape(word)}(\\s|$)`, 'm').test(section);

test(`README.md has at most ${MAX_LINES} lines`, () => {
  const text = readme();
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= MAX_LINES, `README.md has ${lines} lines (at most ${MAX_LINES}: move reference text to docs/)`);
});

test(`README's layout names every header of ${HEADERS}/`, () => {
  const section = layout();
  const missing = headers().filter((h) => !startsALine(section, h));
  assert.deepEqual(missing, [], `headers missing from README's layout (one a line): ${missing.join(', ')}`);
});

test(`README's layout names every directory under ${TOP.map((t) => `${t}/`).join(', ')}`, () => {
  const section = layout();
  const missing = directories().filter((d) => !startsALine(section, `${d}/`));
  assert.deepEqual(
    missing,
    [],
    `directories missing from README's layout (path/ at a line's start): ${missing.join(', ')}`,
  );
});

test("README's layout names no directory or header that is not on the disk", () => {
  const section = layout();
  const named = [...section.matchAll(/^\s*([\w.-]+(?:\/[\w.-]+)*\/|[\w-]+\.hpp)(?=\s|$)/gm)].map((m) => m[1]);
  const stale = named.filter((n) =>
    n.endsWith('/') ? !existsSync(path.join(ROOT, n)) : !existsSync(path.join(ROOT, HEADERS, n)),
  );
  assert.ok(named.length > 0, "README's layout names directories");
  assert.deepEqual(stale, [], `README's layout names what is not there: ${stale.join(', ')}`);
});

test("README's dependency graph is the one the sources' includes and imports give", () => {
  const shown = graphInReadme(readme());
  assert.notEqual(shown, null, `README.md has the graph's markers: ${START} … ${END}`);
  assert.equal(shown, graph(), "README.md's graph is stale: node scripts/readme-graph.mjs --write");
});
