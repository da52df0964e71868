// The training page's worker: engine.train in a thread of its own, so that the page stays
// responsive while the engine trains. Each message { id, spec, options } is one chunk of
// training; the reply { id, spec, checkpoints } or { id, error } (the engine's message). It keeps
// nothing between chunks: the page sends the checkpoint to resume from.
import { createEngine } from '../engine.js';

const engine = createEngine();

self.addEventListener('message', async ({ data }) => {
  const e = await engine;
  try {
    self.postMessage({ id: data.id, ...e.train(data.spec, data.options) });
  } catch (error) {
    self.postMessage({ id: data.id, error: error.message });
  }
});
