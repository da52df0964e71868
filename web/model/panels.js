// The chapter panels' data, from the trace's config and the engine's catalog. Pure: every number
// is the engine's (config sizes, config.kv counts, models()); this only arranges them.

import { backwardPanel } from './backward-panel.js';
import { costsPanel, trafficNote } from './cost-panels.js';
import { chapterById } from './chapters.js';
import { keySentence } from './key-sentence.js';
import { modernPanel } from './modern-panel.js';
import { nearestTime } from './navigation.js';
import { formatCell, formatCount, formatSci } from './format.js';
import { stageById } from './stage-table.js';

// Cross-attention: the two sequences, keys from validKeys on marked as padding.
function sequencesPanel(config, tokens) {
  const valid = config.validKeys ?? config.kvLen;
  return {
    kind: 'sequences',
    queries: tokens.T_q.map((text) => ({ text })),
    keys: tokens.T_kv.map((text, j) => ({ text, padding: j >= valid })),
    shape: `${config.seqLen} \u00d7 ${config.kvLen}`,
  };
}

// What sharing K/V heads costs, as Ainslie et al. (2023) measured it.
export const GQA_QUALITY =
  'The saving is not free: in Ainslie et al. (2023), T5-XXL converted from multi-head to multi-query ' +
  'attention (and trained on for 5 % of its pre-training) lost a little quality on summarisation, ' +
  'translation and question answering, and grouped-query attention with 8 K/V heads won back most of ' +
  'it, close to multi-head quality at close to multi-query speed.';

// Grouped-query attention: which query heads read which K/V head, and what that saves.
function groupsPanel(config, head, models, loadedModel) {
  const size = config.numHeads / config.numKvHeads;
  const groups = Array.from({ length: config.numKvHeads }, (_, g) => ({
    kvHead: g,
    heads: Array.from({ length: size }, (_, k) => ({ head: g * size + k, current: g * size + k === head })),
  }));
  const kv = config.kv;
  const name =
    config.numKvHeads === 1
      ? 'multi-query (MQA)'
      : config.numKvHeads === config.numHeads
        ? 'multi-head (MHA)'
        : 'grouped-query (GQA)';
  return {
    kind: 'groups',
    name,
    groups,
    sizes: {
      headers: ['', `this layer: h_kv = ${config.numKvHeads}`, `multi-head: h_kv = h = ${config.numHeads}`],
      rows: [
        ['W_K and W_V parameters', formatCount(kv.params), formatCount(kv.paramsMha)],
        [
          `K/V cache at T = ${config.kvLen} tokens (values)`,
          formatCount(kv.cacheValues),
          formatCount(kv.cacheValuesMha),
        ],
      ],
    },
    saving:
      size > 1
        ? `${size}\u00d7 smaller K/V than multi-head attention`
        : 'no saving: every query head has its own K/V head',
    quality: GQA_QUALITY,
    models: models.map((m) => ({
      id: m.id,
      name: m.name,
      cells: [m.dModel, m.numHeads, m.dK, m.numLayers, m.numKvHeads].map(formatCount),
      current: m.id === loadedModel?.id,
    })),
    note: loadedModel ? scalingNote(loadedModel, config) : null,
    footnote: MODELS_FOOTNOTE,
  };
}

// The encoder layer: its sub-layers in order (the stage table's parts), the current one marked,
// the FFN's widths.
const LAYER_PARTS = [
  { id: 'attention', label: 'Multi-head attention' },
  { id: 'norm1', label: 'Add & norm' },
  { id: 'ffn', label: 'Feed-forward' },
  { id: 'norm2', label: 'Add & norm' },
];

function layerPanel(config, stageId) {
  const part = stageById(stageId)?.part ?? 'attention';
  return {
    kind: 'layer',
    parts: LAYER_PARTS.map((p) => ({ label: p.label, current: p.id === part })),
    widths: [config.dModel, config.dFF, config.dModel].map(String),
  };
}

/**
 * ctx: { chapterId, config, tokens, head, stageId, models, loadedModel, steps, index }
 * → panel data or null.
 */
export function panelView(ctx) {
  const panel = chapterById(ctx.chapterId)?.panel;
  if (panel === 'sequences') return sequencesPanel(ctx.config, ctx.tokens);
  if (panel === 'groups') return groupsPanel(ctx.config, ctx.head, ctx.models, ctx.loadedModel);
  if (panel === 'layer') return layerPanel(ctx.config, ctx.stageId);
  if (panel === 'decode') return decodePanel(ctx.config, ctx.steps, ctx.index, ctx.tokens);
  if (panel === 'tiles') return tilesPanel(ctx.config, ctx.steps, ctx.index);
  if (panel === 'designed') return designedPanel(ctx.config, ctx.head);
  if (panel === 'trained') return trainedPanel(ctx.config);
  if (panel === 'positions') return positionsPanel(ctx.config, ctx.steps, ctx.head, ctx.tokens);
  if (panel === 'masks') return masksPanel(ctx.config, ctx.steps, ctx.head, ctx.tokens);
  if (panel === 'costs') return costsPanel(ctx.config, ctx.tokens);
  if (panel === 'modern') return modernPanel(ctx.config, ctx.steps);
  if (panel === 'backward') return backwardPanel(ctx.config, ctx.steps, ctx.head, ctx.index);
  return null;
}

// Further reading and the papers these chapters cite: plain text, nothing loaded.
export const FURTHER_READING = [
  'Jay Alammar (2018), \u201cThe Illustrated Transformer\u201d (blog post): multi-head attention drawn step by step.',
  'Kevin Clark, Urvashi Khandelwal, Omer Levy, Christopher D. Manning (2019), \u201cWhat Does BERT Look At? ' +
    'An Analysis of BERT\u2019s Attention\u201d (BlackboxNLP): what trained heads attend to.',
  'Tri Dao, Daniel Y. Fu, Stefano Ermon, Atri Rudra, Christopher R\u00e9 (2022), \u201cFlashAttention: Fast and ' +
    'Memory-Efficient Exact Attention with IO-Awareness\u201d (NeurIPS).',
  '3Blue1Brown (Grant Sanderson), \u201cAttention in transformers, visually explained\u201d (video).',
  'Paul Michel, Omer Levy, Graham Neubig (2019), \u201cAre Sixteen Heads Really Better than One?\u201d (NeurIPS): ' +
    'head pruning.',
  'Elena Voita, David Talbot, Fedor Moiseev, Rico Sennrich, Ivan Titov (2019), \u201cAnalyzing Multi-Head ' +
    'Self-Attention: Specialized Heads Do the Heavy Lifting, the Rest Can Be Pruned\u201d (ACL).',
  'Joshua Ainslie et al. (2023), \u201cGQA: Training Generalized Multi-Query Transformer Models from Multi-Head ' +
    'Checkpoints\u201d (EMNLP).',
  'Guangxuan Xiao et al. (2023), \u201cEfficient Streaming Language Models with Attention Sinks\u201d (arXiv ' +
    '2309.17453): the attention sink.',
  'Kevin Wang et al. (2022), \u201cInterpretability in the Wild: a Circuit for Indirect Object Identification in ' +
    'GPT-2 small\u201d (arXiv 2211.00593): duplicate-token heads.',
  'Nelson Elhage et al. (2021), \u201cA Mathematical Framework for Transformer Circuits\u201d (Transformer Circuits ' +
    'Thread): attention-only models, the residual stream, and the induction head.',
  'Catherine Olsson et al. (2022), \u201cIn-context Learning and Induction Heads\u201d (Transformer Circuits ' +
    'Thread): the phase change in which induction heads form.',
  'Ashish Vaswani et al. (2017), \u201cAttention Is All You Need\u201d (NeurIPS): scaled dot-product attention, ' +
    '\u00f7\u221ad_k, multi-head attention and the sinusoidal encoding.',
  'Jianlin Su et al. (2021), \u201cRoFormer: Enhanced Transformer with Rotary Position Embedding\u201d (arXiv ' +
    '2104.09864): RoPE.',
  'Ofir Press, Noah A. Smith, Mike Lewis (2022), \u201cTrain Short, Test Long: Attention with Linear Biases ' +
    'Enables Input Length Extrapolation\u201d (ICLR): ALiBi.',
  'Iz Beltagy, Matthew E. Peters, Arman Cohan (2020), \u201cLongformer: The Long-Document Transformer\u201d ' +
    '(arXiv 2004.05150): sliding-window attention.',
  'Albert Q. Jiang et al. (2023), \u201cMistral 7B\u201d (arXiv 2310.06825): a sliding window in a released model.',
  'Colin Raffel et al. (2020), \u201cExploring the Limits of Transfer Learning with a Unified Text-to-Text ' +
    'Transformer\u201d (JMLR): the prefix LM (\u00a73.2.1).',
  'Diederik P. Kingma, Jimmy Ba (2015), \u201cAdam: A Method for Stochastic Optimization\u201d (ICLR): the ' +
    'optimiser of Heads that learn.',
];

// The designed heads as the engine describes them (designed.hpp), the current one marked; each
// pattern's key sentence, and the rest (with how the head is built) for the panel's notes.
function designedPanel(config, head) {
  return {
    kind: 'designed',
    heads: config.designedHeads.map((h, i) => {
      const [key, more] = keySentence(`${h.pattern}.`);
      return { head: i, ...h, key, more, current: i === head };
    }),
    sizes:
      `X has d_model = ${config.dModel} features per token: ${config.seqLen} for its ` +
      `position, ${config.dV} for its word (one per distinct word) and a constant 1. d_k = ` +
      `${config.dK}, d_v = ${config.dV}, s = 8 \u00b7 \u221ad_k, so a head\u2019s chosen ` +
      `key leads every other by 8 after \u00f7\u221ad_k: about 3000 times the weight.`,
  };
}

// The trained model's sizes, from the engine's config; the last chapter's panel also carries the
// further reading.
function trainedPanel(config) {
  return {
    kind: 'trained',
    reading: FURTHER_READING,
    sizes:
      `The model: a vocabulary of n_vocab = ${config.vocab} token ids, N = ${config.numLayers} layers of ` +
      `${config.numHeads} heads (d_k = ${config.dK}, d_v = ${config.dV}) writing into a residual stream of ` +
      `d_model = ${config.dModel}, causal, \u00f7\u221ad_k, W_O; no MLP, no layer norm, no biases. Here it reads ` +
      `T = ${config.seqLen} tokens.`,
    heads:
      'Trained, one layer-0 head puts most of its weight one position back: it copies the previous token into ' +
      'each row of the stream. Layer 1\u2019s heads then match their queries against those copies: in the ' +
      'repeated block they attend to the token just after the earlier occurrence of the current one, and the ' +
      'logits predict that token. This is K-composition (Elhage et al. 2021): layer 1\u2019s keys read what the ' +
      'previous-token head wrote, its queries carry the current token. Untrained, every head is nearly uniform ' +
      'and the loss is close to ln V.',
    more:
      'charts every head\u2019s scores as they form: after a plateau the induction score climbs over a few hundred ' +
      'steps, together with the previous-token score, a small-scale analogue of the phase change Olsson et al. ' +
      '(2022) saw.',
  };
}

// Tables often call GPT-2 small "GPT-2 (117M)".
export const MODELS_FOOTNOTE =
  'GPT-2 (124M) is the GPT-2 (117M) of many tables: OpenAI\u2019s paper counted 117M parameters, a ' +
  'miscount it later corrected; the released small model holds 124M.';

// A real model's head geometry at the stepper's scale: at most 16 query heads, keeping the number
// of query heads per K/V head; d_k = 4 and d_model = h · d_k (as in the models: d_k = d_model / h).
const SHOWN_HEADS = 16;
const SHOWN_D_K = 4;

export function scaledGeometry(model) {
  const group = model.numHeads / model.numKvHeads;
  const heads = model.numHeads <= SHOWN_HEADS ? model.numHeads : Math.floor(SHOWN_HEADS / group) * group;
  return { heads, kvHeads: heads / group, dK: SHOWN_D_K, dModel: heads * SHOWN_D_K };
}

function scalingNote(model, config) {
  const real =
    `${model.name} has ${model.numHeads} query heads and ${model.numKvHeads} K/V heads of d_k ` +
    `= ${model.dK} (d_model = ${formatCount(model.dModel)}), in ${model.numLayers} layers.`;
  const same = model.numHeads === config.numHeads && model.numKvHeads === config.numKvHeads;
  const group = model.numHeads / model.numKvHeads;
  const kept =
    group === 1 ? 'every query head still has its own K/V head' : `the same ${group} query heads per K/V head`;
  const heads = same ? 'the same heads' : `${config.numHeads} query heads and ${config.numKvHeads} K/V heads (${kept})`;
  return (
    `${real} Shown: ${heads}, scaled to d_k = ${config.dK} (d_model = ${config.dModel}) ` +
    `and T = ${config.seqLen}, one layer, so that every number fits on the page.`
  );
}

// KV-cache decoding at step t: which row is new, what the step costs with and without the cache,
// what the cache holds, and row t of the causal pass beside this step's output.
function decodePanel(config, steps, index, tokens) {
  const t = nearestTime(steps, index);
  const out = steps.find((s) => s.step === t && s.id === (config.outputProjection ? 'output' : 'concat')) ?? null;
  const causal = steps.find((s) => s.id === 'causal_reference');
  const scoresAt = steps.find((s) => s.step === t && s.id === 'scores');
  const width = causal.stage.shape[1];
  const rowOf = (values, r) => Array.from(values.slice(r * width, (r + 1) * width), formatCell);
  const m = config.macs;
  return {
    kind: 'decode',
    step: t,
    token: tokens.T?.[t] ?? String(t),
    cached: scoresAt.stage.shape[1] - 1, // the keys the step's one row of scores read, its own aside
    macs: {
      headers: ['multiply-adds', 'with the cache', 'recomputing K and V'],
      rows: [
        [`step ${t}`, formatCount(m.cached[t]), formatCount(m.recomputed[t])],
        [`steps 0 to ${t}`, formatCount(m.cachedSoFar[t]), formatCount(m.recomputedSoFar[t])],
      ],
    },
    cacheBytes: formatCount(config.cacheBytes[t]),
    rows: out ? { decoded: rowOf(out.stage.values, 0), causal: rowOf(causal.stage.values, t) } : null,
    difference: formatSci(config.stepDifferences[t]),
  };
}

// FlashAttention: the grid of query blocks × key blocks, each tile done, current, still to come
// or skipped (the causal mask leaves it nothing to do); the floats held (the engine's count:
// one query block is live at a time, so one tile and that block's μ and Z); the loop order.
function tilesPanel(config, steps, index) {
  const now = nearestTime(steps, index);
  const tiles = steps.filter((s) => s.id === 'tile_scores').map((s) => ({ ordinal: s.step, ...s.stage.tile }));
  const blocks = steps.filter((s) => s.id === 'block_out').map((s) => s.stage.tile.queryRows);
  const keys = [...new Map(tiles.map((x) => [x.keyRows[0], x.keyRows])).values()].sort((a, b) => a[0] - b[0]);
  const status = (ordinal) =>
    ordinal === undefined ? 'skipped' : ordinal < now ? 'done' : ordinal === now ? 'current' : 'next';
  const grid = blocks.map((rows) =>
    keys.map((cols) => {
      const tile = tiles.find((x) => x.queryRows[0] === rows[0] && x.keyRows[0] === cols[0]);
      return { rows, cols, ordinal: tile?.ordinal ?? null, status: status(tile?.ordinal) };
    }),
  );
  const f = config.floats;
  return {
    kind: 'tiles',
    seqLen: config.seqLen,
    grid,
    floats: {
      headers: [
        'score floats one head holds at once',
        `T = ${config.seqLen}`,
        `T = ${formatCount(f.exampleSeqLen)} (GPT-3\u2019s context)`,
      ],
      rows: [
        ['all scores, T \u00d7 T', formatCount(f.standard), formatCount(f.exampleStandard)],
        [
          `one ${config.blockRows} \u00d7 ${config.blockCols} tile, \u03bc and Z for its ${config.blockRows} rows`,
          formatCount(f.tiled),
          formatCount(f.exampleTiled),
        ],
      ],
    },
    difference: formatSci(config.maxDifference),
    traffic: trafficNote(config),
  };
}

// At most this many positions get a column of their own in a table; the rest are in the figure.
const SHOWN_POSITIONS = 8;

// RoPE's pairs for the current head, read from its q_rot stage's operands: each pair's columns,
// θ_c, and the angle at each position (the engine's); the shift check; ALiBi's slopes per head.
function positionsPanel(config, steps, head, tokens) {
  const turned = steps.find((s) => s.id === 'q_rot' && s.head === head)?.stage;
  const labels = tokens.T ?? [];
  let rope = null;
  if (config.rope && turned) {
    const [theta, angle, , , pairs] = turned.operands.slice(1);
    const count = theta.shape[1];
    const positions = Math.min(angle.shape[0], SHOWN_POSITIONS);
    rope = {
      convention: config.rope.convention,
      table: {
        headers: [
          'pair c',
          'columns (a, b)',
          '\u03b8_c',
          // Row t of the sequence sits at position t₀ + t (the offset t₀: config.rope.offset).
          ...Array.from(
            { length: positions },
            (_, p) =>
              `\u03c6, row ${p}${labels[p] ? ` (${labels[p]})` : ''}` +
              (config.rope.offset ? `, position ${config.rope.offset + p}` : ''),
          ),
        ],
        rows: Array.from({ length: count }, (_, i) => [
          String(i),
          `(${pairs.values[2 * i]}, ${pairs.values[2 * i + 1]})`,
          formatCell(theta.values[i]),
          ...Array.from({ length: positions }, (_, p) => formatCell(angle.values[p * count + i])),
        ]),
      },
      shift: config.ropeShift && {
        by: config.ropeShift.shift,
        qRot: formatCell(config.ropeShift.qRot),
        scores: formatSci(config.ropeShift.scores),
        weights: formatSci(config.ropeShift.weights),
      },
    };
  }
  const alibi = config.alibi && {
    slopes: Array.from(config.alibi, (m, h) => ({ head: h, slope: formatCell(m), exact: m, current: h === head })),
    rowShift: formatSci(config.alibiRowShift ?? 0),
  };
  return { kind: 'positions', rope, alibi, sinusoidal: config.positionalEncoding === 'sinusoidal' };
}

// Which keys each query sees, read from the mask M the engine recorded (0 where it sees, −∞
// where it may not): the first and last key each row keeps, and how many.
function masksPanel(config, steps, head, tokens) {
  const masked = steps.find((s) => s.id === 'masked' && s.head === head)?.stage;
  if (!masked) return { kind: 'masks', rows: null, window: config.window };
  const m = masked.operands[1];
  const [rows, cols] = m.shape;
  const labels = tokens.T ?? [];
  const seen = Array.from({ length: rows }, (_, i) => {
    const keys = [];
    for (let j = 0; j < cols; j += 1) if (m.values[i * cols + j] === 0) keys.push(j);
    return keys;
  });
  return {
    kind: 'masks',
    window: config.window,
    rows: {
      headers: ['query', 'sees keys', 'how many'],
      rows: seen.map((keys, i) => [
        `${i}${labels[i] ? ` ${labels[i]}` : ''}`,
        keys.length > 1 ? `${keys[0]}\u2013${keys.at(-1)}` : keys.length ? String(keys[0]) : 'none',
        String(keys.length),
      ]),
    },
  };
}
