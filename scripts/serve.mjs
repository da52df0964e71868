// A static server for dist/ on 127.0.0.1: used by `npm start` and by the browser tests.
import http from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
};

// Sent gzipped to a browser that accepts it, as any web server sends text (and .wasm, which halves).
const COMPRESSED = new Set(['.html', '.js', '.mjs', '.css', '.json', '.svg', '.wasm']);
const gzipped = new Map(); // file → { etag, body }: compressed once per version of the file

function gzipOf(file, etag, body) {
  if (gzipped.get(file)?.etag !== etag) gzipped.set(file, { etag, body: gzipSync(body) });
  return gzipped.get(file).body;
}

const here = path.dirname(fileURLToPath(import.meta.url));
export const DIST = path.resolve(here, '..', 'dist');

// Resolves a URL path inside root; null when it would escape it.
function resolveInside(root, urlPath) {
  const decoded = decodeURIComponent(urlPath.split('?')[0]);
  const file = path.resolve(root, '.' + (decoded.endsWith('/') ? decoded + 'index.html' : decoded));
  return file === root || file.startsWith(root + path.sep) ? file : null;
}

// Starts serving root; resolves to { url, close() }. port 0 picks a free port.
export function startServer({ root = DIST, port = 0, csp = null } = {}) {
  const server = http.createServer(async (req, res) => {
    if (req.url === '/favicon.ico') return void res.writeHead(204).end();
    try {
      const file = resolveInside(root, req.url); // throws on a malformed %-escape
      if (!file) throw new Error('outside root');
      const { size, mtimeMs } = await stat(file);
      // Asked again at every load (no-cache) and answered 304 while the file is as it was: the
      // browser then reuses what it compiled of it (V8's code cache, WebAssembly's compiled module).
      const etag = `"${size.toString(36)}-${Math.floor(mtimeMs).toString(36)}"`;
      const headers = {
        'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'Cache-Control': 'no-cache',
        ETag: etag,
      };
      if (csp) headers['Content-Security-Policy'] = csp;
      if (req.headers['if-none-match'] === etag) return void res.writeHead(304, headers).end();
      const body = await readFile(file);
      if (!COMPRESSED.has(path.extname(file)) || !/\bgzip\b/.test(req.headers['accept-encoding'] ?? ''))
        return void res.writeHead(200, headers).end(body);
      res.writeHead(200, { ...headers, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
      res.end(gzipOf(file, etag, body));
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${server.address().port}/`;
      resolve({ url, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

// `npm start`: port 8080, or PORT; when 8080 is taken (and PORT unset), any free port.
async function serveForPeople() {
  try {
    return await startServer({ port: Number(process.env.PORT ?? 8080) });
  } catch (error) {
    if (error.code !== 'EADDRINUSE' || process.env.PORT) throw error;
    return startServer({ port: 0 });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await serveForPeople();
  console.log(`attention-stepper is being served at ${url}  (Ctrl+C stops it)`);
}
