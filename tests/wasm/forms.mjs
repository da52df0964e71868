// What a trace of each kind must look like, worked out from its config alone: the stage order
// (decode steps and tiles, the pruned stage), each stage's shape, axes and equations, and the
// K/V parameter and cache counts. Shared by the WASM engine tests; numpy's values: support.mjs.

/** "scores/2" for a head stage, "output" for the others; in a decode step or a tile
 * "scores/2@3", "x_t/-@0". */
export const label = (id, head, step = null) => {
  if (step === null) return head === null ? id : `${id}/${head}`;
  return `${id}/${head ?? '-'}@${step}`;
};

/** Query heads per K/V head: query head i reads K/V head ⌊i / group⌋. */
export const groupOf = ({ numHeads, numKvHeads = numHeads }) => numHeads / numKvHeads;

/** Whether no query sees a later key (where a prefix allows it): causal, a window, a prefix or packed documents. */
export const isCausal = ({ causal, window = null, prefix = null, documents = [] }) =>
  Boolean(causal) || window !== null || prefix !== null || documents.length > 0;

/** Whether the logits get a mask M: causal (of any kind above) or padding keys, but never in decoding (its cache
 * holds only what the new query sees). */
export const hasMask = (sizes) => sizes.kind !== 'kv-cache' && (isCausal(sizes) || (sizes.validKeys ?? null) !== null);

/** ALiBi's slopes by Press et al.'s rule, written out: (2^(−8/n))^k for k = 1 … n, n the largest power of two
 * ≤ h; then every other slope of 2n until there are h. */
export function alibiSlopes(h) {
  const geometric = (n) => Array.from({ length: n }, (_, k) => 2 ** ((-8 / n) * (k + 1)));
  const n = 2 ** Math.floor(Math.log2(h));
  return [...geometric(n), ...geometric(2 * n).filter((_, k) => k % 2 === 0)].slice(0, h);
}

const ENCODER_STAGES = ['residual1', 'norm1', 'ffn_pre', 'ffn_hidden', 'ffn_out', 'residual2', 'norm2'];
const TILE_STAGES = ['tile_scores', 'tile_max', 'tile_sum', 'tile_out'];

/**
 * FlashAttention's tiles in loop order, { queryRows, keyRows } half-open: each block of
 * blockRows queries against each block of blockCols keys, except that under the causal mask a
 * block stops at the first key block starting after its last query.
 */
export function tilesOf({ seqLen, blockRows, blockCols, causal }) {
  const tiles = [];
  for (let i0 = 0; i0 < seqLen; i0 += blockRows) {
    const i1 = Math.min(i0 + blockRows, seqLen);
    for (let j0 = 0; j0 < seqLen && !(causal && j0 > i1 - 1); j0 += blockCols) {
      tiles.push({ queryRows: [i0, i1], keyRows: [j0, Math.min(j0 + blockCols, seqLen)] });
    }
  }
  return tiles;
}

/** A stage's tile: the tile of its step for tile_*, the block's rows and every key it read for
 * block_out, null outside FlashAttention's loop. */
export function expectedTile({ id, step }, sizes) {
  if (sizes.kind !== 'flash' || step === null) return null;
  const tile = tilesOf(sizes)[step];
  return id === 'block_out' ? { queryRows: tile.queryRows, keyRows: [0, tile.keyRows[1]] } : tile;
}

// Decoding: per step x_t; per query head q (q_rot under RoPE), then k_new (k_rot), v_new, k_cache,
// v_cache once per K/V head (at the first query head of its group), scores, scaled, (biased under
// ALiBi), weights, head; concat and output with W_O. Then the steps stacked, and causal attention
// over the whole sequence.
function decodeLabels(sizes) {
  const labels = [];
  const rot = (id) => (sizes.rope ? [id] : []);
  const norm = (id) => (sizes.qkNorm ? [id] : []);
  for (let t = 0; t < sizes.seqLen; t += 1) {
    labels.push(label('x_t', null, t));
    for (let h = 0; h < sizes.numHeads; h += 1) {
      const kv =
        h % groupOf(sizes) === 0 ? ['k_new', ...norm('k_norm'), ...rot('k_rot'), 'v_new', 'k_cache', 'v_cache'] : [];
      const logits = [...(sizes.softcap ? ['capped'] : []), ...(sizes.alibi ? ['biased'] : [])];
      const ids = ['q', ...norm('q_norm'), ...rot('q_rot'), ...kv, 'scores', 'scaled', ...logits];
      const sink = sizes.sinks ? ['sink'] : [];
      labels.push(...[...ids, 'weights', ...sink, 'head'].map((id) => label(id, h, t)));
    }
    if (sizes.outputProjection) labels.push(label('concat', null, t), label('output', null, t));
    else if (sizes.numHeads > 1) labels.push(label('concat', null, t)); // the step's output
  }
  return [...labels, 'stacked', 'causal_reference'];
}

// FlashAttention: x, q, k, v; four stages per tile, block_out after a block's last tile; then
// the blocks stacked, and ordinary attention.
function flashLabels(sizes) {
  const labels = ['x', 'q/0', 'k/0', 'v/0'];
  tilesOf(sizes).forEach((tile, step, tiles) => {
    labels.push(...TILE_STAGES.map((id) => label(id, 0, step)));
    if (tiles[step + 1]?.queryRows[0] !== tile.queryRows[0]) labels.push(label('block_out', 0, step));
  });
  return [...labels, 'stacked', 'reference'];
}

// The backward pass, after the forward stages: dO; with W_O its gradient and d_concat; per K/V
// head, each query head of its group (d_head … d_w_q), then the group's d_v, d_k, d_w_k and d_w_v
// at its first query head; last d_x. Under RoPE d_q is d_q_rot then d_q_unrot, d_k likewise.
function backwardLabels(sizes) {
  const labels = ['d_output', ...(sizes.outputProjection ? ['d_w_o', 'd_concat'] : [])];
  const group = groupOf(sizes);
  const q = sizes.rope ? ['d_q_rot', 'd_q_unrot'] : ['d_q'];
  const k = sizes.rope ? ['d_k_rot', 'd_k_unrot'] : ['d_k'];
  for (let first = 0; first < sizes.numHeads; first += group) {
    for (let h = first; h < first + group; h += 1)
      labels.push(...['d_head', 'd_weights', 'd_scaled', 'd_scores', ...q, 'd_w_q'].map((id) => label(id, h)));
    labels.push(...['d_v', ...k, 'd_w_k', 'd_w_v'].map((id) => label(id, first)));
  }
  return [...labels, 'd_x'];
}

/**
 * The stage labels of a trace, in the lesson's order: the inputs (x, or x_q and x_kv; x_pos with a
 * sinusoidal encoding); per query head q, then k and v once per K/V head (at the first query head
 * of its group), under RoPE q_rot (and k_rot once per K/V head), scores, scaled, (biased under
 * ALiBi), (masked), weights, head; concat, pruned (with prunedHeads) and output with W_O; the
 * encoder layer's stages after those; the backward pass's after those (backwardLabels).
 * Decoding and FlashAttention: see decodeLabels and flashLabels.
 */
// The trained model: x₀, then each layer's causal attention and residual (on step = layer), then
// the prediction and its loss.
function modelLabels({ numLayers, numHeads }) {
  const labels = ['embedded'];
  for (let l = 0; l < numLayers; l += 1) {
    labels.push(label('x', null, l));
    for (let h = 0; h < numHeads; h += 1)
      labels.push(...['q', 'k', 'v', 'scores', 'scaled', 'masked', 'weights', 'head'].map((id) => label(id, h, l)));
    labels.push(...['concat', 'output', 'residual'].map((id) => label(id, null, l)));
  }
  return [...labels, 'logits', 'probabilities', 'token_loss', 'loss'];
}

// Multi-head latent attention: x, the latent c_kv and (with d_r > 0) the shared RoPE key k_rope;
// per head q, (q_rope), k and v decompressed from the latent, q_absorbed, scores, scaled,
// (masked), weights, latent_head, head; concat and output with W_O (DeepSeek-V2 §2.1).
function latentLabels(sizes) {
  const rope = sizes.dRope > 0;
  const labels = ['x', 'c_kv', ...(rope ? ['k_rope'] : [])];
  for (let h = 0; h < sizes.numHeads; h += 1) {
    const ids = [
      'q',
      ...(rope ? ['q_rope'] : []),
      'k',
      'v',
      'q_absorbed',
      'scores',
      'scaled',
      ...(hasMask(sizes) ? ['masked'] : []),
      'weights',
      'latent_head',
      'head',
    ];
    labels.push(...ids.map((id) => label(id, h)));
  }
  return [...labels, 'concat', 'output'];
}

export function expectedLabels(sizes) {
  const { kind = 'self', numHeads, outputProjection } = sizes;
  if (kind === 'model') return modelLabels(sizes);
  if (kind === 'mla') return latentLabels(sizes);
  if (kind === 'kv-cache') return decodeLabels(sizes);
  if (kind === 'flash') return flashLabels(sizes);
  const labels = kind === 'cross' ? ['x_q', 'x_kv'] : ['x'];
  if (sizes.positionalEncoding) labels.push('x_pos');
  const only = (yes, ids) => (yes ? ids : []);
  for (let h = 0; h < numHeads; h += 1) {
    const first = h % groupOf(sizes) === 0;
    const normed = only(sizes.qkNorm, ['q_norm', ...only(first, ['k_norm'])]);
    const turned = only(sizes.rope, ['q_rot', ...only(first, ['k_rot'])]);
    const logits = [
      ...only(sizes.softcap, ['capped']),
      ...only(sizes.alibi, ['biased']),
      ...only(hasMask(sizes), ['masked']),
    ];
    const weights = ['weights', ...only(sizes.sinks, ['sink'])];
    const ids = [
      'q',
      ...only(first, ['k', 'v']),
      ...normed,
      ...turned,
      'scores',
      'scaled',
      ...logits,
      ...weights,
      'head',
    ];
    labels.push(...ids.map((id) => label(id, h)));
  }
  const pruning = (sizes.prunedHeads ?? []).length > 0 ? ['pruned'] : [];
  if (outputProjection) labels.push('concat', ...pruning, 'output');
  else if (numHeads > 1) labels.push('concat'); // the output
  if (kind === 'encoder-layer') labels.push(...ENCODER_STAGES);
  if (kind === 'backward') labels.push(...backwardLabels(sizes));
  return labels;
}

// Each dimension of a config as [number, symbol]. Cross-attention tells its two lengths apart.
// A decode step t has one query row and t+1 cached keys; a tile B_r rows and B_c keys (fewer at
// the end); the stacked result is T rows of one step or ⌈T / B_r⌉ blocks of B_r.
function dimsOf(sizes, { step = null, tile = null } = {}) {
  const { kind, seqLen, kvLen = seqLen, dModel, numHeads, numKvHeads = numHeads, dK, dV, dFF } = sizes;
  const { scaleScores = true } = sizes;
  const { outputProjection, blockRows, blockCols, window = null } = sizes;
  const cross = kind === 'cross';
  const decoding = kind === 'kv-cache' && step !== null;
  const span = (rows, whole) => (tile ? rows[1] - rows[0] : whole);
  const blocks = [Math.ceil(seqLen / blockRows), 'blocks'];
  // MLA's q and k carry d_r RoPE columns beside d_k: the scores are divided by √(d_k + d_r).
  const { dLatent = null, dRope = 0 } = sizes;
  const root = dRope > 0 ? [`√${dK + dRope}`, '√(d_k + d_r)'] : [`√${dK}`, '√d_k'];
  // A window of W keeps W cache rows once full.
  const held = (n, growing) => (window !== null && n >= window ? [window, 'W'] : [n, growing]);
  return {
    t: decoding ? [1, '1'] : [seqLen, cross ? 'T_q' : 'T'],
    tkv: decoding ? held(step + 1, 't+1') : [kvLen, cross ? 'T_kv' : 'T'],
    krows: decoding ? [1, '1'] : [kvLen, cross ? 'T_kv' : 'T'], // the keys k_rot turns
    past: held(step, 't'),
    whole: [seqLen, 'T'],
    one: [1, '1'],
    parts: kind === 'flash' ? blocks : [seqLen, 'T'],
    part: kind === 'flash' ? [blockRows, 'B_r'] : [1, '1'],
    out: kind === 'flash' ? [dV, 'd_v'] : outputProjection ? [dModel, 'd_model'] : [numHeads * dV, 'h·d_v'],
    br: [span(tile?.queryRows, blockRows), 'B_r'],
    bc: [span(tile?.keyRows, blockCols), 'B_c'],
    d: [dModel, 'd_model'],
    dk: [dK, 'd_k'],
    dv: [dV, 'd_v'],
    dff: [dFF, 'd_ff'],
    dc: [dLatent, 'd_c'], // MLA's latent
    dr: [dRope, 'd_r'], // MLA's RoPE part
    h: [numHeads, 'h'],
    hdv: [numHeads * dV, 'h·d_v'],
    root: scaleScores ? root : ['1', '1'],
    group: [numHeads / numKvHeads, 'g'], // the backward pass: query heads per K/V head
    terms: [numHeads + 2 * numKvHeads, 'parts'], // d_x's parts
    vocab: [sizes.vocab, 'V'], // the trained model's vocabulary
    scored: [seqLen - 1, 'T \u2212 1'], // its positions with a next token
  };
}

// Each stage's result as the dimensions of its rows and columns.
const RESULT = {
  x: ['t', 'd'],
  x_q: ['t', 'd'],
  x_kv: ['tkv', 'd'],
  x_pos: ['t', 'd'],
  q: ['t', 'dk'],
  q_norm: ['t', 'dk'],
  k_norm: ['krows', 'dk'],
  q_rot: ['t', 'dk'],
  k_rot: ['krows', 'dk'],
  k: ['tkv', 'dk'],
  v: ['tkv', 'dv'],
  scores: ['t', 'tkv'],
  scaled: ['t', 'tkv'],
  capped: ['t', 'tkv'],
  biased: ['t', 'tkv'],
  masked: ['t', 'tkv'],
  weights: ['t', 'tkv'],
  sink: ['t', 'one'],
  head: ['t', 'dv'],
  c_kv: ['tkv', 'dc'],
  k_rope: ['tkv', 'dr'],
  q_rope: ['t', 'dr'],
  q_absorbed: ['t', 'dc'],
  latent_head: ['t', 'dc'],
  concat: ['t', 'hdv'],
  pruned: ['t', 'hdv'],
  output: ['t', 'd'],
  residual1: ['t', 'd'],
  norm1: ['t', 'd'],
  ffn_pre: ['t', 'dff'],
  ffn_hidden: ['t', 'dff'],
  ffn_out: ['t', 'd'],
  residual2: ['t', 'd'],
  norm2: ['t', 'd'],
  x_t: ['t', 'd'],
  k_new: ['t', 'dk'],
  v_new: ['t', 'dv'],
  k_cache: ['tkv', 'dk'],
  v_cache: ['tkv', 'dv'],
  stacked: ['whole', 'out'],
  causal_reference: ['whole', 'out'],
  reference: ['whole', 'out'],
  tile_scores: ['br', 'bc'],
  tile_max: ['br', 'one'],
  tile_sum: ['br', 'one'],
  tile_out: ['br', 'dv'],
  block_out: ['br', 'dv'],
  d_output: ['t', 'out'],
  d_w_o: ['hdv', 'd'],
  d_concat: ['t', 'hdv'],
  d_head: ['t', 'dv'],
  d_weights: ['t', 'tkv'],
  d_scaled: ['t', 'tkv'],
  d_scores: ['t', 'tkv'],
  d_q: ['t', 'dk'],
  d_q_rot: ['t', 'dk'],
  d_q_unrot: ['t', 'dk'],
  d_k_rot: ['tkv', 'dk'],
  d_k_unrot: ['tkv', 'dk'],
  d_v: ['tkv', 'dv'],
  d_k: ['tkv', 'dk'],
  d_w_q: ['d', 'dk'],
  d_w_k: ['d', 'dk'],
  d_w_v: ['d', 'dv'],
  d_x: ['t', 'd'],
  embedded: ['t', 'd'],
  residual: ['t', 'd'],
  logits: ['t', 'vocab'],
  probabilities: ['t', 'vocab'],
  token_loss: ['scored', 'one'],
  loss: ['one', 'one'],
};

const pair = (a, b) => `(${a}, ${b})`;
const product = (m, k, n) => `${pair(m, k)} @ ${pair(k, n)} → ${pair(m, n)}`;
const same = (op) => (r, c) => `${op}${pair(r, c)} → ${pair(r, c)}`;
const sum = (r, c) => `${pair(r, c)} + ${pair(r, c)} → ${pair(r, c)}`;
const affine = (m, k, n) => `${pair(m, k)} @ ${pair(k, n)} + (${n}) → ${pair(m, n)}`;
const rotate = (r, c) => `rotate${pair(r, c)} → ${pair(r, c)}`;
const append = (past, t, tkv, n) => `[${pair(past, n)}; ${pair(t, n)}] → ${pair(tkv, n)}`;
const productTn = (k, m, n) => `${pair(k, m)}ᵀ @ ${pair(k, n)} → ${pair(m, n)}`; // aᵀ · b
const productNt = (m, k, n) => `${pair(m, k)} @ ${pair(n, k)}ᵀ → ${pair(m, n)}`; // a · bᵀ
const grouped = (group, k, m, n) => `Σ ${group} × ${productTn(k, m, n)}`;

// Each stage's equation over dims spelled one way (all numbers, or all symbols).
const EQUATION = {
  x: ({ t, d }) => pair(t, d),
  x_q: ({ t, d }) => pair(t, d),
  x_kv: ({ tkv, d }) => pair(tkv, d),
  x_pos: ({ t, d }) => sum(t, d),
  q: ({ t, d, dk }) => product(t, d, dk),
  q_norm: ({ t, dk }) => `rmsnorm${pair(t, dk)} ⊙ λ → ${pair(t, dk)}`,
  k_norm: ({ krows, dk }) => `rmsnorm${pair(krows, dk)} ⊙ λ → ${pair(krows, dk)}`,
  q_rot: ({ t, dk }) => rotate(t, dk),
  k_rot: ({ krows, dk }) => rotate(krows, dk),
  k: ({ tkv, d, dk }) => product(tkv, d, dk),
  v: ({ tkv, d, dv }) => product(tkv, d, dv),
  scores: ({ t, dk, tkv }) => product(t, dk, tkv),
  scaled: ({ t, tkv, root }) => `${pair(t, tkv)} ÷ ${root} → ${pair(t, tkv)}`,
  capped: ({ t, tkv }) => `κ·tanh(${pair(t, tkv)} ÷ κ) → ${pair(t, tkv)}`,
  biased: ({ t, tkv }) => sum(t, tkv),
  masked: ({ t, tkv }) => sum(t, tkv),
  weights: ({ t, tkv }) => same('softmax')(t, tkv),
  sink: ({ t, tkv, one }) => `sink share${pair(t, tkv)}, ζ → ${pair(t, one)}`,
  head: ({ t, tkv, dv }) => product(t, tkv, dv),
  concat: ({ h, t, dv, hdv }) => `${h} × ${pair(t, dv)} → ${pair(t, hdv)}`,
  pruned: ({ t, hdv }) => `${pair(t, hdv)} ⊙ gate → ${pair(t, hdv)}`,
  output: ({ t, hdv, d }) => product(t, hdv, d),
  residual1: ({ t, d }) => sum(t, d),
  norm1: ({ t, d }) => same('norm')(t, d),
  ffn_pre: ({ t, d, dff }) => affine(t, d, dff),
  ffn_hidden: ({ t, dff }) => same('ReLU')(t, dff),
  ffn_out: ({ t, dff, d }) => affine(t, dff, d),
  residual2: ({ t, d }) => sum(t, d),
  norm2: ({ t, d }) => same('norm')(t, d),
  x_t: ({ t, d }) => pair(t, d),
  k_new: ({ t, d, dk }) => product(t, d, dk),
  v_new: ({ t, d, dv }) => product(t, d, dv),
  k_cache: ({ past, t, tkv, dk }) => append(past, t, tkv, dk),
  v_cache: ({ past, t, tkv, dv }) => append(past, t, tkv, dv),
  stacked: ({ parts, part, whole, out }) => `${parts} × ${pair(part, out)} → ${pair(whole, out)}`,
  causal_reference: ({ whole, out }) => pair(whole, out),
  reference: ({ whole, out }) => pair(whole, out),
  tile_scores: ({ br, dk, bc, root }) => `${pair(br, dk)} @ ${pair(dk, bc)} ÷ ${root} → ${pair(br, bc)}`,
  tile_max: ({ br, bc, one }) => `max(μ, rowmax${pair(br, bc)}) → ${pair(br, one)}`,
  tile_sum: ({ br, bc, one }) => `α·Z + rowsum${pair(br, bc)} → ${pair(br, one)}`,
  tile_out: ({ br, bc, dv }) => `α·O + ${product(br, bc, dv)}`,
  block_out: ({ br, dv }) => `${pair(br, dv)} ÷ l → ${pair(br, dv)}`,
  d_output: ({ t, out }) => pair(t, out),
  d_w_o: ({ t, hdv, d }) => productTn(t, hdv, d),
  d_concat: ({ t, d, hdv }) => productNt(t, d, hdv),
  d_head: ({ t, hdv, h, dv }) => `${pair(t, hdv)} → ${h} × ${pair(t, dv)}`,
  d_weights: ({ t, dv, tkv }) => productNt(t, dv, tkv),
  d_scaled: ({ t, tkv }) => `${pair(t, tkv)} ⊙ (${pair(t, tkv)} − rowsum) → ${pair(t, tkv)}`,
  d_scores: ({ t, tkv, root }) => `${pair(t, tkv)} ÷ ${root} → ${pair(t, tkv)}`,
  d_q: ({ t, tkv, dk }) => product(t, tkv, dk),
  d_q_rot: ({ t, tkv, dk }) => product(t, tkv, dk),
  d_q_unrot: ({ t, dk }) => `rotate${pair(t, dk)} by −φ → ${pair(t, dk)}`,
  d_k_rot: ({ group, t, tkv, dk }) => grouped(group, t, tkv, dk),
  d_k_unrot: ({ tkv, dk }) => `rotate${pair(tkv, dk)} by −φ → ${pair(tkv, dk)}`,
  d_v: ({ group, t, tkv, dv }) => grouped(group, t, tkv, dv),
  d_k: ({ group, t, tkv, dk }) => grouped(group, t, tkv, dk),
  d_w_q: ({ t, d, dk }) => productTn(t, d, dk),
  d_w_k: ({ tkv, d, dk }) => productTn(tkv, d, dk),
  d_w_v: ({ tkv, d, dv }) => productTn(tkv, d, dv),
  d_x: ({ terms, t, d }) => `Σ ${terms} × ${pair(t, d)} → ${pair(t, d)}`,
  embedded: ({ t, d }) => sum(t, d),
  residual: ({ t, d }) => sum(t, d),
  logits: ({ t, d, vocab }) => product(t, d, vocab),
  probabilities: ({ t, vocab }) => same('softmax')(t, vocab),
  token_loss: ({ t, vocab, scored, one }) => `\u2212ln ${pair(t, vocab)}[next] → ${pair(scored, one)}`,
  loss: ({ scored, one }) => `mean${pair(scored, one)} → ${pair(one, one)}`,
};

// MLA's own stages, and the stages whose operands differ from self-attention's: k and v come up
// from the latent, the scores add the RoPE parts' product (d_r > 0), the head comes from the
// latent head.
const projectRope = (t, d, dr) => `rotate(${pair(t, d)} @ ${pair(d, dr)}) → ${pair(t, dr)}`;
const LATENT_EQUATION = {
  c_kv: ({ tkv, d, dc }) => product(tkv, d, dc),
  k_rope: ({ tkv, d, dr }) => projectRope(tkv, d, dr),
  q_rope: ({ t, d, dr }) => projectRope(t, d, dr),
  k: ({ tkv, dc, dk }) => product(tkv, dc, dk),
  v: ({ tkv, dc, dv }) => product(tkv, dc, dv),
  q_absorbed: ({ t, dk, dc }) => productNt(t, dk, dc),
  scores: ({ t, dk, dr, tkv }, rope) =>
    rope ? `${pair(t, dk)} @ ${pair(dk, tkv)} + ${product(t, dr, tkv)}` : product(t, dk, tkv),
  latent_head: ({ t, tkv, dc }) => product(t, tkv, dc),
  head: ({ t, dc, dv }) => product(t, dc, dv),
};

/**
 * A stage's { shape, axes, equation, symbolic } for a config (trace.config or PRESETS' sizes);
 * at: the stage's { step, tile } in decoding or FlashAttention.
 */
export function expectedForm(id, sizes, at = {}) {
  const dims = dimsOf(sizes, at);
  const spelled = (i) => Object.fromEntries(Object.entries(dims).map(([k, v]) => [k, v[i]]));
  const equation = (sizes.kind === 'mla' && LATENT_EQUATION[id]) || EQUATION[id];
  const rope = (sizes.dRope ?? 0) > 0;
  return {
    shape: RESULT[id].map((k) => dims[k][0]),
    axes: RESULT[id].map((k) => dims[k][1]),
    equation: equation(spelled(0), rope),
    symbolic: equation(spelled(1), rope),
  };
}

/** The K/V parameters (W_K + W_V) and cache values trace.config.kv reports, by hand: this
 * layer's, and the same layer's with one K/V head per query head (multi-head attention). MLA:
 * the floats a token caches, d_c + d_r, against h·(d_k + d_v) for multi-head attention and
 * h_kv·(d_k + d_v) for each grouped-query count h_kv < h that divides h. */
export function kvCounts({ kind, kvLen, dModel, numHeads, numKvHeads, dK, dV, dLatent, dRope }) {
  if (kind === 'mla') {
    const divisors = Array.from({ length: numHeads - 1 }, (_, i) => i + 1).filter((g) => numHeads % g === 0);
    return {
      perToken: {
        mla: dLatent + dRope,
        mha: numHeads * (dK + dV),
        gqa: divisors.map((kvHeads) => ({ kvHeads, floats: kvHeads * (dK + dV) })),
      },
    };
  }
  return {
    params: numKvHeads * dModel * (dK + dV),
    paramsMha: numHeads * dModel * (dK + dV),
    cacheValues: kvLen * numKvHeads * (dK + dV),
    cacheValuesMha: kvLen * numHeads * (dK + dV),
  };
}
