// The build's patch of Emscripten's single-file factory (scripts/patch-classic.mjs): found in
// minified and unminified code, applied once, refused loudly when the code is absent or doubled.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { skipDataUriFetch } from '../../scripts/patch-classic.mjs';

const MINIFIED =
  'x;if(!wasmBinary&&(ENVIRONMENT_IS_WEB||ENVIRONMENT_IS_WORKER)){if(typeof fetch=="function"){return fetch(f)}}';
const DEBUG = `  if (!wasmBinary && (ENVIRONMENT_IS_WEB || ENVIRONMENT_IS_WORKER)) {
    if (typeof fetch == 'function'
    ) {`;

test('the patch skips the data: URI fetch in a Release (minified) and a Debug build', () => {
  assert.equal(
    skipDataUriFetch(MINIFIED),
    'x;if(!wasmBinary&&(ENVIRONMENT_IS_WEB||ENVIRONMENT_IS_WORKER)){' +
      'if(typeof fetch=="function"&&!isDataURI(wasmBinaryFile)){return fetch(f)}}',
  );
  assert.match(skipDataUriFetch(DEBUG), /typeof fetch == 'function'&&!isDataURI\(wasmBinaryFile\)\n {4}\) \{/);
});

test('the patch fails loudly when the code is not there exactly once', () => {
  assert.throws(
    () => skipDataUriFetch('if(typeof fetch=="function"){}', 'f.js'),
    /f\.js: expected its data: URI fetch once, found it 0 times/,
  );
  assert.throws(() => skipDataUriFetch(MINIFIED + MINIFIED), /found it 2 times/);
});

test('the built classic factory carries the patch, once', () => {
  const built = readFileSync(new URL('../../dist/attention-wasm.classic.js', import.meta.url), 'utf8');
  assert.equal(built.split('typeof fetch=="function"&&!isDataURI(wasmBinaryFile)').length - 1, 1);
});
