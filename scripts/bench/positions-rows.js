// The bench's windows and positions (issue 20 §5): the untraced forward with a sliding window
// against full causal attention at growing T, and with RoPE or ALiBi against the same forward
// without them. From bench.cpp's JSON lines (native, -march=native and WASM), and through the
// JS engine (WASM) where its specs allow (seqLen ≤ 1024). Each comparison runs in turns, and
// its ratio is the median over rounds of the two times in the same round: on a shared machine a
// load that comes and goes slows both sides of each quotient alike. Each ratio comes twice, of
// wall times and of CPU times (which other processes' turns on the cores do not inflate).

const POSITION_VARIANTS = [
  ['plain', {}],
  ['rope', { rope: {} }],
  ['rope half-split', { rope: { convention: 'half-split' } }],
  ['alibi', { alibi: true }],
];
const ENGINE_ROUNDS = { window: 15, positions: 15 };
const spec = (t, d, h, extra) => ({ seed: 42, seqLen: t, dModel: d, numHeads: h, causal: true, ...extra });
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const medianRatio = (a, b) => median(a.map((v, r) => v / b[r]));

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

// Each work's wall and CPU times, round by round, after one warm-up each; each round starts one
// further along, as bench.cpp's interleaved_ms does.
export function inTurns(works, rounds) {
  works.forEach((work) => work());
  const wall = works.map(() => []);
  const cpu = works.map(() => []);
  for (let r = 0; r < rounds; r++)
    for (let k = 0; k < works.length; k++) {
      const i = (r + k) % works.length;
      const [start, startCpu] = [performance.now(), cpuMs()];
      works[i]();
      cpu[i][r] = cpuMs() - startCpu;
      wall[i][r] = performance.now() - start;
    }
  return { wall, cpu };
}

function linesOf(lines, what) {
  const found = lines.filter((n) => n.what === what);
  if (found.length === 0) throw new Error(`bench.cpp printed no "${what}" line`);
  return found;
}

// engine.forward causal and with the window, at each bench.cpp size the engine takes: T → row.
function engineWindow(engine, cases) {
  const rows = new Map();
  for (const { t, d, h, w } of cases.filter((c) => c.t <= 1024)) {
    const { wall, cpu } = inTurns(
      [() => engine.forward(spec(t, d, h, {})), () => engine.forward(spec(t, d, h, { window: w }))],
      ENGINE_ROUNDS.window,
    );
    rows.set(t, {
      causal_ms: median(wall[0]),
      window_ms: median(wall[1]),
      ratio: medianRatio(wall[0], wall[1]),
      cpu_ratio: medianRatio(cpu[0], cpu[1]),
    });
  }
  return rows;
}

// engine.forward plain, with RoPE (both conventions) and with ALiBi: variant → { ms, vs_plain,
// cpu_vs_plain }, as bench.cpp prints them.
function enginePositions(engine, { t, d, h }) {
  const works = POSITION_VARIANTS.map(
    ([, extra]) =>
      () =>
        engine.forward(spec(t, d, h, extra)),
  );
  const { wall, cpu } = inTurns(works, ENGINE_ROUNDS.positions);
  const row = (i) => ({
    ms: median(wall[i]),
    vs_plain: medianRatio(wall[i], wall[0]),
    cpu_vs_plain: medianRatio(cpu[i], cpu[0]),
  });
  return new Map(POSITION_VARIANTS.map(([name], i) => [name, row(i)]));
}

const pad = (s, n) => String(s).padStart(n);
const fixed = (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const windowCell = (n) =>
  n ? `${fixed(n.causal_ms)} / ${fixed(n.window_ms)}: ${n.ratio.toFixed(2)}× (${n.cpu_ratio.toFixed(2)}×)` : '—';
const percent = (ratio) => `${ratio >= 1 ? '+' : '−'}${Math.abs((ratio - 1) * 100).toFixed(1)} %`;

function windowTable(builds, engineRows) {
  const native = linesOf(builds.native, 'window');
  const first = native[0];
  const out = [
    `sliding window W = ${first.w} against causal attention at d_model ${first.d}, ${first.h} heads ` +
      `(d_k ${first.d / first.h}), W_O; forward() untraced: causal / window median ms, then the median of ` +
      `causal / window in the same round (of CPU times); GFLOP = 8·T·d² + 4·d·Σ keys seen (the engine takes T ≤ 1024)`,
    ['T', 'GFLOP causal / window', 'native', 'march', 'WASM', 'engine (WASM)']
      .map((s, i) => pad(s, i === 0 ? 5 : i === 1 ? 24 : 30))
      .join(' '),
  ];
  for (const n of native) {
    const at = (lines) => lines.find((l) => l.what === 'window' && l.t === n.t);
    const gflop = (f) => (f / 1e9).toFixed(2);
    const work = `${gflop(n.causal_flop)} / ${gflop(n.window_flop)}: ${(n.causal_flop / n.window_flop).toFixed(2)}×`;
    const cells = [n, at(builds.march), at(builds.wasm), engineRows.get(n.t)].map(windowCell);
    out.push([pad(n.t, 5), pad(work, 24), ...cells.map((c) => pad(c, 30))].join(' '));
  }
  return out;
}

// One build's lines: variant → { ms, vs_plain }, the rounds bench.cpp took and the sizes.
function positionsOf(lines) {
  const found = linesOf(lines, 'positions');
  return { rows: new Map(found.map((n) => [n.variant, n])), repeats: found[0].repeats, at: found[0] };
}

function positionsTable(builds, engineRows) {
  const columns = [
    ['native', positionsOf(builds.native).rows],
    ['march', positionsOf(builds.march).rows],
    ['WASM', positionsOf(builds.wasm).rows],
    ['engine (WASM)', engineRows],
  ];
  const { at } = positionsOf(builds.native);
  const rounds = ['native', 'march', 'wasm'].map((b) => positionsOf(builds[b]).repeats).join(', ');
  const out = [
    `RoPE and ALiBi at (${at.t}, ${at.d}, ${at.h}), causal, W_O; forward() untraced, the four in turns ` +
      `(rounds: ${rounds} in bench.cpp, ${ENGINE_ROUNDS.positions} in the engine): median ms, and the ` +
      `median over rounds of the change against plain in the same round, of wall / CPU times`,
    [pad('', 16), ...columns.map(([name]) => pad(name, 26))].join(' '),
  ];
  const worst = new Map();
  for (const [variant] of POSITION_VARIANTS) {
    const cells = columns.map(([, rows]) => {
      const { ms, vs_plain: wall, cpu_vs_plain: cpu } = rows.get(variant);
      if (variant === 'plain') return fixed(ms);
      worst.set(variant, Math.max(worst.get(variant) ?? -Infinity, cpu));
      return `${fixed(ms)} (${percent(wall)} / ${percent(cpu)})`;
    });
    out.push([pad(variant, 16), ...cells.map((c) => pad(c, 26))].join(' '));
  }
  const verdicts = [...worst].map(
    ([variant, ratio]) => `${variant} at most ${percent(ratio)} ${ratio <= 1.05 ? 'met' : 'NOT met'}`,
  );
  out.push(`target: RoPE and ALiBi ≤ 5 % over plain in CPU time, in every build: ${verdicts.join('; ')}`);
  return out;
}

// The two tables as lines of text. builds: { native, march, wasm }, each bench.cpp's lines.
export function positionTables(builds, engine) {
  const engineWindowRows = engineWindow(engine, linesOf(builds.native, 'window'));
  const enginePositionRows = enginePositions(engine, positionsOf(builds.native).at);
  return [...windowTable(builds, engineWindowRows), '', ...positionsTable(builds, enginePositionRows)];
}
