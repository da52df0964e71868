// The bench's windows and positions (issue 20 §5): the untraced forward with a sliding window
// against full causal attention at growing T, and with RoPE or ALiBi against the same forward
// without them. From bench.cpp's JSON lines (native, -march=native and WASM), and through the
// JS engine (WASM) where its specs allow (seqLen ≤ 1024), each timed in turns.
import { timeInTurns } from './engine-rows.js';

const POSITION_VARIANTS = [
  ['plain', {}],
  ['rope', { rope: {} }],
  ['rope half-split', { rope: { convention: 'half-split' } }],
  ['alibi', { alibi: true }],
];
const ENGINE_ROUNDS = 9;
const spec = (t, d, h, extra) => ({ seed: 42, seqLen: t, dModel: d, numHeads: h, causal: true, ...extra });

function linesOf(lines, what) {
  const found = lines.filter((n) => n.what === what);
  if (found.length === 0) throw new Error(`bench.cpp printed no "${what}" line`);
  return found;
}

// engine.forward causal and with the window, in turns, at each bench.cpp size the engine takes.
function engineWindow(engine, cases) {
  const rows = new Map();
  for (const { t, d, h, w } of cases.filter((c) => c.t <= 1024)) {
    const [causal, windowed] = timeInTurns(
      [() => engine.forward(spec(t, d, h, {})), () => engine.forward(spec(t, d, h, { window: w }))],
      15,
    );
    rows.set(t, { causal_ms: causal.median, window_ms: windowed.median });
  }
  return rows;
}

// engine.forward plain, with RoPE (both conventions) and with ALiBi, in turns: variant → median ms.
function enginePositions(engine, { t, d, h }) {
  const medians = timeInTurns(
    POSITION_VARIANTS.map(
      ([, extra]) =>
        () =>
          engine.forward(spec(t, d, h, extra)),
    ),
    ENGINE_ROUNDS,
  );
  return new Map(POSITION_VARIANTS.map(([name], i) => [name, medians[i].median]));
}

const pad = (s, n) => String(s).padStart(n);
const fixed = (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const quotient = (a, b, text) => `${text(a)} / ${text(b)} = ${(a / b).toFixed(2)}×`;
const pairCell = (n) => (n ? quotient(n.causal_ms, n.window_ms, fixed) : '—');
const percent = (v, plain) => `${v >= plain ? '+' : '−'}${Math.abs((v / plain - 1) * 100).toFixed(1)} %`;

function windowTable(builds, engineRows) {
  const native = linesOf(builds.native, 'window');
  const first = native[0];
  const out = [
    `sliding window W = ${first.w} against causal attention at d_model ${first.d}, ${first.h} heads ` +
      `(d_k ${first.d / first.h}), W_O; forward() untraced, median ms in turns, causal / window = ratio; ` +
      `GFLOP = 8·T·d² + 4·d·Σ keys seen (the engine takes T ≤ 1024)`,
    ['T', 'GFLOP causal / window', 'native', 'march', 'WASM', 'engine (WASM)']
      .map((s, i) => pad(s, i === 0 ? 5 : i === 1 ? 26 : 24))
      .join(' '),
  ];
  for (const n of native) {
    const at = (lines) => lines.find((l) => l.what === 'window' && l.t === n.t);
    const gflop = quotient(n.causal_flop, n.window_flop, (f) => (f / 1e9).toFixed(2));
    const cells = [n, at(builds.march), at(builds.wasm), engineRows.get(n.t)].map(pairCell);
    out.push([pad(n.t, 5), pad(gflop, 26), ...cells.map((c) => pad(c, 24))].join(' '));
  }
  return out;
}

// Each build's medians: variant → ms, and how many repeats bench.cpp took.
function positionsOf(lines) {
  const found = linesOf(lines, 'positions');
  return { ms: new Map(found.map((n) => [n.variant, n.ms])), repeats: found[0].repeats, at: found[0] };
}

function positionsTable(builds, engineMs) {
  const columns = [
    ['native', positionsOf(builds.native).ms],
    ['march', positionsOf(builds.march).ms],
    ['WASM', positionsOf(builds.wasm).ms],
    ['engine (WASM)', engineMs],
  ];
  const { at } = positionsOf(builds.native);
  const rounds = ['native', 'march', 'wasm'].map((b) => positionsOf(builds[b]).repeats).join(', ');
  const out = [
    `RoPE and ALiBi at (${at.t}, ${at.d}, ${at.h}), causal, W_O; forward() untraced, the four in turns ` +
      `(rounds: ${rounds} in bench.cpp, ${ENGINE_ROUNDS} in the engine), median ms and the change against plain`,
    [pad('', 16), ...columns.map(([name]) => pad(name, 20))].join(' '),
  ];
  const worst = new Map();
  for (const [variant] of POSITION_VARIANTS) {
    const cells = columns.map(([, ms]) => {
      const plain = ms.get('plain');
      const v = ms.get(variant);
      if (variant !== 'plain') worst.set(variant, Math.max(worst.get(variant) ?? -Infinity, v / plain));
      return variant === 'plain' ? fixed(v) : `${fixed(v)} (${percent(v, plain)})`;
    });
    out.push([pad(variant, 16), ...cells.map((c) => pad(c, 20))].join(' '));
  }
  const verdicts = [...worst].map(
    ([variant, ratio]) => `${variant} at most ${percent(ratio, 1)} ${ratio <= 1.05 ? 'met' : 'NOT met'}`,
  );
  out.push(`target: RoPE and ALiBi ≤ 5 % over plain, in every build: ${verdicts.join('; ')}`);
  return out;
}

// The two tables as lines of text. builds: { native, march, wasm }, each bench.cpp's lines.
export function positionTables(builds, engine) {
  const cases = linesOf(builds.native, 'window');
  const engineWindowRows = engineWindow(engine, cases);
  const engineMs = enginePositions(engine, positionsOf(builds.native).at);
  return [...windowTable(builds, engineWindowRows), '', ...positionsTable(builds, engineMs)];
}
