// The bench's training against PyTorch (issue 36): the default induction run's steps through
// engine.train (WASM) and through eager PyTorch (scripts/bench/torch_train.py: float64, one thread)
// in turns, a checkpoint's chunk of 25 steps at a time, from the engine's step-0 model on the
// engine's own batches. Each round times both sides on the same steps; the ratio is the median
// over the rounds of torch ÷ engine in the same round, of wall and of CPU times. Both sides train
// the same model: each round's mean loss agrees (the largest difference is printed).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { mapParams } from '../../web/model/model-params.js';
import { median } from './positions-rows.js';

const TORCH = fileURLToPath(new URL('torch_train.py', import.meta.url));
const CHUNK = 25;
const PYTHON = '/usr/bin/python3'; // Debian's, where apt installs python3-torch

const plainMatrix = (m) => ({ shape: m.shape, values: Array.from(m.values) });

// The torch process, answering one line a request.
function startTorch(setup) {
  const child = spawn(PYTHON, [TORCH], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  child.stdin.write(`${JSON.stringify(setup)}\n`);
  return {
    async steps(n) {
      child.stdin.write(`${JSON.stringify({ steps: n })}\n`);
      const { value, done } = await lines.next();
      if (done) throw new Error('torch_train.py stopped');
      return JSON.parse(value);
    },
    close: () => child.stdin.end(),
  };
}

/** Rounds of CHUNK steps, engine then torch, from step 0: { rounds, ratio, cpuRatio, lossDiff }. */
export async function torchRows(engine, rounds = 8) {
  const spec = { task: 'induction', seed: 0 };
  let last = engine.train(spec, { steps: CHUNK }).checkpoints[0]; // step 0: the model both start from
  const batches = [];
  for (let k = 1; k <= rounds * CHUNK; k += 1) batches.push(engine.taskBatch(spec, { stream: k, count: 32 }));
  const torch = startTorch({
    config: last.model.config,
    params: mapParams(last.model.params, plainMatrix),
    batches,
    lr: 3e-3,
  });
  const out = [];
  try {
    for (let r = 0; r < rounds; r += 1) {
      const started = performance.now();
      const cpu = process.cpuUsage();
      last = engine.train(spec, { from: last, steps: CHUNK }).checkpoints.at(-1);
      const used = process.cpuUsage(cpu);
      const engineRound = { wall: (performance.now() - started) / 1e3, cpu: (used.user + used.system) / 1e6 };
      const torchRound = await torch.steps(CHUNK);
      out.push({ engine: engineRound, torch: torchRound, lossDiff: Math.abs(torchRound.loss - last.trainLoss) });
    }
  } finally {
    torch.close();
  }
  const lossDiff = Math.max(...out.map((r) => r.lossDiff));
  if (!(lossDiff <= 1e-9))
    throw new Error(`torch-rows: the two sides' losses differ by ${lossDiff}: not the same training`);
  return {
    rounds: out,
    engineStepsPerS: CHUNK / median(out.map((r) => r.engine.wall)),
    torchStepsPerS: CHUNK / median(out.map((r) => r.torch.wall)),
    ratio: median(out.map((r) => r.torch.wall / r.engine.wall)),
    cpuRatio: median(out.map((r) => r.torch.cpu / r.engine.cpu)),
    lossDiff,
  };
}

/** The comparison as lines of text. */
export function torchTable(t) {
  return [
    `training steps, engine.train (WASM) against eager PyTorch (float64, one thread, python3-torch), ` +
      `${t.rounds.length} rounds of ${CHUNK} steps in turns from the same step-0 model on the same batches ` +
      `(the engine's time includes its checkpoint after each round: held-out loss and head scores)`,
    `  engine.train ${t.engineStepsPerS.toFixed(1)} steps/s, PyTorch ${t.torchStepsPerS.toFixed(1)} steps/s: ` +
      `${t.ratio.toFixed(2)}× (CPU ${t.cpuRatio.toFixed(2)}×); target ≥ 3×; ` +
      `largest difference of a round's mean loss ${t.lossDiff.toExponential(1)}`,
  ];
}
