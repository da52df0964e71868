// The bench's multi-head latent attention (DeepSeek-V2 §2.1, issue 38): MLA's untraced forward
// against multi-head self-attention's at the same T, d_model, heads, d_k, d_v, causal, with W_O,
// from bench.cpp's JSON lines (native, -march=native and WASM) and through the JS engine (WASM),
// each pair in turns; beside them the multiply-adds of both (counted by bench.cpp) and the floats
// one layer caches per token (the engine's config.kv.perToken). As in positions-rows.js (whose
// turns it uses), each ratio is the median over rounds of the two times in the same round, of
// wall and of CPU times.

import { inTurns, median, medianRatio } from './positions-rows.js';

const ENGINE_ROUNDS = { 256: 15, 1024: 7 };

function mlaLines(lines) {
  const found = lines.filter((n) => n.what === 'mla');
  if (found.length === 0) throw new Error('bench.cpp printed no "mla" line');
  return found;
}

// The two specs of one bench.cpp case: multi-head self-attention, and MLA with its latent.
function specsOf({ t, d, h, dk, dv, dc, dr }) {
  const mha = { seed: 42, seqLen: t, dModel: d, numHeads: h, dK: dk, dV: dv, causal: true };
  return { mha, mla: { ...mha, kind: 'mla', dLatent: dc, dRope: dr } };
}

// engine.forward of MLA and of MHA in turns at each case: T → { mla_ms, mha_ms, ratio, cpu_ratio }.
// A generated spec's forward draws its X and weights each call, which these times include.
function engineRows(engine, cases) {
  const rows = new Map();
  for (const n of cases) {
    const { mla, mha } = specsOf(n);
    const { wall, cpu } = inTurns([() => engine.forward(mla), () => engine.forward(mha)], ENGINE_ROUNDS[n.t] ?? 7);
    rows.set(n.t, {
      mla_ms: median(wall[0]),
      mha_ms: median(wall[1]),
      ratio: medianRatio(wall[0], wall[1]),
      cpu_ratio: medianRatio(cpu[0], cpu[1]),
    });
  }
  return rows;
}

// The engine's floats per token and layer for the case's sizes (they do not depend on T; a short
// traced run reads them), checked against what bench.cpp printed from latent_cache.
function cacheOf(engine, n) {
  const { perToken } = engine.run({ ...specsOf(n).mla, seqLen: 4 }).config.kv;
  if (perToken.mla !== n.cache_mla || perToken.mha !== n.cache_mha)
    throw new Error(
      `cache floats: the engine's perToken ${perToken.mla} / ${perToken.mha}, ` +
        `bench.cpp's ${n.cache_mla} / ${n.cache_mha}`,
    );
  return perToken;
}

// The d_c below which X·W_DKV then c_kv·W_UK, c_kv·W_UV take fewer multiply-adds than X·W_K, X·W_V.
const latentBound = ({ d, h, dk, dv }) => (d * h * (dk + dv)) / (d + h * (dk + dv));

const pad = (s, n) => String(s).padStart(n);
const gmac = (macs) => (macs / 1e9).toFixed(3);
const fixed = (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const cell = (n) =>
  n ? `${fixed(n.mla_ms)} / ${fixed(n.mha_ms)}: ${n.ratio.toFixed(2)}× (${n.cpu_ratio.toFixed(2)}×)` : '—';

// The table as lines of text. builds: { native, march, wasm }, each bench.cpp's lines.
export function mlaTable(builds, engine) {
  const cases = mlaLines(builds.native);
  const first = cases[0];
  const engineAt = engineRows(engine, cases);
  const cache = cacheOf(engine, first);
  const out = [
    `MLA against MHA at d_model ${first.d}, ${first.h} heads, d_k ${first.dk}, d_v ${first.dv}, ` +
      `MLA's d_c ${first.dc} and d_r ${first.dr}, causal, W_O; forward() untraced, the two in turns: ` +
      `MLA / MHA median ms, then the median of MLA / MHA in the same round (of CPU times)`,
    `MLA's forward here is the unabsorbed form: every head's K and V made in full as in MHA, but up ` +
      `from the latent (c_kv = X·W_DKV, then c_kv·W_UK, c_kv·W_UV: fewer multiply-adds than X·W_K, X·W_V ` +
      `while d_c < d·h(d_k + d_v) / (d + h(d_k + d_v)) = ${latentBound(first).toFixed(0)}), and every ` +
      `score with a decoupled RoPE part (X·W_QR per head, X·W_KR once, d_r more columns a score): ` +
      `it saves cache, not multiply-adds`,
    `GMAC = multiply-adds / 1e9: MHA T·d·h·(2d_k + d_v) + S·h·(d_k + d_v) + T·h·d_v·d; ` +
      `MLA T·d·(d_c + d_r) + T·d·h·(d_k + d_r) + T·d_c·h·(d_k + d_v) + S·h·(d_k + d_r + d_v) + ` +
      `T·h·d_v·d (S = keys seen, summed over queries; RoPE's turns not counted); ` +
      `the engine's times include drawing X and the weights, as engine.forward of a generated spec does`,
    ['T', 'GMAC MLA / MHA', 'native', 'march', 'WASM', 'engine (WASM)']
      .map((s, i) => pad(s, i === 0 ? 5 : i === 1 ? 22 : 30))
      .join(' '),
  ];
  for (const n of cases) {
    const at = (lines) => lines.find((l) => l.what === 'mla' && l.t === n.t);
    const work = `${gmac(n.mla_macs)} / ${gmac(n.mha_macs)}: ${(n.mla_macs / n.mha_macs).toFixed(2)}×`;
    const cells = [n, at(builds.march), at(builds.wasm), engineAt.get(n.t)].map(cell);
    out.push([pad(n.t, 5), pad(work, 22), ...cells.map((c) => pad(c, 30))].join(' '));
  }
  out.push(
    `cache per token and layer (config.kv.perToken): MLA d_c + d_r = ${cache.mla} floats, ` +
      `MHA h·(d_k + d_v) = ${cache.mha}: ${(cache.mha / cache.mla).toFixed(2)}× less`,
  );
  return out;
}
