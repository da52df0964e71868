// The bench's measurements through the JS engine (WASM): forward and run() with its trace handed
// to JS, timed in turns so that load on the machine hits both alike, and explicit matrices given
// as arrays of rows and as flat Float64Arrays. Causal, like bench.cpp's rows, unless a row says
// otherwise.

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

// Wall and CPU time of each call: { median, p10, p90, cpu } (ms; cpu is the median CPU time of
// one call, which other processes on the machine inflate less than wall time).
function summary(wall, cpu) {
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { median: at(wall, 0.5), p10: at(wall, 0.1), p90: at(wall, 0.9), cpu: at(cpu, 0.5) };
}

// Calls each of `works` in turn, `rounds` times after one warm-up call each.
export function timeInTurns(works, rounds) {
  works.forEach((work) => work());
  const wall = works.map(() => []);
  const cpu = works.map(() => []);
  for (let r = 0; r < rounds; r++) {
    works.forEach((work, i) => {
      const start = performance.now();
      const startCpu = cpuMs();
      work();
      cpu[i].push(cpuMs() - startCpu);
      wall[i].push(performance.now() - start);
    });
  }
  return works.map((_, i) => summary(wall[i], cpu[i]));
}

const spec = (t, d, h, causal = true) => ({ seed: 42, seqLen: t, dModel: d, numHeads: h, causal });

// engine.forward, engine.run, and engine.run into the memory of the trace it returned last
// ({ reuse }), at each size, in turns, causal, and at (256, 256, 8) also without a mask (where
// both compute the same products); forward alone at the largest size, causal and not.
export function engineRows(engine) {
  const rows = [];
  for (const [t, d, h, rounds, causal] of [
    [64, 128, 8, 200, true],
    [256, 256, 8, 40, true],
    [256, 256, 8, 40, false],
  ]) {
    let previous = engine.run(spec(t, d, h, causal));
    const reusing = () => {
      previous = engine.run(spec(t, d, h, causal), { reuse: previous });
    };
    const [forward, run, reuse] = timeInTurns(
      [() => engine.forward(spec(t, d, h, causal)), () => engine.run(spec(t, d, h, causal)), reusing],
      rounds,
    );
    rows.push({ t, d, h, causal, forward, run, reuse });
  }
  for (const causal of [true, false]) {
    const [forward] = timeInTurns([() => engine.forward(spec(1024, 768, 12, causal))], 7);
    rows.push({ t: 1024, d: 768, h: 12, causal, forward });
  }
  return rows;
}

const flat = (rows) => ({ shape: [rows.length, rows[0].length], values: Float64Array.from(rows.flat()) });

// The matrices engine.randn draws, as arrays of rows and flat: X (t, d), h × W_Q, W_K, W_V
// (d, d / h) and W_O (d, d), causal.
function explicitSpecs(engine, [t, d, h]) {
  const dk = d / h;
  const rowsOf = (v, r, c) => Array.from({ length: r }, (_, i) => Array.from(v.subarray(i * c, (i + 1) * c)));
  const draw = (seed, r, c) =>
    rowsOf(
      engine.randn(seed, r, c).map((x) => x * 0.1),
      r,
      c,
    );
  const heads = (from) => Array.from({ length: h }, (_, i) => draw(from + i, d, dk));
  const rows = {
    X: draw(1, t, d),
    W_Q: heads(10),
    W_K: heads(100),
    W_V: heads(1000),
    W_O: draw(2, d, d),
    causal: true,
  };
  const flatSpec = {
    ...rows,
    X: flat(rows.X),
    W_Q: rows.W_Q.map(flat),
    W_K: rows.W_K.map(flat),
    W_V: rows.W_V.map(flat),
    W_O: flat(rows.W_O),
  };
  return { rows, flat: flatSpec, values: t * d + 4 * d * d };
}

// engine.forward of explicit matrices at (t, d, h), as rows and flat, in turns; the cost of
// reading each value is the time beyond the C++ forward of the same sizes (cppMs, WASM).
// flat is null for an engine that takes no flat matrices (an older build, timed side by side).
export function explicitRows(engine, size, cppMs) {
  const specs = explicitSpecs(engine, size);
  const perValue = (s) => ({ ...s, ns: ((s.median - cppMs) * 1e6) / specs.values });
  let takesFlat = true;
  try {
    engine.forward(specs.flat);
  } catch {
    takesFlat = false;
  }
  const works = [() => engine.forward(specs.rows), ...(takesFlat ? [() => engine.forward(specs.flat)] : [])];
  const [rows, flatTime] = timeInTurns(works, 15);
  return { values: specs.values, rows: perValue(rows), flat: flatTime ? perValue(flatTime) : null };
}
