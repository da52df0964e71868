// The attention-only model's parameters as the engine gives and takes them, { W_E, W_P, layers:
// [{ W_Q: [a matrix per head], W_K: […], W_V: […], W_O }], W_U }, walked in one place, in the
// engine's order (matrices_of in cpp/src/model.cpp): W_E, W_P, then per layer each head's W_Q,
// each head's W_K, each head's W_V and W_O, then W_U. No DOM, no engine: pages and scripts share it.

/** The same structure with each matrix m as f(m, name), f called in the engine's order; name as
 *  the downloads name the files: "W_E", "layers.1.W_Q.0", "layers.1.W_O", "W_U". */
export function mapParams(params, f) {
  const heads = (ms, name) => ms.map((m, h) => f(m, `${name}.${h}`));
  return {
    W_E: f(params.W_E, 'W_E'),
    W_P: f(params.W_P, 'W_P'),
    layers: params.layers.map((l, i) => ({
      W_Q: heads(l.W_Q, `layers.${i}.W_Q`),
      W_K: heads(l.W_K, `layers.${i}.W_K`),
      W_V: heads(l.W_V, `layers.${i}.W_V`),
      W_O: f(l.W_O, `layers.${i}.W_O`),
    })),
    W_U: f(params.W_U, 'W_U'),
  };
}

/** Every matrix with its name, in the engine's order: [["W_E", m], ["W_P", m], ["layers.0.W_Q.0", m], …]. */
export function namedParams(params) {
  const out = [];
  mapParams(params, (m, name) => out.push([name, m]));
  return out;
}
