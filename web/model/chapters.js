// The chapters of the stepper as data: each walks one kind of engine spec through its stages.
// Per chapter: id (the URL's #chapter= and the element's chapter attribute), title, the spec
// kind it runs, the form fields it shows (labels, hints: field labels and hints it words its own
// way), its lead paragraph, and the panel it adds (model/panels.js).

export const CHAPTERS = [
  {
    id: 'attention',
    title: 'Self-attention',
    kind: 'self',
    fields: [
      'tokens',
      'dModel',
      'heads',
      'dK',
      'dV',
      'seed',
      'weightScale',
      'causal',
      'outputProjection',
      'noScale',
      'prunedHeads',
    ],
    lead:
      'Queries, keys and values all come from one sequence: every token looks at every ' +
      'token of the same sentence (under the causal mask only itself and the tokens before it).',
    panel: 'costs',
  },
  {
    id: 'cross',
    title: 'Cross-attention',
    kind: 'cross',
    fields: [
      'tokens',
      'keyTokens',
      'validKeys',
      'dModel',
      'heads',
      'dK',
      'dV',
      'seed',
      'weightScale',
      'outputProjection',
      'noScale',
      'prunedHeads',
    ],
    labels: { tokens: 'Target tokens' },
    lead:
      'Queries come from one sequence (the target being written), keys and values from ' +
      'another (the source it reads). The weight matrix is T_q × T_kv, usually not ' +
      'square, and there is no causal mask: every target token may read the whole source.',
    panel: 'sequences',
  },
  {
    id: 'gqa',
    title: 'Grouped-query attention',
    kind: 'self',
    fields: [
      'tokens',
      'dModel',
      'heads',
      'kvHeads',
      'dK',
      'dV',
      'seed',
      'weightScale',
      'causal',
      'outputProjection',
      'noScale',
      'prunedHeads',
    ],
    lead:
      'Several query heads share one key/value head. The queries stay as many as ' +
      'before; only K and V, which a decoder must keep in its cache for every past ' +
      'token, shrink. With one K/V head for all queries this is multi-query attention.',
    panel: 'groups',
  },
  {
    id: 'encoder-layer',
    title: 'Encoder layer',
    kind: 'encoder-layer',
    fields: ['tokens', 'dModel', 'heads', 'dK', 'dV', 'dFF', 'seed', 'weightScale', 'causal', 'noScale', 'prunedHeads'],
    lead:
      'One whole Transformer encoder layer: multi-head attention, a residual connection ' +
      'and layer norm, then a position-wise feed-forward network (the same two-layer ' +
      'network applied to every token on its own), a second residual and layer norm. An encoder ' +
      'attends both ways: every token sees every token. Tick the causal mask and the same layer is the ' +
      'block a decoder-only model such as GPT stacks, not an encoder: causal masking is not only for the ' +
      'decoder of an encoder\u2013decoder model, it is in every layer of a decoder-only one, and ' +
      'encoder-only does not mean causal.',
    panel: 'layer',
  },
  {
    id: 'kv-cache',
    title: 'KV cache',
    kind: 'kv-cache',
    fields: [
      'tokens',
      'dModel',
      'heads',
      'kvHeads',
      'dK',
      'dV',
      'seed',
      'weightScale',
      'outputProjection',
      'window',
      'sinkTokens',
      'rope',
      'ropeConvention',
      'alibi',
    ],
    lead:
      'A decoder generates one token at a time, and the keys and values of the tokens before it never change: ' +
      'so it keeps them in a cache and computes only the new token\u2019s q, k and v. Step through time with ' +
      '\u2191 and \u2193 (or the slider), through the stages of a step with \u2190 and \u2192.',
    panel: 'decode',
  },
  {
    id: 'flash',
    title: 'FlashAttention',
    kind: 'flash',
    fields: ['tokens', 'dModel', 'dK', 'dV', 'blockRows', 'blockCols', 'seed', 'weightScale', 'causal', 'window'],
    lead:
      'The same attention without ever forming the T \u00d7 T score matrix: blocks of queries meet blocks of keys ' +
      'one tile at a time, and a running max \u03bc, sum Z and output U per row make the softmax come out exactly as ' +
      'if every score had been seen at once. Move between tiles with \u2191 and \u2193 (or the slider).',
    panel: 'tiles',
  },
  {
    id: 'positions',
    title: 'Positions',
    kind: 'self',
    fields: [
      'tokens',
      'dModel',
      'heads',
      'kvHeads',
      'dK',
      'dV',
      'seed',
      'weightScale',
      'causal',
      'positionalEncoding',
      'rope',
      'ropeConvention',
      'ropeOffset',
      'ropeDims',
      'alibi',
    ],
    lead:
      'Without a mask, attention does not know where a token is: shuffle the rows of X and every output row ' +
      'moves with its token, unchanged. A causal mask breaks that symmetry but gives no sense of distance ' +
      '(Haviv et al. 2022). Models add positions in one of three places: into X, fixed (the sinusoidal ' +
      'encoding) or learned (GPT-2, BERT, the Trained heads model\u2019s W_P); into q and k (RoPE turns each ' +
      'by its position, so a query meets a key at an angle set by how far apart they are); or into the scores ' +
      '(ALiBi subtracts a penalty growing with the distance).',
    panel: 'positions',
  },
  {
    id: 'masks',
    title: 'Masks',
    kind: 'self',
    fields: [
      'tokens',
      'dModel',
      'heads',
      'dK',
      'dV',
      'seed',
      'weightScale',
      'causal',
      'window',
      'sinkTokens',
      'prefix',
      'documents',
      'validKeys',
    ],
    labels: { validKeys: 'valid keys (padding after)' },
    lead:
      'A mask decides which keys each query may see: M holds 0 there and \u2212\u221e elsewhere, so the ' +
      'softmax gives every hidden key exactly 0. Each mask here leaves one span of keys per query: the ' +
      'causal mask the past, a sliding window the last W, a prefix-LM the prompt both ways, packed documents ' +
      'only their own, padding all but the pad tokens.',
    panel: 'masks',
  },
  {
    id: 'modern',
    title: 'Modern attention',
    kind: 'self',
    fields: [
      'tokens',
      'dModel',
      'heads',
      'kvHeads',
      'dK',
      'dV',
      'seed',
      'weightScale',
      'causal',
      'window',
      'sinkTokens',
      'rope',
      'ropeConvention',
      'qkNorm',
      'qNormGain',
      'kNormGain',
      'softcap',
      'sinks',
    ],
    lead:
      'The attention of models released since 2024 is the same softmax over q\u00b7k, with small changes that ' +
      'keep large models stable and their caches small. Soft-capping bends every logit through ' +
      '\u03ba\u00b7tanh(\u00b7 / \u03ba), so that none passes \u00b1\u03ba (Gemma 2, Grok-1); QK-norm scales every ' +
      'query and key row to mean square 1 before they meet, which bounds the logits another way (Qwen3, Gemma 3); ' +
      'a learned sink gives ' +
      'each head\u2019s softmax one more key, with no value, so that a head can attend to nothing (gpt-oss). ' +
      'Each example steps ' +
      'one change on real numbers, beside the models that use it.',
    panel: 'modern',
  },
  {
    id: 'latent',
    title: 'Latent attention (MLA)',
    kind: 'mla',
    fields: ['tokens', 'dModel', 'heads', 'dK', 'dV', 'dLatent', 'dRope', 'seed', 'weightScale', 'causal'],
    lead:
      'DeepSeek-V2 and V3 cache one short latent row per token instead of every head\u2019s keys and values: ' +
      'each head projects its keys and values up from the latent, and a small shared key part carries the ' +
      'position through RoPE. Because the up-projection is linear, a head can score its query against the ' +
      'latent itself; the steps show both routes giving the same numbers, and what the cache holds.',
    panel: 'modern',
  },
  {
    id: 'backward',
    title: 'Backpropagation',
    kind: 'backward',
    fields: [
      'tokens',
      'dModel',
      'heads',
      'kvHeads',
      'dK',
      'dV',
      'seed',
      'weightScale',
      'causal',
      'outputProjection',
      'noScale',
      'window',
      'rope',
      'ropeConvention',
      'alibi',
      'positionalEncoding',
    ],
    lead:
      'Backpropagation finds the gradient of the loss with respect to every weight by the chain rule, one ' +
      'stage at a time and in reverse: starting from dO, the gradient arriving at the output, each stage turns ' +
      'the gradient of its result into the gradients of its inputs. It uses the numbers the forward pass ' +
      'computed, and every dZ below has the shape of Z.',
    panel: 'backward',
  },
  {
    id: 'designed-heads',
    title: 'Designed heads',
    kind: 'designed',
    fields: ['tokens', 'causal', 'prunedHeads'],
    hints: {
      tokens:
        'these words build X: each token\u2019s position, its word and a ' +
        'constant 1, so repeating a word changes what the same-word head finds',
    },
    lead:
      'Random weights \u00d7 0.1 make every head nearly uniform: correct, but nothing to see. ' +
      'Here the weights are built so that each head does one recognisable thing, named for what ' +
      'it does, beside the heads of trained models it resembles. Every number is still the engine\u2019s.',
    panel: 'designed',
  },
  {
    id: 'trained-heads',
    title: 'Trained heads',
    kind: 'model',
    fields: ['tokens', 'checkpoint', 'scored'],
    labels: { tokens: 'Token ids' },
    hints: {
      tokens:
        'the model’s vocabulary is the ids 0–31; at most 24 of them. A block of tokens that ' +
        'repeats is what its induction head completes',
    },
    lead:
      'A tiny attention-only Transformer (two layers of two heads, no MLP, no layer norm), trained by this ' +
      'engine on random token sequences in which a block of 4\u20138 tokens appears twice in a row, at a random ' +
      'place. Nobody built its heads: training on next-token prediction turned layer 0\u2019s heads toward the ' +
      'previous token (head 0 most) and both layer-1 heads into induction heads, which look for the token after ' +
      'the last time the current one appeared. Step both layers, then the prediction and its ' +
      'loss; the time axis walks the layers. Heads that learn (training.html) trains it in your browser.',
    panel: 'trained',
  },
];

export const DEFAULT_CHAPTER = 'attention';

export function chapterById(id) {
  return CHAPTERS.find((c) => c.id === id) ?? null;
}

/** Whether chapter ids are every chapter in the tabs' own order (a list that changes nothing). */
export const isTabOrder = (ids) => ids.length === CHAPTERS.length && ids.every((id, i) => id === CHAPTERS[i].id);

/** A comma-separated list of chapter ids (a lecturer's tabs) → { ids: the chapters, in order, each
 *  once, or null when none; unknown: the rest, to be named }. */
export function chapterList(text) {
  const given = [...new Set(text.split(',').map((id) => id.trim()))].filter(Boolean);
  const ids = given.filter((id) => chapterById(id));
  return { ids: ids.length ? ids : null, unknown: given.filter((id) => !chapterById(id)) };
}
