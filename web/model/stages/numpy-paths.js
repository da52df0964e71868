// Where the exported numpy script keeps each stage, by the pass it writes (structure: 'self',
// 'cross', 'encoder-layer', 'kv-cache', 'flash', 'backward' or 'model'; ../export/numpy-script.js): the stage entries'
// `numpy` functions, (structure, { head, kvHead, step }) → a Python expression, or null where
// that pass has no such stage.

/** A per-head stage: stages["heads"][h][id], or in decoding steps[t]["heads"][h][id]. */
export const ofHead =
  (id, flash = null) =>
  (structure, { head, step }) => {
    if (structure === 'flash') return flash;
    if (structure === 'kv-cache') return `steps[${step}]["heads"][${head}]["${id}"]`;
    if (structure === 'model') return `passes[${step}]["heads"][${head}]["${id}"]`;
    return `stages["heads"][${head}]["${id}"]`;
  };

/** A stage of the whole layer: stages[id], in decoding steps[t][id], in the model passes[l][id]. */
export const ofLayer =
  (id) =>
  (structure, { step }) => {
    if (structure === 'flash') return null;
    if (structure === 'model') return `passes[${step}]["${id}"]`;
    return structure === 'kv-cache' ? `steps[${step}]["${id}"]` : `stages["${id}"]`;
  };

/** A decode step's own stage of a K/V head: steps[t]["kv"][g][id]. */
export const ofKvHead =
  (id) =>
  (structure, { head, kvHead, step }) =>
    structure === 'kv-cache' ? `steps[${step}]["kv"][${kvHead ?? head}]["${id}"]` : null;

/** A FlashAttention tile's stage: tiles[n][id]. */
export const ofTile =
  (id) =>
  (structure, { step }) =>
    structure === 'flash' ? `tiles[${step}]["${id}"]` : null;

/** A gradient of the backward pass: grads[id], grads["heads"][h][id] (per query head) or
 * grads["kv"][g][id] (per K/V head). */
export const ofGradient =
  (id, per = null) =>
  (structure, { head, kvHead }) => {
    if (structure !== 'backward') return null;
    if (per === 'head') return `grads["heads"][${head}]["${id}"]`;
    if (per === 'kv') return `grads["kv"][${kvHead}]["${id}"]`;
    return `grads["${id}"]`;
  };

/** A name the script defines for these structures only; a backward pass runs the self pass
 * first, so it keeps the self pass's names. */
export const named = (byStructure) => (structure) =>
  byStructure[structure] ?? (structure === 'backward' ? byStructure.self : null) ?? null;
