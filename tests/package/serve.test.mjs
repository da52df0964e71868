// scripts/serve.mjs, the static server of `npm start` and the browser tests: every file revalidated
// at each load (no-cache and an ETag), answered 304 while it is unchanged, so that a browser reuses
// what it compiled of it; changed, it is sent again.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServer } from '../../scripts/serve.mjs';

const root = mkdtempSync(path.join(tmpdir(), 'serve-'));
let server;
before(async () => {
  writeFileSync(path.join(root, 'engine.js'), 'export const a = 1;\n');
  server = await startServer({ root, csp: "default-src 'self'" });
});
after(() => server.close());

const get = (name, headers = {}) => fetch(server.url + name, { headers });

test('a file comes with its type, the CSP, no-cache and an ETag; asked again with it, 304 and no body', async () => {
  const first = await get('engine.js');
  assert.equal(first.status, 200);
  assert.equal(await first.text(), 'export const a = 1;\n');
  assert.equal(first.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal(first.headers.get('content-security-policy'), "default-src 'self'");
  assert.equal(first.headers.get('cache-control'), 'no-cache');
  const etag = first.headers.get('etag');
  assert.match(etag, /^"[0-9a-z]+-[0-9a-z]+"$/);
  const again = await get('engine.js', { 'If-None-Match': etag });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), '');
  assert.equal(again.headers.get('etag'), etag);
  assert.equal((await get('engine.js', { 'If-None-Match': '"other"' })).status, 200);
});

test('a file changed since is sent again, with a new ETag', async () => {
  const etag = (await get('engine.js')).headers.get('etag');
  writeFileSync(path.join(root, 'engine.js'), 'export const a = 22;\n');
  utimesSync(path.join(root, 'engine.js'), new Date(), new Date(Date.now() + 5000));
  const changed = await get('engine.js', { 'If-None-Match': etag });
  assert.equal(changed.status, 200);
  assert.equal(await changed.text(), 'export const a = 22;\n');
  assert.notEqual(changed.headers.get('etag'), etag);
});

test('a path outside the root, a folder without its index and a missing file are 404', async () => {
  for (const name of ['..%2f..%2fetc%2fpasswd', 'missing.js', 'sub']) assert.equal((await get(name)).status, 404, name);
});
