// Trains the default induction run with the engine and writes web/checkpoints/induction.json:
// the run's history (each checkpoint's step, losses and head scores) and its last model, each
// matrix's float64 values in base64 (little-endian), so that the trained chapter shows at once.
// tests/wasm/training.test.mjs retrains and requires the same bits.
//     node scripts/train-checkpoint.mjs   (after the engine build)
import { writeFileSync } from 'node:fs';

import { createEngine } from '../dist/engine.js';
import { mapParams } from '../web/model/model-params.js';

export const SPEC = { task: 'induction', seed: 0 };
export const FILE = new URL('../web/checkpoints/induction.json', import.meta.url);

const base64 = (values) => Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');

// Each matrix { shape, values } with its values as base64 text.
const packed = (params) => mapParams(params, ({ shape, values }) => ({ shape, values: base64(values) }));

/** The file's content for a finished run's checkpoints. */
export function checkpointFile(checkpoints) {
  const last = checkpoints.at(-1);
  return {
    spec: SPEC,
    history: checkpoints.map(({ step, loss, trainLoss, headScores, uniformScores }) => ({
      ...{ step, loss, trainLoss, headScores, uniformScores },
    })),
    model: { config: last.model.config, params: packed(last.model.params) },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const engine = await createEngine();
  const started = performance.now();
  const { checkpoints } = engine.train(SPEC);
  const seconds = (performance.now() - started) / 1000;
  const text = `${JSON.stringify(checkpointFile(checkpoints))}\n`;
  writeFileSync(FILE, text);
  console.log(`train-checkpoint: ${checkpoints.at(-1).step} steps in ${seconds.toFixed(1)} s, ${text.length} bytes`);
}
