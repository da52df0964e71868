// The arrows core → bindings → loader → model → views → page, none pointing back (STYLE.md):
// every import statement under web/ and every #include under cpp/include and cpp/src, checked
// against the edges that must not exist. Read from the files' text (tests/model/modules.mjs).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { filesUnder, importsOf, textOf } from './modules.mjs';

// The loader: the only modules that reach the Emscripten factory (web/engine*.js).
const LOADER = /^web\/(engine[\w-]*\.js|attention-wasm[\w.-]*)$/;
const under = (dir) => (file) => file.startsWith(`${dir}/`);

// [from, to, why]: no module matching `from` may import one matching `to`.
const FORBIDDEN = [
  [under('web/app'), under('web/element'), 'app must not import the element layer (it is app\u2019s user)'],
  [under('web/views'), under('web/model/export'), 'views draw what they are given; export is model'],
  [under('web/views'), under('web/model'), 'views are dumb: they take view data, they compute none'],
  [under('web/views'), under('web/state'), 'views must not import the store or the state'],
  [under('web/views'), under('web/app'), 'views know nothing of the stepper that wires them'],
  [under('web/model'), under('web/views'), 'model is pure: it touches no DOM'],
  [under('web/model'), under('web/state'), 'model is below state'],
  [under('web/model'), under('web/app'), 'model is below app'],
  [under('web/state'), under('web/views'), 'state renders nothing'],
  [under('web/state'), under('web/app'), 'state is below app'],
  [
    under('web/later'),
    under('web/app'),
    'later/ stands in for app\u2019s imports; the later script\u2019s entry is web/',
  ],
  ...['web/model', 'web/state', 'web/views'].map((dir) => [
    under(dir),
    (file) => LOADER.test(file),
    `${dir.slice(4)} must not import the loader: the engine reaches it through app`,
  ]),
];

const MODULES = filesUnder('web', /\.js$/);
const edges = MODULES.flatMap((from) => importsOf(from).map((to) => ({ from, to })));

describe('imports: no edge points back', () => {
  test('the import statements are read (the graph is not empty, and has the arrows it should)', () => {
    const has = (from, to) => edges.some((e) => e.from === from && e.to === to);
    assert.ok(MODULES.length > 80, `${MODULES.length} modules`);
    assert.ok(has('web/app/mount-stepper.js', 'web/app/later-views.js'), 'a multi-line import');
    assert.ok(has('web/main.js', 'web/app/mount-stepper.js'));
    assert.ok(has('web/engine.js', 'node:fs/promises'), 'a dynamic import');
    for (const { to } of edges.filter((e) => e.to.startsWith('web/')))
      assert.ok(MODULES.includes(to) || LOADER.test(to), `${to}: an import of a file that exists`);
  });

  for (const [from, to, why] of FORBIDDEN) {
    test(why, () => {
      const found = edges.filter((e) => from(e.from) && to(e.to)).map((e) => `${e.from} \u2192 ${e.to}`);
      assert.deepEqual(found, []);
    });
  }
});

describe('includes: the C++ core stays plain C++', () => {
  const sources = [...filesUnder('cpp/include', /\.(h|hpp)$/), ...filesUnder('cpp/src', /\.(c|cc|cpp|h|hpp)$/)];
  test('no file under cpp/include or cpp/src includes Emscripten', () => {
    assert.ok(sources.length > 20, `${sources.length} files`);
    const found = sources.filter((f) => /^\s*#\s*include\s*[<"]emscripten/m.test(textOf(f)));
    assert.deepEqual(found, []);
  });
  test('the bindings do (the check would see an include)', () => {
    assert.ok(/^\s*#\s*include\s*[<"]emscripten/m.test(textOf('cpp/bindings/value_from_js.cpp')));
  });
});

// The core is compiled a few sources to a translation unit (the native builds; CMakeLists: ATTENTION_CORE_UNITY), so
// a helper local to one source sees another's of the same name: with the same parameters that is
// a compile error, with others an overload that a call could silently pick. So each name is one
// file's. A local helper: a function defined at the start of a line inside `namespace {`, or
// declared static there.
export function localFunctions(text) {
  const names = [];
  let depth = 0;
  let anonymous = [];
  for (const line of text.split('\n')) {
    if (/^namespace\s*\{/.test(line)) anonymous.push(depth);
    const inside = anonymous.length > 0 || /^static\b/.test(line);
    const head =
      /^(?!namespace|using|struct|class|enum|template|return|\}|#|\/)[A-Za-z_][\w:<>,\s*&]*?[\s*&](\w+)\(/.exec(line);
    if (inside && head && !/;\s*$/.test(line)) names.push(head[1]);
    depth += (line.match(/\{/g) ?? []).length - (line.match(/\}/g) ?? []).length;
    if (anonymous.length && depth <= anonymous.at(-1)) anonymous.pop();
  }
  return names;
}

describe('the core\u2019s local helpers have names of their own', () => {
  const sources = filesUnder('cpp/src', /\.cpp$/);
  const owners = new Map();
  for (const f of sources)
    for (const name of new Set(localFunctions(textOf(f)))) owners.set(name, [...(owners.get(name) ?? []), f]);
  test('no two sources of cpp/src define a local function of the same name', () => {
    assert.ok(owners.size > 100, `${owners.size} local functions read`);
    assert.deepEqual(
      [...owners].filter(([, files]) => files.length > 1),
      [],
    );
  });
  test('the reader sees a local helper and a clash', () => {
    const text = [
      'namespace attention {',
      'namespace {',
      'std::string shape_text(const matrix &m) {',
      '  return {};',
      '}',
      '}  // namespace',
      'void f() {',
      '}',
      '}',
    ].join('\n');
    assert.deepEqual(localFunctions(text), ['shape_text']);
    assert.deepEqual(localFunctions('static double dot(const a &x, int n) {\n}\n'), ['dot']);
  });
});
