// The numpy export over every recorded trace (tests/fixtures/traces/): every stage the engine
// traces has its place in the generated program, and each key that place reads (["scaled"],
// ["kv"], …) is one the program's own functions store. Adding a stage without its numpy
// counterpart fails here, in node, before the browser tests run the scripts in python3.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { numpyScript, stageExpression, structureOf } from '../../web/model/export/numpy-script.js';
import { SPECS, traceOf } from './fixtures.mjs';

// The dictionary keys an expression reads: stages["heads"][1]["q"] → heads, q.
const keysRead = (expression) => [...expression.matchAll(/\["([^"]+)"\]/g)].map((m) => m[1]);

test('numpy export: every traced stage has its place in the program, under keys the program stores', () => {
  const seen = new Set();
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    const structure = structureOf(trace.config, trace);
    for (const stage of trace.stages) {
      const what = `${JSON.stringify(spec).slice(0, 60)}: ${structure} ${stage.id}`;
      if (seen.has(`${structure} ${stage.id}`)) continue;
      seen.add(`${structure} ${stage.id}`);
      const expression = stageExpression(structure, stage);
      const script = numpyScript({ config: trace.config, spec, trace, stage });
      assert.ok(script.includes(`stage = ${expression}\n`), `${what}: the script prints ${expression}`);
      for (const key of keysRead(expression))
        assert.ok(script.includes(`"${key}"`) && script.split(`"${key}"`).length > 2, `${what}: no "${key}" stored`);
    }
  }
  assert.ok(seen.size >= 60, `${seen.size} (structure, stage) pairs`);
});

test('numpy export: a stage the pass does not have is refused by name', () => {
  assert.throws(() => stageExpression('flash', { id: 'norm1' }), /numpy script: no stage norm1 in a flash pass/);
  assert.throws(() => stageExpression('self', { id: 'tile_max' }), /numpy script: no stage tile_max in a self pass/);
});
