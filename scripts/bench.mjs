// `npm run bench`: one table of the multi-head forward and the traced run, native C++ (SSE2, and
// -march=native) vs WASM (same source, -msimd128) vs plain JavaScript; then, C++ only,
// FlashAttention's tiled pass against ordinary attention and decoding with a KV cache against
// recomputing; then the JS engine's own figures: forward and run() with the trace handed to JS,
// and explicit matrices read as arrays of rows and as flat Float64Arrays; last, a sliding window
// against full causal attention as T grows, and RoPE and ALiBi against the forward without them;
// the backward pass against the forward, with both multiply-add counts; training the default
// induction run, and its steps against eager PyTorch's; and multi-head latent attention's forward
// against multi-head attention's, with both multiply-add counts and the floats each caches per token.
// float64, one thread, causal unless a row says "no mask", median ms.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createEngine } from '../dist/engine.js';
import { backwardTable, windowedBackwardTable } from './bench/backward-rows.js';
import { decodeRows, flashRows } from './bench/cpp-rows.js';
import { engineRows, explicitRows } from './bench/engine-rows.js';
import { mlaTable } from './bench/mla-rows.js';
import { positionTables } from './bench/positions-rows.js';
import { engineTrainLine, trainTable } from './bench/train-rows.js';
import { torchRows, torchTable } from './bench/torch-rows.js';
import { multiHeadAttention } from './bench/plain-attention.js';

const FORWARD = [
  [5, 16, 4, true],
  [64, 128, 8, true],
  [256, 256, 8, true],
  [1024, 768, 12, true],
  [1024, 768, 12, false],
];
const TRACED = FORWARD.slice(0, 3);
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
function plainInputs(engine, [t, d, h, causal]) {
  const dk = d / h;
  const draw = (r, c) => engine.randn(42, r, c); // values only need the right shapes here
  const scaled = (m) => m.map((v) => v * 0.1);
  const per = () => Array.from({ length: h }, () => scaled(draw(d, dk)));
  return { x: draw(t, d), wq: per(), wk: per(), wv: per(), wo: scaled(draw(h * dk, d)), t, d, h, dk, causal };
}

// bench.cpp's JSON lines, run natively or as WASM under node (the decode part takes minutes).
function cppLines(command, args) {
  const lines = execFileSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 24 })
    .trim()
    .split('\n');
  return lines.map((line) => JSON.parse(line));
}
const forwardMs = (all) => (t, d, h, causal, traced) =>
  all.find(
    (n) => n.what === undefined && n.t === t && n.d === d && n.h === h && n.causal === causal && n.traced === traced,
  )?.ms;

const engine = await createEngine();
const nativeLines = cppLines('build/native/attention_bench', []);
// -march=native: all but decoding (without a cache it would add two minutes).
const marchLines = cppLines('build/native-march/attention_bench', [
  'forward',
  'flash',
  'window',
  'positions',
  'backward',
  'train',
  'mla',
]);
const wasmLines = cppLines('node', ['build/wasm/attention_bench_wasm.cjs']);
const [nativeMs, marchMs, wasmMs] = [nativeLines, marchLines, wasmLines].map(forwardMs);

// forward: the product of a prepared problem (bench.cpp). run() + trace: spec → trace (bench.cpp;
// the JS engine's run(), which also hands every stage to JS, is in the engine table below).
const rows = [];
for (const traced of [false, true]) {
  for (const [t, d, h, causal] of traced ? TRACED : FORWARD) {
    const budget = t >= 1024 ? 3000 : 400;
    const inputs = plainInputs(engine, [t, d, h, causal]);
    const js = medianMs(() => multiHeadAttention(inputs, traced ? [] : null), budget);
    const what = `${traced ? 'run() + trace' : 'forward'}${causal ? '' : ', no mask'}`;
    rows.push({
      what,
      shape: `(${t}, ${d}, ${h})`,
      t,
      causal,
      traced,
      native: nativeMs(t, d, h, causal, traced),
      march: marchMs(t, d, h, causal, traced),
      wasm: wasmMs(t, d, h, causal, traced),
      js,
      gflop: flops(t, d) / 1e9,
    });
  }
}
const decode = decodeRows(nativeLines, wasmLines);
const flash = flashRows(nativeLines, wasmLines, marchLines);
rows.push(...decode.rows, ...flash.rows);

const pad = (s, n) => String(s).padStart(n);
const ms = (v) => (v === undefined ? '—' : v.toFixed(3));
const rate = (gflop, v) => (v === undefined ? '—' : (gflop / (v / 1e3)).toFixed(2));
const ratio = (a, b) => (a === undefined || b === undefined ? '—' : `${(a / b).toFixed(2)}×`);
console.log(
  'float64, one thread, causal unless "no mask"; ms = median; ' +
    'GFLOP/s with FLOPs = 8·T·d² + 4·T²·d for forward and run()',
);
console.log('native: g++ -O3 (SSE2); march: g++ -O3 -march=native -ffp-contract=off (AVX-512 here, the same bits)\n');
const head = [
  'what',
  '(T, d_model, h)',
  'native ms',
  'GFLOP/s',
  'march ms',
  'GFLOP/s',
  'WASM ms',
  'GFLOP/s',
  'JS ms',
  'GFLOP/s',
  'WASM/native',
  'WASM/march',
];
console.log(head.map((s, i) => pad(s, i === 0 ? 24 : i === 1 ? 22 : 11)).join(' '));
for (const r of rows) {
  console.log(
    [
      pad(r.what, 24),
      pad(r.shape, 22),
      pad(ms(r.native), 11),
      pad(rate(r.gflop, r.native), 11),
      pad(ms(r.march), 11),
      pad(rate(r.gflop, r.march), 11),
      pad(ms(r.wasm), 11),
      pad(rate(r.gflop, r.wasm), 11),
      pad(ms(r.js), 11),
      pad(rate(r.gflop, r.js), 11),
      pad(ratio(r.wasm, r.native), 11),
      pad(ratio(r.wasm, r.march), 11),
    ].join(' '),
  );
}
console.log(`\n${decode.notes}\n${flash.notes}`);

// The engine's WebAssembly as the browser fetches it: the core before the first paint, the rest
// after it (scripts/split-wasm.mjs), beside the whole module node reads.
const wasmSizes = ['attention-wasm.core.wasm', 'attention-wasm.rest.wasm', 'attention-wasm.wasm'].map((file) => {
  const bytes = readFileSync(`dist/${file}`);
  const kb = (n) => (n / 1024).toFixed(1);
  return `${file} ${kb(bytes.length)} KB (${kb(gzipSync(bytes, { level: 9 }).length)} KB gzipped)`;
});
console.log(`\nthe engine's parts: ${wasmSizes.join(', ')}`);

// The JS engine: forward and run() in turns; explicit matrices read two ways.
const engineTable = engineRows(engine);
const explicit = explicitRows(engine, [64, 128, 8], wasmMs(64, 128, 8, true, false));
console.log('\nthrough the JS engine (WASM), causal unless "no mask": median ms [p10 – p90], CPU ms per call');
const spread = (s) => `${s.median.toFixed(2)} [${s.p10.toFixed(2)} – ${s.p90.toFixed(2)}], CPU ${s.cpu.toFixed(2)}`;
for (const r of engineTable) {
  const shape = `(${r.t}, ${r.d}, ${r.h})${r.causal ? '' : ' no mask'}`;
  const gflops = (flops(r.t, r.d) / 1e9 / (r.forward.median / 1e3)).toFixed(2);
  console.log(`${pad(shape, 24)}  engine.forward ${spread(r.forward)} (${gflops} GFLOP/s)`);
  for (const [label, s] of [
    ['engine.run    ', r.run],
    ['  with reuse  ', r.reuse],
  ].filter(([, s]) => s)) {
    console.log(
      `${pad('', 24)}  ${label} ${spread(s)}: ${(s.median / r.forward.median).toFixed(2)}× forward ` +
        `(CPU ${(s.cpu / r.forward.cpu).toFixed(2)}×), p90/p10 ${(s.p90 / s.p10).toFixed(2)}`,
    );
  }
}
const flatText = explicit.flat
  ? `${spread(explicit.flat)} (${explicit.flat.ns.toFixed(1)} ns a value)`
  : 'not taken by this build';
console.log(
  `explicit matrices at (64, 128, 8), ${explicit.values} values, engine.forward: ` +
    `arrays of rows ${spread(explicit.rows)} ` +
    `(${explicit.rows.ns.toFixed(0)} ns a value beyond the C++ forward), flat Float64Arrays ${flatText}`,
);

// Where engine.run goes beyond engine.forward at (256, 256, 8), without a mask (issue 36: where
// both compute the same products) and causal: the spec's draws, the products and the trace's
// recording as bench.cpp times them in WASM, in turns; the hand-off to JS is what engine.run takes
// beyond bench.cpp's run (another process: an estimate).
for (const causal of [false, true]) {
  const row = engineTable.find((r) => r.t === 256 && r.causal === causal);
  const parts = wasmLines.find((n) => n.what === 'trace_parts' && n.causal === causal);
  const share = (v) => `${v.toFixed(2)} ms (${((v / row.forward.median) * 100).toFixed(0)} % of engine.forward)`;
  console.log(
    `${causal ? '' : '\n'}engine.run at (256, 256, 8) ${causal ? 'causal' : 'without a mask'}: ` +
      `${(row.run.median / row.forward.median).toFixed(2)}× engine.forward ` +
      `(with { reuse } ${(row.reuse.median / row.forward.median).toFixed(2)}×); in WASM (bench.cpp, in turns): ` +
      `the draws ${share(parts.draw_ms)}, the products ${share(parts.forward_ms - parts.draw_ms)}, ` +
      `the trace's recording ${share(parts.run_ms - parts.forward_ms)}; the hand-off to JS ` +
      `${share(row.run.median - parts.run_ms)}`,
  );
}

// The targets of the engine-speed issue.
const at256 = engineTable.find((r) => r.t === 256 && r.causal);
const at64 = engineTable.find((r) => r.t === 64);
const big = rows.find((r) => r.what === 'forward' && r.t === 1024);
const bigEngine = engineTable.find((r) => r.t === 1024 && r.causal);
const check = (ok) => (ok ? 'met' : 'NOT met');
const runRatio = at256.run.median / at256.forward.median;
const reuseRatio = at256.reuse.median / at256.forward.median;
const open256 = engineTable.find((r) => r.t === 256 && !r.causal);
const openRatio = open256.run.median / open256.forward.median;
const flatFigure = explicit.flat ? `${explicit.flat.ns.toFixed(1)} ${check(explicit.flat.ns <= 50)}` : '—';
const wasmRate = big.gflop / (big.wasm / 1e3);
const engineRate = big.gflop / (bigEngine.forward.median / 1e3);
console.log(
  `\ntargets: run() ≤ 1.5× forward() at (256, 256, 8), causal: ${runRatio.toFixed(2)}× ${check(runRatio <= 1.5)}, ` +
    `without a mask ${openRatio.toFixed(2)}× ${check(openRatio <= 1.5)}, ` +
    `with { reuse } ${reuseRatio.toFixed(2)}× ${check(reuseRatio <= 1.5)}; ` +
    `run() at (64, 128, 8) p90/p10 ${(at64.run.p90 / at64.run.p10).toFixed(2)}, ` +
    `with { reuse } ${(at64.reuse.p90 / at64.reuse.p10).toFixed(2)}; ` +
    `flat input ≤ 50 ns a value: ${flatFigure}; ` +
    `C++ forward in WASM ≥ 19 GFLOP/s at (1024, 768, 12): ${wasmRate.toFixed(2)} ${check(wasmRate >= 19)}; ` +
    `engine.forward ≥ 17: ${engineRate.toFixed(2)} ${check(engineRate >= 17)}; ` +
    `WASM/native ${(big.wasm / big.native).toFixed(2)}×, WASM/march ${(big.wasm / big.march).toFixed(2)}×`,
);

// Windows and positions (issue 20 §5), natively, in WASM and through the engine.
console.log(`\n${positionTables({ native: nativeLines, march: marchLines, wasm: wasmLines }, engine).join('\n')}`);

// The backward pass against the forward (issue 21), natively and in WASM.
console.log(`\n${backwardTable({ native: nativeLines, march: marchLines, wasm: wasmLines }).join('\n')}`);
console.log(`\n${windowedBackwardTable({ native: nativeLines, march: marchLines, wasm: wasmLines }).join('\n')}`);

// Training the default induction run (issue 22), natively, in WASM and through the engine.
const trained = { native: nativeLines, march: marchLines, wasm: wasmLines, engine: engineTrainLine(engine) };
console.log(`\n${trainTable(trained).join('\n')}`);
const js = trained.engine;
console.log(
  `target: the default induction run, its induction head formed, in ≤ 20 s of WASM training: ` +
    `${js.seconds.toFixed(1)} s ${check(js.seconds <= 20 && js.induction >= 0.5)} (formed at step ${js.formed_step}, ` +
    `${js.formed_seconds.toFixed(1)} s)`,
);
const torch = await torchRows(engine);
console.log(`\n${torchTable(torch).join('\n')}`);
console.log(`target: training ≥ 3× eager PyTorch's steps/s: ${torch.ratio.toFixed(2)}× ${check(torch.ratio >= 3)}`);

// Multi-head latent attention against multi-head attention (issue 38), natively, in WASM and
// through the engine.
console.log(`\n${mlaTable({ native: nativeLines, march: marchLines, wasm: wasmLines }, engine).join('\n')}`);
