// Shared by the course-tool tests (MkDocs, reveal.js, Jupyter, the host reset): headless
// Chromium, static servers over any folder, a clean work folder under build/course/, and the
// tools the recipes need (installed by scripts/setup-course.sh, which scripts/test.sh runs).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../scripts/chromium.mjs';
import { startServer, DIST } from '../../scripts/serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '..', '..');
export const COURSE = here;
export const SHOTS = path.join(ROOT, 'build', 'screenshots');
export const WORK = path.join(ROOT, 'build', 'course');
export { DIST, startServer };

export function requireDist() {
  for (const f of [
    'embed.html',
    'attention-wasm.classic.js',
    'attention-stepper.classic.js',
    'attention-stepper.css',
  ]) {
    if (!existsSync(path.join(DIST, f)))
      throw new Error(
        `dist/${f} is missing: run npm run build (or node scripts/build-page.mjs after the engine build)`,
      );
  }
}

// A tool from Debian's packages; a clear message when scripts/setup-course.sh has not run.
export function requireTool(command, pkg) {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
  } catch {
    throw new Error(`${command} is missing: run bash scripts/setup-course.sh as root (installs Debian ${pkg})`);
  }
}

// An empty folder build/course/<name>.
export function workDir(name) {
  const dir = path.join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function copyDist(to) {
  requireDist();
  cpSync(DIST, to, { recursive: true });
}

export async function launch() {
  mkdirSync(SHOTS, { recursive: true });
  return launchChromium();
}

// Records console errors, page errors, HTTP errors and requests that leave 127.0.0.1 in
// page.problems.
export function watchProblems(page) {
  page.problems = [];
  page.on('console', (m) => m.type() === 'error' && page.problems.push(`console.error: ${m.text()}`));
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('response', (r) => r.status() >= 400 && page.problems.push(`HTTP ${r.status()}: ${r.url()}`));
  const local = (url) => /^(https?:\/\/(127\.0\.0\.1|localhost)[:/]|data:|blob:|about:)/.test(url);
  page.on('request', (r) => !local(r.url()) && page.problems.push(`off-site request: ${r.url()}`));
  return page;
}

// A long-running program (a notebook server, python's http.server); its output is kept for
// failure messages. → { child, output(), stop() }
export function startProcess(command, args, options = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let log = '';
  child.stdout.on('data', (d) => {
    log += d;
  });
  child.stderr.on('data', (d) => {
    log += d;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    output: () => log,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// Polls url until it answers (any status), or fails after timeoutMs with the process's output.
export async function waitForHttp(url, proc, timeoutMs = 20000) {
  const start = Date.now();
  for (;;) {
    try {
      await fetch(url);
      return;
    } catch {
      if (proc.child.exitCode !== null)
        throw new Error(`${url}: the server exited (${proc.child.exitCode}):\n${proc.output()}`);
      if (Date.now() - start > timeoutMs)
        throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${proc.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

// A free TCP port on 127.0.0.1 (for programs that need one on their command line).
export async function freePort() {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
