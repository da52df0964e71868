// Every configuration field in one table: the form's field, its URL hash key, the element's
// attribute, its label and hint, how it is checked, and the engine spec field it becomes.
// The controls, the URL hash, the element's attributes and the validation all read this table.
//
// type: 'tokens' (words split on spaces), 'whole' (a whole number in the engine's range for its
// spec field, engine.limits()), 'auto' (the same, or blank for the engine's default, which `blank`
// describes), 'decimal' (a number in the engine's range, (above, max], `example` saying what is
// usual; blank for none where `blank` says what that means), 'decimals' (numbers separated by
// commas or spaces, blank for none), 'heads' (head numbers
// separated by commas or spaces, blank for none), 'positions' (the same for positions), 'lengths'
// (token counts ≥ 1 the same way), 'choice' (one of `choices`), 'flag'. A flag's spec value is
// `on` where it gives one (positionalEncoding: 'sinusoidal'), and left out when off; an
// `object` flag is an object the fields named spec.field fill (rope: { convention, … }).
// hidden: kept in the form, the hash and the attributes, but not drawn as a text field (the
// pruned heads have their own switches).
// invert: the switch's hash value is the opposite of the field (scale=1 means noScale off).
// A preset's form (presetValue, state/form.js presetForm) reads each field from the preset: the
// token fields from its words (preset.tokens, preset.keyTokens), the others from its spec's
// `spec` field, or `default` where the spec leaves it out, or fromSpec(spec) where neither says.

export const FIELDS = [
  {
    field: 'tokens',
    hash: 'tokens',
    attribute: 'tokens',
    type: 'tokens',
    label: 'Tokens',
    wide: true,
    // tests/wasm/preset-forms.test.mjs holds both halves against the engine.
    hint:
      'labels only while their number stays: other words of the same count change no number. X is drawn ' +
      'from the seed a row per token, then the weights from the same stream, so a new count keeps the ' +
      'first rows of X but draws W_Q, W_K, W_V and W_O anew: every score changes',
  },
  {
    field: 'keyTokens',
    hash: 'keys',
    attribute: 'key-tokens',
    type: 'tokens',
    label: 'Source tokens',
    wide: true,
    hint:
      'the sequence that keys and values come from (X_kv), labels only while their number stays: a new ' +
      'count keeps X_q and the first rows of X_kv but draws every weight anew',
  },
  {
    field: 'validKeys',
    hash: 'valid',
    attribute: 'valid-keys',
    type: 'auto',
    spec: 'validKeys',
    label: 'valid keys',
    blank: 'no padding',
  },
  {
    field: 'dModel',
    hash: 'dModel',
    attribute: 'd-model',
    type: 'whole',
    spec: 'dModel',
    label: 'd_model',
  },
  {
    field: 'heads',
    hash: 'heads',
    attribute: 'heads',
    type: 'whole',
    spec: 'numHeads',
    label: 'heads h',
  },
  {
    field: 'kvHeads',
    hash: 'kvHeads',
    attribute: 'kv-heads',
    type: 'auto',
    spec: 'numKvHeads',
    label: 'K/V heads',
    blank: 'as many as heads',
  },
  {
    field: 'dK',
    hash: 'dK',
    attribute: 'd-k',
    type: 'auto',
    spec: 'dK',
    label: 'd_k',
    blank: 'd_model / h',
  },
  {
    field: 'dV',
    hash: 'dV',
    attribute: 'd-v',
    type: 'auto',
    spec: 'dV',
    label: 'd_v',
    blank: 'd_model / h',
  },
  {
    field: 'dFF',
    hash: 'dFF',
    attribute: 'd-ff',
    type: 'auto',
    spec: 'dFF',
    label: 'd_ff',
    blank: '4 · d_model',
  },
  {
    field: 'blockRows',
    hash: 'br',
    attribute: 'block-rows',
    type: 'whole',
    spec: 'blockRows',
    label: 'B_r (query rows a tile)',
  },
  {
    field: 'blockCols',
    hash: 'bc',
    attribute: 'block-cols',
    type: 'whole',
    spec: 'blockCols',
    label: 'B_c (key rows a tile)',
  },
  {
    field: 'seed',
    hash: 'seed',
    attribute: 'seed',
    type: 'whole',
    spec: 'seed',
    label: 'seed',
  },
  {
    field: 'weightScale',
    hash: 'ws',
    attribute: 'weight-scale',
    type: 'decimal',
    spec: 'weightScale',
    label: 'weight scale',
    default: 0.1,
    example: 'the seed-42 examples use 0.1',
    hint: 'drawn weights are randn \u00b7 this: 0.1 as the seed-42 examples, 1 for sharper attention',
  },
  {
    field: 'skip',
    hash: 'skip',
    attribute: 'skip',
    type: 'whole',
    spec: 'skip',
    label: 'normals skipped',
    default: 0,
    hidden: true,
  },
  { field: 'causal', hash: 'causal', attribute: 'causal', type: 'flag', spec: 'causal', label: 'Causal mask' },
  {
    field: 'outputProjection',
    hash: 'wo',
    attribute: 'output-projection',
    type: 'flag',
    spec: 'outputProjection',
    fromSpec: (spec) => spec.kind === 'encoder-layer' || spec.outputProjection, // the layer always has W_O
    label: 'Output projection W_O',
  },
  {
    field: 'noScale',
    hash: 'scale',
    attribute: 'no-scale',
    type: 'flag',
    spec: 'scaleScores',
    invert: true,
    label: 'No \u00f7\u221ad_k (ablation)',
  },
  {
    field: 'dLatent',
    hash: 'dLatent',
    attribute: 'd-latent',
    type: 'whole',
    spec: 'dLatent',
    label: 'latent d_c',
    hint: 'the numbers each token caches, shared by every head (DeepSeek-V2: 512 beside 128 heads of 128)',
  },
  {
    field: 'dRope',
    hash: 'dRope',
    attribute: 'd-rope',
    type: 'whole',
    spec: 'dRope',
    default: 0,
    label: 'RoPE part d_r',
    hint: 'even; the columns of the query and key parts that RoPE turns, 0 for none (DeepSeek-V2: 64)',
  },
  {
    field: 'window',
    hash: 'window',
    attribute: 'window',
    type: 'auto',
    spec: 'window',
    label: 'window W',
    blank: 'no window',
    hint: 'each token sees itself and the W \u2212 1 tokens before it',
  },
  {
    field: 'sinkTokens',
    hash: 'sinkTokens',
    attribute: 'sink-tokens',
    type: 'auto',
    spec: 'sinkTokens',
    label: 'sink tokens',
    blank: 'none',
    hint: 'with a window: the first ones stay seen by every later token (StreamingLLM keeps 4)',
  },
  {
    field: 'prefix',
    hash: 'prefix',
    attribute: 'prefix',
    type: 'auto',
    spec: 'prefix',
    label: 'prefix P',
    blank: 'no prefix',
    hint: 'the first P tokens see each other both ways; causal after them',
  },
  {
    field: 'documents',
    hash: 'docs',
    attribute: 'documents',
    type: 'lengths',
    spec: 'documents',
    label: 'packed documents',
    blank: 'one sequence',
    hint: 'token counts, e.g. 3, 3, 2: causal inside each, nothing across',
  },
  {
    field: 'positionalEncoding',
    hash: 'pe',
    attribute: 'positional-encoding',
    type: 'flag',
    spec: 'positionalEncoding',
    on: 'sinusoidal',
    label: 'Sinusoidal encoding X + PE',
  },
  { field: 'rope', hash: 'rope', attribute: 'rope', type: 'flag', spec: 'rope', object: true, label: 'RoPE' },
  {
    field: 'ropeConvention',
    hash: 'ropeConv',
    attribute: 'rope-convention',
    type: 'choice',
    spec: 'rope.convention',
    choices: ['interleaved', 'half-split'],
    default: 'interleaved',
    label: 'RoPE pairs',
    hint:
      'interleaved: (2c, 2c+1), RoFormer, GPT-J, Meta\u2019s LLaMA code; half-split: (c, c + d_rot/2), GPT-NeoX, ' +
      'Hugging Face\u2019s LLaMA',
  },
  {
    field: 'ropeOffset',
    hash: 'ropeOffset',
    attribute: 'rope-offset',
    type: 'whole',
    spec: 'rope.offset',
    label: 'RoPE offset',
    default: 0,
    hint: 'added to every position: the scores do not change',
  },
  {
    field: 'ropeDims',
    hash: 'ropeDims',
    attribute: 'rope-dims',
    type: 'auto',
    spec: 'rope.dims',
    label: 'RoPE dims',
    blank: 'd_k',
    hint: 'the first dims columns of each head turn (even)',
  },
  { field: 'alibi', hash: 'alibi', attribute: 'alibi', type: 'flag', spec: 'alibi', label: 'ALiBi distance bias' },
  {
    field: 'softcap',
    hash: 'softcap',
    attribute: 'softcap',
    type: 'decimal',
    spec: 'softcap',
    label: 'soft cap \u03ba',
    blank: 'no cap',
    example: 'Gemma 2 caps at 50',
    hint: 'each logit becomes \u03ba\u00b7tanh(logit / \u03ba): within \u00b1\u03ba, nearly unchanged near 0',
  },
  { field: 'qkNorm', hash: 'qkNorm', attribute: 'qk-norm', type: 'flag', spec: 'qkNorm', label: 'QK-norm' },
  {
    field: 'qNormGain',
    hash: 'qNormGain',
    attribute: 'q-norm-gain',
    type: 'decimals',
    spec: 'qNormGain',
    label: 'query gains \u03bb^Q',
    blank: 'all 1',
    wide: true,
    hint: 'with QK-norm: one number per column of a head (d_k), separated by commas, multiplying each normalised query',
  },
  {
    field: 'kNormGain',
    hash: 'kNormGain',
    attribute: 'k-norm-gain',
    type: 'decimals',
    spec: 'kNormGain',
    label: 'key gains \u03bb^K',
    blank: 'all 1',
    wide: true,
    hint: 'with QK-norm: one number per column of a head (d_k), separated by commas, multiplying each normalised key',
  },
  {
    field: 'sinks',
    hash: 'sinks',
    attribute: 'sinks',
    type: 'decimals',
    spec: 'sinks',
    label: 'sink logits \u03b6',
    blank: 'no sinks',
    wide: true,
    hint:
      'one number per head, separated by commas: each head\u2019s softmax gets one more key, of logit \u03b6, that ' +
      'holds no value (gpt-oss)',
  },
  {
    field: 'checkpoint',
    hash: 'checkpoint',
    attribute: 'checkpoint',
    type: 'choice',
    spec: 'checkpoint',
    choices: ['trained', 'untrained'],
    held: { in: 'checkpoints', as: 'model' }, // a page's own (catalog.checkpoints) goes as the model
    default: 'trained',
    label: 'weights',
    hint: 'trained: the shipped run after 1000 steps of Adam; untrained: the same model as drawn, at step 0',
  },
  {
    field: 'scored',
    hash: 'scored',
    attribute: 'scored',
    type: 'positions',
    spec: 'scored',
    label: 'positions scored',
    hint: 'the positions whose next-token loss the mean counts (the task scores the copy); blank for every position',
  },
  {
    field: 'prunedHeads',
    hash: 'prune',
    attribute: 'pruned-heads',
    type: 'heads',
    spec: 'prunedHeads',
    label: 'pruned heads',
    hidden: true,
  },
];

const BY_FIELD = new Map(FIELDS.map((f) => [f.field, f]));

export function fieldById(field) {
  return BY_FIELD.get(field) ?? null;
}

// The fields a chapter's form holds, in table order, with its own labels and hints. The
// normals skipped belong to every chapter that draws (not to the designed heads, nor to the
// trained model).
const DRAWS_NOTHING = ['designed', 'model'];
export function fieldsOf(chapter) {
  const own = (f) => chapter.fields.includes(f.field) || (f.field === 'skip' && !DRAWS_NOTHING.includes(chapter.kind));
  return FIELDS.filter(own).map((f) => ({
    ...f,
    label: chapter.labels?.[f.field] ?? f.label,
    hint: chapter.hints?.[f.field] ?? f.hint,
  }));
}

// The spec's value at a field's name, rope.offset reading spec.rope.offset.
const atPath = (spec, path) => path.split('.').reduce((o, key) => o?.[key], spec);

/** A preset's value of a field, as the form holds it (text, or a boolean for a flag). */
export function presetValue(f, preset) {
  if (f.type === 'tokens') return (preset[f.field] ?? []).join(' ');
  const value = f.fromSpec ? f.fromSpec(preset.spec) : (atPath(preset.spec, f.spec) ?? f.default);
  if (f.type === 'flag') return f.invert ? !value : f.on ? value === f.on : Boolean(value);
  if (['heads', 'positions', 'lengths', 'decimals'].includes(f.type)) return (value ?? []).join(', ');
  return value === undefined || value === null ? '' : String(value);
}

// How a field's value reads in the URL hash, and back.
export function writeHashValue(f, value) {
  if (f.type !== 'flag') return String(value ?? '');
  return (f.invert ? !value : Boolean(value)) ? '1' : '0';
}

export function readHashValue(f, text) {
  if (f.type !== 'flag') return text;
  const on = text === '1' || text === 'true';
  return f.invert ? !on : on;
}

// A boolean attribute: present means on, except the spelled-out "false" and "0".
export function readAttributeValue(f, text) {
  if (f.type !== 'flag') return text;
  return !['false', '0'].includes(text.trim().toLowerCase());
}
