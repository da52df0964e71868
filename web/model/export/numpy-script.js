// A short, runnable Python script (numpy only) that rebuilds the current configuration the
// plain numpy way and prints the current stage at full precision: for a seeded spec the same
// draws in the same order (np.random.seed, randn · 0.1), for a spec without a seed the trace's
// own matrices; then the chapter's pass (self-/cross-/grouped-query attention, the encoder
// layer, KV-cache decoding, FlashAttention, self-attention's backward pass from dO, multi-head
// latent attention) written with the exported functions. Pure text: nothing is computed here,
// the sizes and switches come from the trace's config.

import { stageById } from '../stage-table.js';
import * as fn from './numpy-functions.js';
import { modelFunctions } from './numpy-model.js';
import { drawLines, literalLines, pyNumber } from './numpy-inputs.js';

const DEFAULT_WEIGHT_SCALE = 0.1;
const py = (flag) => (flag ? 'True' : 'False');

// Which pass the script writes: the config's kind, or for designed matrices the stages they have.
export function structureOf(config, trace) {
  if (config.kind !== 'designed') return config.kind ?? 'self';
  const ids = new Set(trace.stages.map((s) => s.id));
  if (ids.has('tile_scores')) return 'flash';
  if (ids.has('x_t')) return 'kv-cache';
  if (ids.has('norm1')) return 'encoder-layer';
  return ids.has('x_q') ? 'cross' : 'self';
}

// The sizes and switches the script names, from the config (skip only the spec carries).
function sizesOf(config, spec) {
  return {
    ...config,
    seed: config.seed,
    skip: config.skip ?? spec?.skip ?? 0,
    weightScale: config.weightScale ?? DEFAULT_WEIGHT_SCALE,
    pruned: config.prunedHeads ?? [],
    window: config.window ?? null,
    sinkTokens: config.sinkTokens ?? null,
    prefix: config.prefix ?? null,
    documents: config.documents ?? [],
    rope: config.rope ?? null,
    alibi: Boolean(config.alibi),
    softcap: config.softcap ?? null,
    sinks: config.sinks ?? null,
    qkNorm: Boolean(config.qkNorm),
    qNormGain: config.qNormGain ?? null,
    kNormGain: config.kNormGain ?? null,
    positionalEncoding: config.positionalEncoding ?? null,
  };
}

function sizeLines(s, structure) {
  if (structure === 'model')
    return [
      `T, d_model, vocab, num_layers = ${s.seqLen}, ${s.dModel}, ${s.vocab}, ${s.numLayers}`,
      `num_heads, d_k, d_v = ${s.numHeads}, ${s.dK}, ${s.dV}`,
    ];
  if (structure === 'mla')
    return [
      `T, d_model = ${s.seqLen}, ${s.dModel}`,
      `num_heads, d_k, d_v = ${s.numHeads}, ${s.dK}, ${s.dV}`,
      `d_c, d_r = ${s.dLatent}, ${s.dRope}  # the latent's width, the decoupled RoPE part's`,
    ];
  const lines =
    structure === 'cross'
      ? [`T_q, T_kv, d_model = ${s.seqLen}, ${s.kvLen}, ${s.dModel}`]
      : [`T, d_model = ${s.seqLen}, ${s.dModel}`];
  if (structure !== 'flash') lines.push(`num_heads, num_kv_heads = ${s.numHeads}, ${s.numKvHeads}`);
  lines.push(`d_k, d_v = ${s.dK}, ${s.dV}`);
  if (structure === 'encoder-layer') lines.push(`d_ff = ${s.dFF}`);
  if (structure === 'flash') lines.push(`B_r, B_c = ${s.blockRows}, ${s.blockCols}  # query rows and key rows a tile`);
  if (s.pruned.length) lines.push(`pruned_heads = [${s.pruned.join(', ')}]`);
  return lines;
}

// The mask's arguments beyond the lengths: causal (a window, a prefix and documents are causal
// too), window and its sink tokens, prefix, documents and padding keys.
const causalOf = (s) => s.causal || s.window !== null || s.prefix !== null || s.documents.length > 0;

// A window's arguments: its size and the sink tokens it keeps (StreamingLLM).
const windowArgs = (s) =>
  s.window === null ? '' : `, window=${s.window}${s.sinkTokens !== null ? `, sink_tokens=${s.sinkTokens}` : ''}`;

function maskArgs(s) {
  const args = causalOf(s) ? ['causal=True'] : [];
  if (s.window !== null) args.push(windowArgs(s).slice(2));
  if (s.prefix !== null) args.push(`prefix=${s.prefix}`);
  if (s.documents.length) args.push(`documents=[${s.documents.join(', ')}]`);
  if (s.validKeys !== null && s.validKeys !== undefined) args.push(`valid_keys=${s.validKeys}`);
  return args;
}

function maskLine(s, structure) {
  const args = maskArgs(s);
  if (!args.length) return 'mask = None';
  const lengths = structure === 'cross' ? 'T_q, T_kv' : 'T, T';
  const padding = structure === 'cross' ? `  # keys from ${s.validKeys} on are padding` : '';
  return `mask = attention_mask(${lengths}, ${args.join(', ')})${padding}`;
}

const pyList = (values) => `[${Array.from(values, pyNumber).join(', ')}]`;

// QK-norm's gains, RoPE's `turn` and ALiBi's slopes (and each head's B outside decoding), when the
// config has them.
function positionLines(s, structure) {
  const lines = [];
  if (s.qkNorm) {
    lines.push(`q_gain = np.array(${pyList(s.qNormGain)}, dtype=float)  # QK-norm's gain of each query column`);
    lines.push(`k_gain = np.array(${pyList(s.kNormGain)}, dtype=float)  # and of each key column`);
  }
  if (s.rope) {
    const { base, dims, convention, offset } = s.rope;
    const half = convention === 'half-split' ? 'True' : 'False';
    lines.push(
      `turn = lambda x, positions, back=False: rope(x, positions, base=${pyNumber(base)}, dims=${dims}, ` +
        `half_split=${half}, offset=${offset}, back=back)  # ${convention} pairs`,
    );
  }
  if (s.alibi) {
    lines.push('slopes = alibi_slopes(num_heads)  # one per head');
    if (structure !== 'kv-cache')
      lines.push(
        `biases = [alibi_bias(m, np.arange(T), np.arange(T), causal=${py(causalOf(s))}) ` + 'for m in slopes]',
      );
  }
  return lines;
}

// The extra functions and arguments a config's positions and masks need.
const positionFunctions = (s) => [
  ...(s.sinks !== null ? [fn.SINK_SOFTMAX] : []),
  ...(s.qkNorm ? [fn.QK_NORM] : []),
  ...(s.positionalEncoding ? [fn.SINUSOIDAL] : []),
  ...(s.rope ? [fn.ROPE] : []),
  ...(s.alibi ? [fn.ALIBI] : []),
];
const positionArgs = (s, structure) =>
  (s.rope ? ', turn=turn' : '') +
  (s.alibi ? (structure === 'kv-cache' ? ', slopes=slopes' : ', biases=biases') : '') +
  (s.softcap !== null ? `, softcap=${pyNumber(s.softcap)}` : '') +
  (s.sinks !== null ? `, sinks=${pyList(s.sinks)}` : '') +
  (s.qkNorm ? ', q_gain=q_gain, k_gain=k_gain' : '');

const pruneArg = (s) => (s.pruned.length ? ', pruned_heads=pruned_heads' : '');

function flashPass(s, scale) {
  const window = s.window !== null ? `, window=${s.window}` : '';
  const mask = maskArgs(s).length ? `attention_mask(T, T, ${maskArgs(s).join(', ')})` : 'None';
  return {
    functions: [fn.SOFTMAX, fn.attentionMask(s), fn.selfAttention(), fn.flashAttention(s.window !== null)],
    lines: [
      'Q, K, V = X @ W_Q, X @ W_K, X @ W_V',
      `output, tiles = flash_attention(Q, K, V, B_r, B_c, causal=${py(s.causal)}, ${scale}${window})`,
      `reference, _ = self_attention(X, X, W_Q, W_K, W_V, ${mask}, ${scale})  # ordinary attention`,
    ],
  };
}

function decodePass(s, scale, pruned) {
  const options = {
    rope: Boolean(s.rope),
    alibi: s.alibi,
    window: s.window !== null,
    sinkTokens: s.sinkTokens !== null,
    softcap: s.softcap !== null,
    sinks: s.sinks !== null,
    qkNorm: s.qkNorm,
  };
  const window = windowArgs(s);
  return {
    functions: [
      fn.SOFTMAX,
      fn.attentionMask(s),
      ...positionFunctions(s),
      fn.selfAttention(options),
      fn.multiHeadAttention(pruned, options),
      fn.decodeStep(pruned, options),
    ],
    lines: [
      ...positionLines(s, 'kv-cache'),
      'cache = [[np.zeros((0, d_k)), np.zeros((0, d_v)), np.zeros(0, dtype=int)] for _ in range(num_kv_heads)]',
      'steps, outputs = [], []',
      'for t in range(T):',
      `    out, stages = decode_step(t, X[t:t + 1], W_Qs, W_Ks, W_Vs, W_O, cache, ${scale}${pruneArg(s)}` +
        `${positionArgs(s, 'kv-cache')}${window})`,
      '    steps.append(stages)',
      '    outputs.append(out)',
      ...(s.alibi
        ? ['biases = [alibi_bias(m, np.arange(T), np.arange(T), causal=True) for m in slopes]  # the whole pass']
        : []),
      `causal_reference, _ = multi_head_attention(X, X, W_Qs, W_Ks, W_Vs, ` +
        `W_O, attention_mask(T, T, causal=True${window}), ` +
        `${scale}${pruneArg(s)}${positionArgs(s, 'self')})`,
    ],
  };
}

// The functions and the forward pass of each structure.
// Kind model: model_forward (R₀ = E + P, each layer's causal multi-head attention added to the
// stream, the logits), then their softmax, −ln p of each next token and the mean over the
// positions scored.
function modelPass() {
  return {
    functions: modelFunctions(),
    lines: [
      "embedded, passes, logits = model_forward(E, P, layers, W_U)  # x_0, each layer's stages, (T, vocab)",
      'probabilities = softmax(logits)',
      'token_loss = -np.log(probabilities[np.arange(T - 1), next_tokens])[:, None]  # (T - 1, 1)',
      'loss = np.array([[token_loss[scored, 0].mean()]])',
    ],
  };
}

// Kind mla: latent_attention, with RoPE's turn over the d_r columns of the decoupled part.
function latentPass(s, scale) {
  const rope = s.dRope > 0;
  return {
    functions: [fn.SOFTMAX, fn.attentionMask(s), ...(rope ? [fn.ROPE] : []), fn.latentAttention(rope)],
    lines: [
      ...positionLines(s, 'mla'),
      maskLine(s, 'mla'),
      `output, stages = latent_attention(X, W_DKV, W_UKs, W_UVs, W_Qs, W_O, mask, ${scale}` +
        `${rope ? ', W_KR=W_KR, W_QRs=W_QRs, turn=turn' : ''})`,
    ],
  };
}

function passOf(s, structure) {
  const pruned = s.pruned.length > 0;
  const scale = `scale=${py(s.scaleScores)}`;
  if (structure === 'model') return modelPass();
  if (structure === 'mla') return latentPass(s, scale);
  if (structure === 'flash') return flashPass(s, scale);
  if (structure === 'kv-cache') return decodePass(s, scale, pruned);
  const options = {
    rope: Boolean(s.rope),
    alibi: s.alibi,
    softcap: s.softcap !== null,
    sinks: s.sinks !== null,
    qkNorm: s.qkNorm,
  };
  const common = [
    fn.SOFTMAX,
    fn.attentionMask(s),
    ...positionFunctions(s),
    fn.selfAttention(options),
    fn.multiHeadAttention(pruned, options),
  ];
  if (structure === 'encoder-layer') {
    return {
      functions: [...common, fn.LAYER_NORM, fn.encoderLayer(pruned)],
      lines: [
        maskLine(s, structure),
        `output, stages = transformer_encoder_layer(X, W_Qs, W_Ks, ` +
          `W_Vs, W_O, W1, b1, W2, b2, mask, ${scale}${pruneArg(s)})`,
      ],
    };
  }
  const encoded = s.positionalEncoding ? ['X_pos = X + sinusoidal_encoding(T, d_model)  # positions added to X'] : [];
  const x = s.positionalEncoding ? 'X_pos' : 'X';
  const xs = structure === 'cross' ? 'X_q, X_kv' : `${x}, ${x}`;
  // A backward pass is the self pass, then the gradients from dO.
  const backward =
    structure === 'backward'
      ? [
          '',
          '# The backward pass, from dO',
          ...(s.rope ? ['turn_back = lambda d, positions: turn(d, positions, back=True)  # by \u2212\u03c6'] : []),
          `grads = attention_backward(${x}, W_Qs, W_Ks, W_Vs, W_O, stages, d_output, ${scale}` +
            `${s.rope ? ', turn_back=turn_back' : ''})`,
        ]
      : [];
  return {
    functions: structure === 'backward' ? [...common, fn.ATTENTION_BACKWARD] : common,
    lines: [
      ...encoded,
      ...positionLines(s, structure),
      maskLine(s, structure),
      `output, stages = multi_head_attention(${xs}, W_Qs, W_Ks, W_Vs, W_O, mask, ${scale}${pruneArg(s)}` +
        `${positionArgs(s, structure)})`,
      ...backward,
    ],
  };
}

// The Python expression of one stage of the pass: where the script's functions keep it, as the
// stage's entry in the stage table declares (its numpy field). A backward pass's forward stages
// are where the self pass keeps them.
export function stageExpression(structure, { id, head, kvHead, step }) {
  const where = stageById(id)?.numpy(structure, { head, kvHead, step });
  if (!where) throw new Error(`numpy script: no stage ${id} in a ${structure} pass`);
  return where;
}

/** "scores, head 2, decode step t = 3"; a stage a K/V group shares (config given): "d_k, K/V head 1". */
export function stageName({ id, head, kvHead, step }, structure, config = null) {
  const parts = [id];
  const shared = stageById(id)?.sharedByGroup && config?.numKvHeads < config?.numHeads && kvHead != null;
  if (shared) parts.push(`K/V head ${kvHead}`);
  else if (head !== null && head !== undefined) parts.push(`head ${head}`);
  const time = { flash: 'tile', model: 'layer' }[structure];
  if (step !== null && step !== undefined) parts.push(time ? `${time} ${step}` : `decode step t = ${step}`);
  return parts.join(', ');
}

function docstring(s, structure, stage, { title, preset, chapter, literal }) {
  const what = preset ? `the example "${preset}"` : 'a custom configuration';
  const backward = structure === 'backward';
  const how =
    structure === 'model'
      ? "Its weights are the shipped model's, trained or as drawn: they are copied here from the trace."
      : literal
        ? `Its matrices were given, not drawn: they are copied here from the trace${backward ? ', dO too' : ''}.`
        : `Drawn as the seed-42 examples draw: np.random.seed(${s.seed}), X = ` +
          `randn, every weight randn * ${pyNumber(s.weightScale)}${backward ? ', then dO = randn (not scaled)' : ''}.`;
  return [
    `"""attention-stepper export: ${title ? `${title}, ` : ''}stage ${stageName(stage, structure, s)}.`,
    '',
    `Rebuilds ${what}${chapter ? ` (chapter "${chapter}", kind ${s.kind})` : ` (kind ${s.kind})`} with numpy`,
    backward
      ? 'step by step, then its backward pass from dO, and prints that stage at full\nprecision.'
      : 'step by step, then prints that stage at full precision.',
    how,
    'Run it with python3 (numpy only).',
    '"""',
  ];
}

// Matrices given in the spec: an explicit backward spec has a seed too (it draws dO when absent).
const givenMatrices = (spec) => Boolean(spec && ('X' in spec || 'X_q' in spec || 'W_Q' in spec));

/**
 * { config, spec, trace, stage: { id, head, kvHead, step }, title, preset, chapter } → Python text.
 * spec: what was run with a preset resolved to its spec (for skip, and whether its matrices were
 * given); trace: needed only for given matrices, which the script copies.
 */
export function numpyScript({ config, spec = null, trace = null, stage, title = null, preset = null, chapter = null }) {
  const structure = structureOf(config, trace);
  const literal =
    config.seed === null || config.seed === undefined || config.kind === 'designed' || givenMatrices(spec);
  if (literal && !trace) throw new Error('numpy script: a spec without a seed needs its trace');
  const s = sizesOf(config, spec);
  const pass = passOf(s, structure);
  const expression = stageExpression(structure, stage);
  const inputs = literal ? literalLines(trace, structure) : drawLines(s, structure);
  return [
    ...docstring(s, structure, stage, { title, preset, chapter, literal }),
    'import sys',
    '',
    'import numpy as np',
    '',
    'np.set_printoptions(precision=17, floatmode="unique", threshold=sys.maxsize, linewidth=160)',
    '',
    '',
    pass.functions.join('\n\n\n'),
    '',
    '',
    '# The sizes as the engine ran them',
    ...sizeLines(s, structure),
    '',
    literal ? '# The matrices, copied from the trace' : "# The draws, in the engine's order",
    ...inputs,
    '',
    '# The forward pass',
    ...pass.lines,
    '',
    `stage = ${expression}`,
    `print(${JSON.stringify(`${stageName(stage, structure, config)}:`)}, stage.shape)`,
    'print(stage)',
    '',
  ].join('\n');
}
