// The model tests' fixtures (tests/fixtures/traces/) are what the engine gives today: every file
// scripts/record-traces.mjs would write, byte for byte, and the loader's traces, explain answers
// and catalog equal to the engine's own. When one fails: node scripts/record-traces.mjs.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { catalogFrom } from '../../web/model/presets.js';
import { CUSTOM_SPECS, explainCells, LEFT_OUT, recordFixtures } from '../../scripts/record-traces.mjs';
import { FIXTURE_DIR } from '../model/fixture-format.mjs';
import { catalog, explainOf, runOf, SPECS, traceOf } from '../model/fixtures.mjs';

const engine = await createEngine();
const STALE = 'the engine changed: run node scripts/record-traces.mjs and commit tests/fixtures/traces/';

test('trace fixtures: every file is exactly what the recorder writes from the engine today', () => {
  const files = recordFixtures(engine);
  const onDisk = readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
  assert.deepEqual(onDisk, [...files.keys()].sort(), `fixture files: ${STALE}`);
  for (const [file, text] of files) {
    const old = readFileSync(new URL(file, FIXTURE_DIR), 'utf8');
    if (old === text) continue;
    const [a, b] = [old.split('\n'), text.split('\n')];
    const line = a.findIndex((l, i) => l !== b[i]);
    assert.fail(
      `${file} line ${line + 1} differs: ${STALE}\n` +
        `  fixture: ${a[line]?.slice(0, 200)}\n  engine:  ${b[line]?.slice(0, 200)}`,
    );
  }
});

test('trace fixtures: the loader gives back the engine\u2019s traces, explain answers and catalog', () => {
  assert.deepStrictEqual(catalog, catalogFrom(engine));
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    assert.deepStrictEqual(trace, engine.run(spec), JSON.stringify(spec));
    for (const cell of trace.stages.flatMap(explainCells)) {
      assert.deepStrictEqual(
        explainOf(spec, cell),
        engine.explain(spec, cell),
        `${JSON.stringify(spec)} ${JSON.stringify(cell)}`,
      );
    }
  }
});

test('trace fixtures: every preset is recorded or left out by name, each chapter and kind has one', () => {
  const recorded = new Set(SPECS.map((s) => s.preset).filter(Boolean));
  for (const p of engine.presets())
    assert.ok(recorded.has(p.id) !== p.id in LEFT_OUT, `${p.id}: recorded or in LEFT_OUT, not both or neither`);
  for (const p of engine.presets()) {
    assert.ok(
      engine.presets().some((q) => recorded.has(q.id) && q.chapter === p.chapter && q.spec.kind === p.spec.kind),
      `${p.chapter} / ${p.spec.kind}`,
    );
  }
  assert.equal(SPECS.length, recorded.size + Object.keys(CUSTOM_SPECS).length);
});

test('trace fixtures: the page\u2019s specs ran with these configs', () => {
  const { runs } = JSON.parse(readFileSync(new URL('index.json', FIXTURE_DIR), 'utf8'));
  for (const { spec } of runs) {
    const { config, stages } = engine.run(spec);
    assert.deepStrictEqual(runOf(spec), { config, stageCount: stages.length });
  }
});
