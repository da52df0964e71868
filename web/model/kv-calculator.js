// The KV-cache size calculator's data: which caches to size (the engine's real models, those that
// cache a latent (MLA), a custom row, the chapter's own layer) as engine.kvCacheBytes queries, and
// the table that shows the engine's answers. Pure: the bytes come from the engine.

import { formatBytes, formatCount } from './format.js';

export const DTYPES = [
  { id: 'fp32', label: 'fp32 (4 bytes)', bytes: 4 },
  { id: 'fp16', label: 'fp16 (2 bytes)', bytes: 2 },
  { id: 'bf16', label: 'bf16 (2 bytes)', bytes: 2 },
  { id: 'int8', label: 'int8 (1 byte)', bytes: 1 },
];

// What the calculator's inputs hold first: LLaMA 3 8B's context and geometry in the custom row.
export const DEFAULT_CALCULATOR = {
  context: '8192',
  dtype: 'fp16',
  batch: '1',
  dHead: '128',
  heads: '32',
  kvHeads: '8',
  layers: '32',
};

const number = (text) => Number(String(text).trim() === '' ? NaN : text);

// The caches to size: { id, name, heads, kvHeads, dHead, layers, maxContext?, context?, bytes? }
// (context and bytes given for the chapter's own float64 layer; the calculator's inputs
// otherwise). A real model's cache holds at most its context window (the engine's
// contextLength): a longer context is sized at that limit, and the row says so.
export function calculatorRows(catalog, calc, config) {
  const models = catalog.models.map((m) => ({
    id: m.id,
    name: m.window ? `${m.name} (sliding window of ${formatCount(m.window)})` : m.name,
    heads: m.numHeads,
    kvHeads: m.numKvHeads,
    dHead: m.dK,
    layers: m.numLayers,
    window: m.window,
    maxContext: m.contextLength,
  }));
  // MLA (DeepSeek-V2 §2.1): one latent row of d_c + d_r per token and layer, read by every head.
  const latent = (catalog.latentModels ?? []).map((m) => ({
    id: m.id,
    name: `${m.name} (MLA: latent ${m.dLatent} + RoPE ${m.dRope})`,
    heads: m.numHeads,
    latentDims: m.dLatent + m.dRope,
    dHead: m.dHead,
    layers: m.numLayers,
    maxContext: m.contextLength,
  }));
  const custom = {
    id: 'custom',
    name: 'Custom',
    heads: number(calc.heads),
    kvHeads: number(calc.kvHeads),
    dHead: number(calc.dHead),
    layers: number(calc.layers),
  };
  const rows = [...models, ...latent, custom];
  if (config?.kind === 'kv-cache' && config.dK === config.dV) {
    rows.push({
      id: 'chapter',
      name: `This chapter\u2019s layer (T = ${config.seqLen}, float64)`,
      heads: config.numHeads,
      kvHeads: config.numKvHeads,
      dHead: config.dK,
      layers: 1,
      context: config.seqLen,
      bytes: 8,
    });
  }
  return rows;
}

/** engine.kvCacheBytes queries for one row: per token, in all, and the same model as MHA. */
export function sizeQueries(row, calc) {
  const bytes = row.bytes ?? DTYPES.find((d) => d.id === calc.dtype)?.bytes ?? NaN;
  const heads = row.latentDims ? { latentDims: row.latentDims } : { dHead: row.dHead, numKvHeads: row.kvHeads };
  const base = { ...heads, numLayers: row.layers, bytesPerValue: bytes };
  if (row.window) base.window = row.window; // the engine keeps min(tokens, W) of them
  const context = row.context ?? Math.min(number(calc.context), row.maxContext ?? Infinity);
  const batch = row.context ? 1 : number(calc.batch);
  // Every head with its own K and V of d_h: the MHA an MLA model is compared with (its §2.1).
  const mha = { dHead: row.dHead, numKvHeads: row.heads, numLayers: row.layers, bytesPerValue: bytes };
  if (row.window) mha.window = row.window;
  return {
    perToken: { ...base, seqLen: 1, batch: 1 },
    total: { ...base, seqLen: context, batch },
    mha: { ...mha, seqLen: context, batch },
  };
}

/**
 * sized: [{ row, perToken, total, mha } | { row, error }] → the table: per-token and total size,
 * the same model if every head kept its own K and V, and how far the often-quoted formula (which
 * multiplies by all heads) overstates the cache.
 */
const cappedAt = (limit, asked) => `at ${formatCount(limit)} tokens, its context window (not ${formatCount(asked)})`;

// An MLA model has no K/V heads: its one latent row serves all of them.
const headsCell = (row) =>
  row.latentDims
    ? `none: 1 latent for ${formatCount(row.heads)}`
    : `${formatCount(row.kvHeads)} of ${formatCount(row.heads)}`;

// How far 2 · h · d_h per token overstates the cache: h / h_kv, or MHA's bytes over MLA's.
function overstated(row, total, mha) {
  if (row.latentDims) return `${(mha / total).toFixed(1)}\u00d7 too big`;
  return row.kvHeads === row.heads ? 'exact' : `${row.heads / row.kvHeads}\u00d7 too big`;
}

export function calculatorView(calc, sized) {
  const asked = number(calc.context);
  const capped = (row) => row.maxContext !== undefined && asked > row.maxContext;
  return {
    calc,
    dtypes: DTYPES,
    headers: ['model', 'K/V heads of heads', 'per token', 'in all', 'if it were MHA', 'sized with all h heads'],
    rows: sized.map(({ row, error, perToken, total, mha }) => ({
      id: row.id,
      name: row.name,
      cells: error
        ? [headsCell(row), error]
        : [
            headsCell(row),
            formatBytes(perToken),
            capped(row) ? `${formatBytes(total)} ${cappedAt(row.maxContext, asked)}` : formatBytes(total),
            formatBytes(mha),
            overstated(row, total, mha),
          ],
      error: Boolean(error),
      capped: !error && capped(row),
    })),
  };
}
