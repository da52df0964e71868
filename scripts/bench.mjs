// `npm run bench`: one table of the multi-head forward and the traced run, native C++ vs
// WASM (same source, -msimd128) vs plain JavaScript; then, C++ only, FlashAttention's tiled
// pass against ordinary attention and decoding with a KV cache against recomputing.
// float64, one thread, median ms.
import { execFileSync } from 'node:child_process';
import { createEngine } from '../dist/engine.js';
import { decodeRows, flashRows } from './bench/cpp-rows.js';
import { multiHeadAttention } from './bench/plain-attention.js';

const CONFIGS = [[5, 16, 4], [64, 128, 8], [256, 256, 8], [1024, 768, 12]];
const TRACED = CONFIGS.slice(0, 3);
const flops = (t, d) => 8 * t * d * d + 4 * t * t * d;

function medianMs(work, budgetMs) {
  const first = performance.now();
  work();
  const once = performance.now() - first;
  const repeats = Math.min(2001, Math.max(5, Math.floor(budgetMs / Math.max(once, 1e-3))));
  const ms = [];
  for (let r = 0; r < repeats; r++) {
    const start = performance.now();
    work();
    ms.push(performance.now() - start);
  }
  return ms.sort((a, b) => a - b)[Math.floor(repeats / 2)];
}

// The same X and weights the engine draws for { seed: 42, … }, for the JS baseline.
function plainInputs(engine, [t, d, h]) {
  const dk = d / h;
  const draw = (r, c) => engine.randn(42, r, c);  // values only need the right shapes here
  const scaled = (m) => m.map((v) => v * 0.1);
  const per = () => Array.from({ length: h }, () => scaled(draw(d, dk)));
  return { x: draw(t, d), wq: per(), wk: per(), wv: per(), wo: scaled(draw(h * dk, d)), t, d, h, dk };
}

// bench.cpp's JSON lines, run natively or as WASM under node (the decode part takes minutes).
function cppLines(command, args) {
  const lines = execFileSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 24 }).trim().split('\n');
  return lines.map((line) => JSON.parse(line));
}
const forwardMs = (all) => (t, d, h, traced) =>
  all.find((n) => n.what === undefined && n.t === t && n.d === d && n.h === h && n.traced === traced).ms;

const engine = await createEngine();
const nativeLines = cppLines('build/native/attention_bench', []);
const wasmLines = cppLines('node', ['build/wasm/attention_bench_wasm.cjs']);
const nativeMs = forwardMs(nativeLines);
const wasmForwardMs = forwardMs(wasmLines);

// forward: the product of a prepared problem (bench.cpp, native and WASM). run() + trace:
// spec → trace, natively (bench.cpp) and through the JS engine, which also hands every
// stage to JS as Float64Arrays.
const rows = [];
for (const traced of [false, true]) {
  for (const [t, d, h] of traced ? TRACED : CONFIGS) {
    const spec = { seed: 42, seqLen: t, dModel: d, numHeads: h };
    const budget = t >= 1024 ? 3000 : 400;
    const wasm = traced ? medianMs(() => engine.run(spec), budget) : wasmForwardMs(t, d, h, false);
    const inputs = plainInputs(engine, [t, d, h]);
    const js = medianMs(() => multiHeadAttention(inputs, traced ? [] : null), budget);
    rows.push({ what: traced ? 'run() + trace' : 'forward', shape: `(${t}, ${d}, ${h})`, t,
      native: nativeMs(t, d, h, traced), wasm, js, gflop: flops(t, d) / 1e9 });
  }
}
const decode = decodeRows(nativeLines, wasmLines);
const flash = flashRows(nativeLines, wasmLines);
rows.push(...decode.rows, ...flash.rows);

const pad = (s, n) => String(s).padStart(n);
const rate = (gflop, ms) => (gflop / (ms / 1e3)).toFixed(2);
console.log('float64, one thread; ms = median; GFLOP/s with FLOPs = 8·T·d² + 4·T²·d for forward and run()\n');
console.log(['what', '(T, d_model, h)', 'native ms', 'GFLOP/s', 'WASM ms', 'GFLOP/s', 'JS ms', 'GFLOP/s', 'WASM/native']
  .map((h, i) => pad(h, i === 0 ? 24 : i === 1 ? 16 : 11)).join(' '));
for (const r of rows) {
  console.log([pad(r.what, 24), pad(r.shape, 16),
    pad(r.native.toFixed(3), 11), pad(rate(r.gflop, r.native), 11),
    pad(r.wasm.toFixed(3), 11), pad(rate(r.gflop, r.wasm), 11),
    pad(r.js === undefined ? '—' : r.js.toFixed(3), 11), pad(r.js === undefined ? '—' : rate(r.gflop, r.js), 11),
    pad((r.wasm / r.native).toFixed(2) + '×', 11)].join(' '));
}
console.log(`\n${decode.notes}\n${flash.notes}`);
const big = rows.find((r) => r.what === 'forward' && r.t === 1024);
const wasmRate = big.gflop / (big.wasm / 1e3);
console.log(`\ntargets at (1024, 768, 12): WASM ≥ 12 GFLOP/s: ${wasmRate.toFixed(2)} ${wasmRate >= 12 ? 'met' : 'NOT met'}; ` +
  `WASM ≤ 2× native: ${(big.wasm / big.native).toFixed(2)}× ${big.wasm <= 2 * big.native ? 'met' : 'NOT met'}`);
