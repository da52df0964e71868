// The npm package: `npm pack` makes a tarball whose exports give the engine; installed into
// an empty folder, it loads and computes the lesson's numbers.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let work;
let tarball;

before(() => {
  work = mkdtempSync(path.join(tmpdir(), 'attention-pack-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' });
  tarball = path.join(work, JSON.parse(out)[0].filename);
  const app = path.join(work, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: app, stdio: 'pipe' });
});

after(() => rmSync(work, { recursive: true, force: true }));

test('the tarball holds the built engine and no sources or tests', () => {
  const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
  for (const file of ['package/dist/engine.js', 'package/dist/attention-wasm.wasm', 'package/README.md']) {
    assert.ok(listing.includes(file), `${file} is in the tarball`);
  }
  assert.ok(!listing.some((f) => f.startsWith('package/cpp/') || f.startsWith('package/tests/')));
});

test('installed into an empty folder, attention-stepper/engine runs the lesson example', () => {
  const script = `
    import { createEngine } from 'attention-stepper/engine';
    const engine = await createEngine();
    const { stages } = engine.run({ preset: 'lesson-self-attention' });
    console.log(JSON.stringify({ x00: stages[0].values[0], ids: stages.map((s) => s.id) }));`;
  const app = path.join(work, 'app');
  writeFileSync(path.join(app, 'check.mjs'), script);
  const result = JSON.parse(execFileSync('node', ['check.mjs'], { cwd: app, encoding: 'utf8' }));
  assert.equal(result.x00, 0.4967141530112327);
  assert.deepEqual(result.ids, ['x', 'q', 'k', 'v', 'scores', 'scaled', 'weights', 'head']);
  const manifest = JSON.parse(readFileSync(path.join(app, 'node_modules', 'attention-stepper', 'package.json'), 'utf8'));
  assert.equal(manifest.exports['./engine'], './dist/engine.js');
});
