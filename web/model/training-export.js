// A trained model taken away: its matrices as JSON (every value in full: JSON's numbers read
// back as the same doubles), each as a .npy file, and a numpy script that rebuilds the model's
// forward pass from the JSON and prints the logits of a sequence. Pure text and bytes.

import { npyBytes } from './export/npy.js';
import { modelFunctions } from './export/numpy-model.js';
import { pyNumber } from './export/numpy-inputs.js';
import { mapParams, namedParams } from './model-params.js';

export const MODEL_FILE = 'trained-model.json';

const plainMatrix = ({ shape, values }) => ({ shape, values: Array.from(values) });

/** The model as engine.initModel gives it, with arrays for Float64Arrays: JSON text (hand it back
 *  to the engine with each `values` as a Float64Array again). */
export function modelJson(model) {
  const params = mapParams(model.params, plainMatrix);
  return `${JSON.stringify({ config: model.config, params })}\n`;
}

/** One NPY file per matrix: [{ filename: "layers.1.W_Q.0.npy", data: Uint8Array }]. */
export function npyFiles(model) {
  return namedParams(model.params).map(([name, m]) => ({ filename: `${name}.npy`, data: npyBytes(m.shape, m.values) }));
}

/** A numpy script: reads MODEL_FILE beside it, runs `tokens` through the model, prints the logits as JSON. */
export function forwardScript(tokens) {
  const ids = tokens
    .map(pyNumber)
    .map((t) => t.replace(/\.0$/, ''))
    .join(', ');
  return `# The trained attention-only model's forward pass, rebuilt with numpy from ${MODEL_FILE}
# (written by the attention stepper's training page, every value in full). Run beside that file:
#     python3 trained-forward.py
import json
import pathlib

import numpy as np


${modelFunctions().join('\n\n\n')}


def matrix(m):
    return np.array(m["values"], dtype=float).reshape(m["shape"])


def heads(ms):
    return [matrix(m) for m in ms]


params = json.loads((pathlib.Path(__file__).parent / "${MODEL_FILE}").read_text())["params"]
layers = [
    {"W_Qs": heads(w["W_Q"]), "W_Ks": heads(w["W_K"]), "W_Vs": heads(w["W_V"]), "W_O": matrix(w["W_O"])}
    for w in params["layers"]
]
tokens = [${ids}]
E = matrix(params["W_E"])[tokens]         # each token's row of W_E
P = matrix(params["W_P"])[:len(tokens)]   # each position's row of W_P
_, _, logits = model_forward(E, P, layers, matrix(params["W_U"]))
print(json.dumps(logits.tolist()))
`;
}
