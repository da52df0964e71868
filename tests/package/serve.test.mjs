// scripts/serve.mjs, the static server of `npm start` and the browser tests: every file revalidated
// at each load (no-cache and an ETag), answered 304 while it is unchanged, so that a browser reuses
// what it compiled of it; changed, it is sent again.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServer } from '../../scripts/serve.mjs';
import { ATTRIBUTES } from '../../web/state/attributes.js';

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

// The usability review: no favicon. The built pages name one, and the server gives it as SVG.
test('the built page and the training page name a favicon the server gives as SVG', async () => {
  const dist = await startServer();
  try {
    for (const page of ['index.html', 'training.html']) {
      const html = await (await fetch(dist.url + page)).text();
      const href = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml">/.exec(html)?.[1];
      assert.equal(href, 'favicon.svg', `${page}: its icon`);
      const icon = await fetch(dist.url + href);
      assert.equal(icon.status, 200);
      assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
      assert.match(await icon.text(), /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 16 16">/);
    }
  } finally {
    await dist.close();
  }
});

// The usability review: the embedding docs were not reachable from the site. The build renders
// docs/embedding.md as embedding.html, each page's footer links it, and the server gives it.
test("the embedding docs are a page of the site, linked from the page's and the training page's footers", async () => {
  const dist = await startServer();
  try {
    for (const page of ['index.html', 'training.html', 'embedding.html']) {
      const html = await (await fetch(dist.url + page)).text();
      const footer = /<footer[^]*<\/footer>/.exec(html)?.[0] ?? '';
      if (page !== 'embedding.html') assert.match(footer, /<a href="embedding.html">Embed the stepper<\/a>/, page);
    }
    const docs = await fetch(dist.url + 'embedding.html');
    assert.equal(docs.status, 200);
    assert.match(docs.headers.get('content-type'), /^text\/html/);
    const html = await docs.text();
    const markdown = readFileSync(new URL('../../docs/embedding.md', import.meta.url), 'utf8');
    // Every attribute the element reads is in its table, every recipe's code shown as text.
    for (const name of ATTRIBUTES) assert.ok(html.includes(`<code>${name}</code>`), `attribute ${name}`);
    const fences = markdown.match(/^```\w*$/gm).length / 2;
    assert.equal(html.match(/<pre><code/g).length, fences, 'each code block');
    assert.ok(!/<(script|iframe|attention-stepper)\b/.test(html), 'no markup of the Markdown runs');
    assert.ok(!/href="[^"]*\.md(#[^"]*)?"/.test(html), 'no link to a Markdown file the site does not serve');
  } finally {
    await dist.close();
  }
});
