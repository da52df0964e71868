// The bench's training rows (issue 22): the default induction run to its last step, in chunks of
// one checkpoint as the page's worker trains, natively, -march=native and in WASM (bench.cpp's
// "train" line), and through the JS engine (engine.train, resuming from each checkpoint). The
// phase change: the first checkpoint at which layer 1's best induction score is ≥ 0.5.

const pad = (s, n) => String(s).padStart(n);

const inductionOf = (c) => Math.max(0, ...c.headScores.filter((h) => h.layer === 1).map((h) => h.induction ?? 0));

/** engine.train's default induction run, chunk by chunk: the same figures bench.cpp prints. */
export function engineTrainLine(engine) {
  const spec = { task: 'induction', seed: 0 };
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let last = engine.train(spec, { steps: 25 }).checkpoints.at(-1);
  let formed = null;
  while (last.step < 1000) {
    last = engine.train(spec, { from: last, steps: 25 }).checkpoints.at(-1);
    if (!formed && inductionOf(last) >= 0.5) formed = { step: last.step, seconds: (performance.now() - started) / 1e3 };
  }
  const seconds = (performance.now() - started) / 1e3;
  const cpu = process.cpuUsage(cpuStarted);
  return {
    what: 'train',
    steps: last.step,
    seconds,
    cpu_seconds: (cpu.user + cpu.system) / 1e6,
    steps_per_s: last.step / seconds,
    formed_step: formed?.step ?? -1,
    formed_seconds: formed?.seconds ?? -1,
    induction: inductionOf(last),
    loss: last.loss,
  };
}

/** The table as lines of text. builds: { native, march, wasm } (bench.cpp's lines) and engine (one line). */
export function trainTable(builds) {
  const row = (label, n) =>
    n
      ? [
          pad(label, 24),
          pad(n.steps_per_s.toFixed(1), 10),
          pad(n.seconds.toFixed(1), 9),
          pad(n.cpu_seconds.toFixed(1), 9),
          pad(n.formed_step, 8),
          pad(n.formed_seconds.toFixed(1), 9),
          pad(n.induction.toFixed(2), 10),
          pad(n.loss.toFixed(3), 8),
        ].join(' ')
      : `${pad(label, 24)} —`;
  const lineOf = (lines) => lines.find((l) => l.what === 'train');
  return [
    'training the default induction run (vocab 32, seqLen 24, d_model 32, 2 layers × 2 heads, batch 32, Adam 3e-3, ' +
      '1000 steps), in chunks of 25 steps: steps/s, wall and CPU seconds, the step and second at which layer 1 ' +
      'first holds an induction head (score ≥ 0.5), its score and the held-out copy loss at the end (ln 32 = 3.47)',
    ['', 'steps/s', 'wall s', 'CPU s', 'formed', 'at s', 'induction', 'loss']
      .map((s, i) => pad(s, [24, 10, 9, 9, 8, 9, 10, 8][i]))
      .join(' '),
    row('native', lineOf(builds.native)),
    row('march', lineOf(builds.march)),
    row('WASM (C++)', lineOf(builds.wasm)),
    row('engine.train (JS)', builds.engine),
  ];
}
