// The engine's public surface: the object createEngine() gives holds exactly the functions
// docs/engine-api.md lists, frozen, and nothing for tests (the heap counters are reached
// through engine-api.js's heapBytesOf, which dist/engine.js does not export).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';

import * as engineModule from '../../dist/engine.js';
import { heapBytesOf } from '../../dist/engine-api.js';

const DOCUMENTED = [
  'explain',
  'forward',
  'headScores',
  'initModel',
  'kvCacheBytes',
  'latentModels',
  'limits',
  'lossAndGradients',
  'modelForward',
  'models',
  'presets',
  'pruneEach',
  'randn',
  'run',
  'stages',
  'taskBatch',
  'train',
];

// The engine.<name>( calls of docs/engine-api.md's first code block.
function documentedFunctions() {
  const text = readFileSync(new URL('../../docs/engine-api.md', import.meta.url), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(text)?.[1];
  assert.ok(block, 'docs/engine-api.md has a ```js block');
  return [...new Set([...block.matchAll(/\bengine\.(\w+)\(/g)].map((m) => m[1]))].sort();
}

let engine;
before(async () => {
  engine = await engineModule.createEngine();
});

test('the engine holds exactly the documented functions, frozen', () => {
  assert.deepEqual(Object.keys(engine).sort(), DOCUMENTED);
  assert.deepEqual(Reflect.ownKeys(engine).sort(), DOCUMENTED, 'no hidden or symbol keys either');
  for (const name of DOCUMENTED) assert.equal(typeof engine[name], 'function', name);
  assert.ok(Object.isFrozen(engine));
  assert.equal(Object.getPrototypeOf(engine), Object.prototype);
  assert.equal('heapBytes' in engine, false);
});

test("docs/engine-api.md's engine example lists the same functions", () => {
  assert.deepEqual(documentedFunctions(), DOCUMENTED);
});

test('dist/engine.js exports the loader only, nothing for tests', () => {
  assert.deepEqual(Object.keys(engineModule).sort(), ['CORE_CHAPTERS', 'createEngine', 'loadEngine']);
});

test("heapBytesOf (tests only) reads an engine's heap and refuses anything else", () => {
  const bytes = heapBytesOf(engine);
  assert.deepEqual(Object.keys(bytes).sort(), ['inUse', 'memory', 'top']);
  for (const [key, value] of Object.entries(bytes)) assert.ok(Number.isInteger(value) && value > 0, `${key}: ${value}`);
  assert.ok(bytes.top <= bytes.memory);
  assert.throws(() => heapBytesOf({ ...engine }), /heapBytesOf: not an engine made by wrapEngine/);
  assert.throws(() => heapBytesOf(null), TypeError);
});
