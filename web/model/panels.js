// The chapter panels' data, from the trace's config and the engine's catalog. Pure: every number
// is the engine's (config sizes, config.kv counts, models()); this only arranges them.

import { chapterById } from './chapters.js';
import { formatCount } from './format.js';
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

// Grouped-query attention: which query heads read which K/V head, and what that saves.
function groupsPanel(config, head, models, loadedModel) {
  const size = config.numHeads / config.numKvHeads;
  const groups = Array.from({ length: config.numKvHeads }, (_, g) => ({
    kvHead: g,
    heads: Array.from({ length: size }, (_, k) => ({ head: g * size + k, current: g * size + k === head })),
  }));
  const kv = config.kv;
  const name = config.numKvHeads === 1 ? 'multi-query (MQA)' : config.numKvHeads === config.numHeads ? 'multi-head (MHA)' : 'grouped-query (GQA)';
  return {
    kind: 'groups',
    name,
    groups,
    sizes: {
      headers: ['', `this layer: h_kv = ${config.numKvHeads}`, `multi-head: h_kv = h = ${config.numHeads}`],
      rows: [
        ['W_K and W_V parameters', formatCount(kv.params), formatCount(kv.paramsMha)],
        [`K/V cache at T = ${config.kvLen} tokens (values)`, formatCount(kv.cacheValues), formatCount(kv.cacheValuesMha)],
      ],
    },
    saving: size > 1 ? `${size}\u00d7 smaller K/V than multi-head attention` : 'no saving: every query head has its own K/V head',
    models: models.map((m) => ({ id: m.id, name: m.name, cells: [m.dModel, m.numHeads, m.dK, m.numLayers, m.numKvHeads].map(formatCount), current: m.id === loadedModel?.id })),
    note: loadedModel ? scalingNote(loadedModel, config) : null,
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

/** ctx: { chapterId, config, tokens, head, stageId, models, loadedModel } → panel data or null. */
export function panelView(ctx) {
  const panel = chapterById(ctx.chapterId)?.panel;
  if (panel === 'sequences') return sequencesPanel(ctx.config, ctx.tokens);
  if (panel === 'groups') return groupsPanel(ctx.config, ctx.head, ctx.models, ctx.loadedModel);
  if (panel === 'layer') return layerPanel(ctx.config, ctx.stageId);
  return null;
}

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
  const real = `${model.name} has ${model.numHeads} query heads and ${model.numKvHeads} K/V heads of d_k = ${model.dK} (d_model = ${formatCount(model.dModel)}), in ${model.numLayers} layers.`;
  const same = model.numHeads === config.numHeads && model.numKvHeads === config.numKvHeads;
  const heads = same ? 'the same heads' : `${config.numHeads} query heads and ${config.numKvHeads} K/V heads (the same ${model.numHeads / model.numKvHeads} query heads per K/V head)`;
  return `${real} Shown: ${heads}, scaled to d_k = ${config.dK} (d_model = ${config.dModel}) and T = ${config.seqLen}, one layer, so that every number fits on the page.`;
}
