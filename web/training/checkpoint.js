// The checkpoint the build ships (web/checkpoints/induction.json, scripts/train-checkpoint.mjs):
// its history as engine.train gave it, and its model with each matrix's float64 values read
// back from base64, bit for bit.

import { mapParams } from '../model/model-params.js';

function float64s(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new Float64Array(bytes.buffer);
}

const matrix = ({ shape, values }) => ({ shape, values: float64s(values) });

/** { spec, history, model } with the model's matrices as { shape, values: Float64Array }. */
export function readCheckpoint(file) {
  const params = mapParams(file.model.params, matrix);
  return { spec: file.spec, history: file.history, model: { config: file.model.config, params } };
}
