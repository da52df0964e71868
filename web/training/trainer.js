// Trains a spec chunk by chunk in the worker (worker.js): one checkpoint's steps a chunk, each
// resumed from the chunk before's last checkpoint, so that pausing is not sending the next chunk
// and resuming is sending it. Reports each chunk's checkpoints, the measured steps/s and the spec
// with the engine's defaults filled in (its steps end the run).

export function createTrainer(workerUrl, { onChunk, onDone, onError }) {
  const worker = new Worker(workerUrl, { type: 'module' });
  let run = null; // { spec, chunk, steps, last, paused, id, started, trainedSteps, seconds }
  let nextId = 0;

  function send() {
    run.id = ++nextId;
    run.inFlight = true;
    run.sentAt = performance.now();
    const steps = run.steps === null ? run.chunk : Math.min(run.chunk, run.steps - run.last.step);
    worker.postMessage({ id: run.id, spec: run.spec, options: run.last ? { from: run.last, steps } : { steps } });
  }

  worker.addEventListener('message', ({ data }) => {
    if (!run || data.id !== run.id) return; // a chunk of a run that was reset
    if (data.error) {
      run = null;
      onError(data.error);
      return;
    }
    run.inFlight = false;
    const from = run.last?.step ?? 0;
    run.last = data.checkpoints.at(-1);
    run.steps = data.spec.steps;
    run.seconds += (performance.now() - run.sentAt) / 1000;
    run.trainedSteps += run.last.step - from;
    onChunk(data.checkpoints, { stepsPerSecond: run.trainedSteps / run.seconds }, data.spec);
    if (run.last.step >= run.steps) {
      run = null;
      onDone();
    } else if (!run.paused) send();
  });

  return {
    /** Trains spec from step 0, a chunk of spec.checkpointEvery steps (given) at a time. */
    start(spec) {
      run = { spec, chunk: spec.checkpointEvery, steps: null, last: null, paused: false };
      run.trainedSteps = 0;
      run.seconds = 0;
      send();
    },
    pause() {
      if (run) run.paused = true;
    },
    resume() {
      if (!run?.paused) return;
      run.paused = false;
      if (!run.inFlight) send(); // else the chunk under way sends the next when it is back
    },
    reset() {
      run = null;
    },
    get running() {
      return Boolean(run && !run.paused);
    },
    get paused() {
      return Boolean(run?.paused);
    },
    /** A chunk was sent and has not come back: after pause, it still lands. */
    get inFlight() {
      return Boolean(run?.inFlight);
    },
    destroy() {
      worker.terminate();
    },
  };
}
