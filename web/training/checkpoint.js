// The checkpoint the build ships (web/checkpoints/induction.json, scripts/train-checkpoint.mjs):
// its history as engine.train gave it, and its model with each matrix's float64 values read
// back from base64, bit for bit.

function float64s(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new Float64Array(bytes.buffer);
}

const matrix = ({ shape, values }) => ({ shape, values: float64s(values) });

/** { spec, history, model } with the model's matrices as { shape, values: Float64Array }. */
export function readCheckpoint(file) {
  const p = file.model.params;
  const params = {
    W_E: matrix(p.W_E),
    W_P: matrix(p.W_P),
    layers: p.layers.map((l) => ({
      W_Q: l.W_Q.map(matrix),
      W_K: l.W_K.map(matrix),
      W_V: l.W_V.map(matrix),
      W_O: matrix(l.W_O),
    })),
    W_U: matrix(p.W_U),
  };
  return { spec: file.spec, history: file.history, model: { config: file.model.config, params } };
}
