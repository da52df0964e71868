// The training page's take-away files for the shipped model: the JSON reads back as the same
// doubles, each .npy holds its matrix's bits, and the numpy script rebuilds the model's forward
// pass from the JSON: its logits equal engine.modelForward's to 1e-12 (python3 with numpy).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { MODEL_FILE, forwardScript, modelJson, npyFiles } from '../../web/model/training-export.js';
import { readCheckpoint } from '../../web/training/checkpoint.js';
import { f64Bytes, readNpy } from '../browser/export-helpers.mjs';

const SHIPPED = readCheckpoint(
  JSON.parse(readFileSync(new URL('../../web/checkpoints/induction.json', import.meta.url))),
);

let engine;
before(async () => {
  engine = await createEngine();
});

test('the JSON holds every value in full', () => {
  const back = JSON.parse(modelJson(SHIPPED.model));
  assert.deepEqual(back.config, SHIPPED.model.config);
  assert.deepEqual(back.params.layers[1].W_K[0].values, Array.from(SHIPPED.model.params.layers[1].W_K[0].values));
  const float64 = (key, v) => (key === 'values' ? Float64Array.from(v) : v); // the engine's flat form
  const again = engine.lossAndGradients(JSON.parse(modelJson(SHIPPED.model), float64), {
    tokens: [Array.from({ length: 25 }, (_, i) => i % 32)],
  }).loss;
  const shipped = engine.lossAndGradients(SHIPPED.model, { tokens: [Array.from({ length: 25 }, (_, i) => i % 32)] });
  assert.equal(again, shipped.loss); // the engine reads the JSON back as the same model
});

test('each .npy holds its matrix, named as the model names it, bit for bit', () => {
  const files = npyFiles(SHIPPED.model);
  assert.equal(files.length, 2 + 2 * (3 * 2 + 1) + 1);
  assert.equal(files[4].filename, 'layers.0.W_K.0.npy'); // W_E, W_P, then layer 0's W_Q of each head
  const wq = readNpy(Buffer.from(files.find((f) => f.filename === 'layers.1.W_Q.1.npy').data));
  assert.deepEqual(wq.shape, [32, 16]);
  assert.ok(wq.data.equals(f64Bytes(SHIPPED.model.params.layers[1].W_Q[1].values)));
});

test("the numpy script rebuilds the model's forward pass: its logits are the engine's to 1e-12", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'trained-'));
  writeFileSync(path.join(dir, MODEL_FILE), modelJson(SHIPPED.model));
  const tokens = engine.taskBatch(SHIPPED.spec, { count: 3 }).tokens[2].slice(0, 24);
  writeFileSync(path.join(dir, 'trained-forward.py'), forwardScript(tokens));
  const printed = JSON.parse(
    execFileSync('/usr/bin/python3', [path.join(dir, 'trained-forward.py')], { encoding: 'utf8' }),
  );
  const { logits } = engine.modelForward(SHIPPED.model, tokens);
  assert.deepEqual([printed.length, printed[0].length], logits.shape);
  let worst = 0;
  printed.flat().forEach((v, i) => (worst = Math.max(worst, Math.abs(v - logits.values[i]))));
  assert.ok(worst <= 1e-12, `largest difference ${worst}`);
  console.log(`# numpy against the engine: largest difference ${worst}`);
});
