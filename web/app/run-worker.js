// The stepper's worker (app/off-thread.js): an engine of its own, in a thread of its own. Each
// message { id, op, spec, cell, traceId } is one engine call; the reply { id, trace }, { id, value }
// or { id, error } (the engine's message), or { id, broken } when the engine did not load here.
// It keeps the last trace it ran, so that the cells of the trace the page shows are explained
// from its numbers rather than by running the spec again.
import { createEngine } from '../engine.js';

const loaded = createEngine();
let last = null; // { id, trace }

// A copy of a trace over a buffer of its own, to hand over: the page gets the copy's memory
// without a copy on its thread, and the worker keeps the original, which its engine can explain.
function handedOver(trace) {
  const buffer = trace.stages[0].values.buffer.slice(0); // every stage and operand views one buffer
  const view = (a) => a && new Float64Array(buffer, a.byteOffset, a.length);
  const stages = trace.stages.map((s) => ({
    ...s,
    values: view(s.values),
    totals: view(s.totals),
    operands: s.operands.map((o) => ({ ...o, values: view(o.values) })),
  }));
  return [{ config: trace.config, stages }, buffer];
}

function answer(engine, { id, op, spec, cell, traceId }) {
  if (op === 'run') {
    last = { id, trace: engine.run(spec, last ? { reuse: last.trace } : undefined) }; // in the last one's memory
    const [trace, buffer] = handedOver(last.trace);
    self.postMessage({ id, trace }, [buffer]);
  } else if (op === 'explain') {
    self.postMessage({ id, value: engine.explain(last?.id === traceId ? last.trace : spec, cell) });
  } else if (op === 'pruneEach') {
    self.postMessage({ id, value: engine.pruneEach(spec) });
  } else throw new Error(`op: ${JSON.stringify(op)} is not run, explain or pruneEach`);
}

self.addEventListener('message', async ({ data }) => {
  let engine;
  try {
    engine = await loaded;
  } catch (error) {
    self.postMessage({ id: data.id, broken: error.message });
    return;
  }
  try {
    answer(engine, data);
  } catch (error) {
    self.postMessage({ id: data.id, error: error.message });
  }
});
