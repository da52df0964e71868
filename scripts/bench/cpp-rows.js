// The bench's C++-only rows (no plain-JS baseline): decoding with and without a KV cache, and
// FlashAttention's tiled pass against ordinary attention, from bench.cpp's JSON lines run
// natively and in WASM. FLOPs come with each line, counted by bench.cpp.

const times = (a, b) => `${(a / b).toFixed(2)}×`;
const shape = (n) => `(${n.t}, ${n.d}, ${n.h ?? 1})`;

function pick(lines, what, match) {
  const found = lines.find((n) => n.what === what && match(n));
  if (!found) throw new Error(`bench.cpp printed no matching "${what}" line`);
  return found;
}

// Decode of T tokens: KV cache (median) and recomputing without one (one run: quadratic in T).
export function decodeRows(nativeLines, wasmLines) {
  const at = (lines, cached) => pick(lines, 'decode', (n) => n.cached === cached);
  const rows = [true, false].map((cached) => {
    const n = at(nativeLines, cached);
    const w = at(wasmLines, cached);
    const what = cached ? 'decode, KV cache' : 'decode, no cache (1 run)';
    return { what, shape: shape(n), native: n.ms, wasm: w.ms, gflop: n.flop / 1e9, repeats: [n.repeats, w.repeats] };
  });
  const [cached, recomputed] = rows;
  const difference = Math.max(at(nativeLines, false).max_difference, at(wasmLines, false).max_difference);
  const notes =
    `decode of ${at(nativeLines, true).t} tokens: FLOPs = 2 × Σ_t decode_macs(t) ` +
    `(${cached.gflop.toFixed(2)} GFLOP with the cache, ` +
    `${recomputed.gflop.toFixed(0)} GFLOP recomputing K and V of every token so far); ` +
    `the cache is ${times(recomputed.native, cached.native)} faster natively, ` +
    `${times(recomputed.wasm, cached.wasm)} in WASM; ` +
    `with the cache median of ${cached.repeats.join(' (native) and ')} (WASM) runs, without it one run each; ` +
    `largest |cached − recomputed| ${difference.toExponential(1)}`;
  return { rows, notes };
}

// One head at T tokens: standard (the T × T matrix) and tiled, causal and not; marchLines: the
// -march=native build's lines.
export function flashRows(nativeLines, wasmLines, marchLines) {
  const rows = [];
  const ratios = [];
  for (const causal of [false, true]) {
    const n = pick(nativeLines, 'flash', (l) => l.causal === causal);
    const m = pick(marchLines, 'flash', (l) => l.causal === causal);
    const w = pick(wasmLines, 'flash', (l) => l.causal === causal);
    const mask = causal ? ', causal' : '';
    rows.push({
      what: `standard${mask}`,
      shape: shape(n),
      native: n.standard_ms,
      march: m.standard_ms,
      wasm: w.standard_ms,
      gflop: n.flop / 1e9,
    });
    rows.push({
      what: `flash ${n.block}×${n.block}${mask}`,
      shape: shape(n),
      native: n.tiled_ms,
      march: m.tiled_ms,
      wasm: w.tiled_ms,
      gflop: n.flop / 1e9,
    });
    ratios.push(
      `${causal ? 'causal' : 'no mask'}: native ${times(n.tiled_ms, n.standard_ms)}, ` +
        `WASM ${times(w.tiled_ms, w.standard_ms)}`,
    );
  }
  const n = pick(nativeLines, 'flash', () => true);
  const notes =
    `standard vs flash: one head, d_k = d_v = ${n.dk}, B_r = B_c = ${n.block}, same Q, K, V; ` +
    `FLOPs = 4·T²·d_k (Q·Kᵀ and P·V over the whole square, causal rows too, of which both skip the hidden half); ` +
    `flash time / standard time, ${ratios.join('; ')}`;
  return { rows, notes };
}
