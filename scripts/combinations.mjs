// The feature combinations the tests and numpy's pairwise reference share: every feature alone
// and in every pair, in each kind that runs attention heads. tests/wasm/combinations.test.mjs
// runs them all (each runs, its stage text checked, or is refused by a field);
// scripts/make-reference.py computes the ones the engine runs (`node scripts/combinations.mjs`
// prints them: [{ name, spec }]) into tests/fixtures/pairwise-reference.json.
export const KINDS = {
  self: { seed: 5, seqLen: 6, dModel: 8, numHeads: 2 },
  cross: { kind: 'cross', seed: 5, queryLen: 3, keyLen: 6, dModel: 8, numHeads: 2 },
  'kv-cache': { kind: 'kv-cache', seed: 5, seqLen: 6, dModel: 8, numHeads: 2 },
  flash: { kind: 'flash', seed: 5, seqLen: 6, dModel: 8, dK: 4, dV: 4, blockRows: 2, blockCols: 3 },
  backward: { kind: 'backward', seed: 5, seqLen: 6, dModel: 8, numHeads: 2 },
  // MLA takes causal, RoPE's convention (for its d_r part) and unscaled; every other feature is a
  // field it refuses by name.
  mla: { kind: 'mla', seed: 5, seqLen: 6, dModel: 8, numHeads: 2, dLatent: 4, dRope: 2 },
};

export const FEATURES = {
  causal: { causal: true },
  window: { window: 3 },
  // StreamingLLM: the first token stays seen beside the window's 2 latest keys. It needs a window,
  // so it carries its own, the window feature's: paired with that feature the pair is the same.
  sinkTokens: { sinkTokens: 1, window: 3 },
  prefix: { prefix: 2 },
  documents: { documents: [2, 4] },
  padding: { validKeys: 5 },
  sinusoidal: { positionalEncoding: 'sinusoidal' },
  'rope interleaved': { rope: { convention: 'interleaved' } },
  'rope half-split': { rope: { convention: 'half-split' } },
  alibi: { alibi: true },
  qkNorm: { qkNorm: true }, // each gain 1: every row of q and k to mean square 1 before RoPE
  softcap: { softcap: 0.03 }, // below the logits' size at weight scale 0.1: the cap bends them
  sinks: { sinks: true }, // drawn: one logit per query head, after every other draw
  'grouped K/V': { numKvHeads: 1 },
  'no W_O': { outputProjection: false },
  unscaled: { scaleScores: false },
};

// Features the backward pass refuses by name (it differentiates the passes the lesson teaches).
export const NOT_IN_BACKWARD = ['sinkTokens', 'softcap', 'qkNorm', 'sinks'];

// Each feature alone, then every pair, in every kind: [name, spec].
export function combinations() {
  const names = Object.keys(FEATURES);
  const sets = [[], ...names.map((a) => [a]), ...names.flatMap((a, i) => names.slice(i + 1).map((b) => [a, b]))];
  return Object.entries(KINDS).flatMap(([kind, base]) =>
    sets.map((set) => [
      `${kind}${set.map((f) => ` + ${f}`).join('')}`,
      Object.assign({}, base, ...set.map((f) => FEATURES[f])),
    ]),
  );
}

// Run as a script: the combinations the engine runs (after the engine's build), as JSON.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { createEngine } = await import('../dist/engine.js');
  const engine = await createEngine();
  const runs = (spec) => {
    try {
      engine.run(spec);
      return true;
    } catch {
      return false; // refused by a field: tests/wasm/combinations.test.mjs checks the message
    }
  };
  const accepted = combinations().filter(([, spec]) => runs(spec));
  console.log(JSON.stringify(accepted.map(([name, spec]) => ({ name, spec }))));
}
