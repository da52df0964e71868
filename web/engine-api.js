// The engine's JS face, shared by the ES module (engine.js) and the classic bundle
// (engine-classic.js): wraps an instantiated Emscripten module in plain functions.

// Every binding returns { value } or { error }; this turns the second into an Error.
function unwrap(result) {
  if ('error' in result) throw new Error(result.error);
  return result.value;
}

// Each trace's whole Float64Array, for run(spec, { reuse: trace }) and explain(trace, cells);
// and what explain(trace, …) hands back with it: the spec it was run from and its layout.
const buffers = new WeakMap();
const sources = new WeakMap();

// The bindings send a trace as one Float64Array and a JSON layout of offsets into it;
// each stage and operand gets its own view of that JS-owned buffer.
function unpackTrace({ config, layout, values }, spec) {
  const slice = ({ shape, offset }) =>
    new Float64Array(values.buffer, offset * Float64Array.BYTES_PER_ELEMENT, shape[0] * shape[1]);
  const placed = JSON.parse(layout);
  const stages = placed.map((s) => ({
    id: s.id,
    head: s.head,
    kvHead: s.kvHead,
    step: s.step,
    tile: s.tile,
    shape: s.shape,
    axes: s.axes,
    equation: s.equation,
    symbolic: s.symbolic,
    values: slice(s),
    totals: s.totals ? slice(s.totals) : null,
    operands: s.operands.map((o) => ({ name: o.name, head: o.head, shape: o.shape, axes: o.axes, values: slice(o) })),
    terms: s.terms,
  }));
  const trace = { config, stages };
  buffers.set(trace, values);
  sources.set(trace, { spec, layout: placed });
  return trace;
}

// run()'s options: the Float64Array of the trace to reuse, or null (none, or one already reused).
function reusedValues(options) {
  if (options === undefined) return null;
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new Error('options: must be an object such as { reuse: trace }');
  const unknown = Object.keys(options).find((key) => key !== 'reuse');
  if (unknown !== undefined)
    throw new Error(`options: unknown field ${JSON.stringify(unknown)}; the only field is reuse`);
  if (options.reuse === undefined) return null;
  const values = buffers.get(options.reuse);
  if (!values) throw new Error('options.reuse: must be a trace that run() returned');
  return values.length > 0 ? values : null;
}

// Takes the memory away from every view of it (they read as empty) and returns it whole:
// transferring an ArrayBuffer moves its memory without copying.
const detached = (values) => new Float64Array(structuredClone(values.buffer, { transfer: [values.buffer] }));

// A trace of spec, written into `into` (a trace no longer needed) when it is long enough.
// The reused trace is emptied only once the run has succeeded, so a refused spec leaves it whole.
function runTrace(wasm, spec, options) {
  const into = reusedValues(options);
  const given = plain(spec, 'spec');
  const packed = unwrap(wasm.run(given, into));
  if (into) {
    const moved = detached(into);
    if (packed.values === into) packed.values = moved;
  }
  return unpackTrace(packed, given);
}

// explain(trace, cells) of a trace run() returned answers from the numbers it holds, without
// running anything again; explain(spec, cells) runs the spec's trace first.
function explainOf(wasm, specOrTrace, cell) {
  const held = sources.get(specOrTrace);
  if (!held) return unwrap(wasm.explain(plain(specOrTrace, 'spec'), plain(cell, 'cell')));
  const values = buffers.get(specOrTrace);
  if (values.length === 0)
    throw new Error("trace: its memory went to a later run (run's reuse); explain that run's trace, or the spec");
  return unwrap(wasm.explainTrace(held.spec, held.layout, values, plain(cell, 'cell')));
}

// A plain copy of what the caller passed, so that no getter or Proxy of theirs runs (and
// throws) while C++ is halfway through reading it: C++ cleanup would then be skipped.
function plain(value, field) {
  if (typeof value !== 'object' || value === null) return value; // C++ names the wrong type
  try {
    return structuredClone(value);
  } catch (error) {
    throw new Error(`${field}: cannot be read as plain data (${error.message})`);
  }
}

// The bindings read a JS array element by element, ~1 µs each; an array of numbers (a row of a
// matrix, a list of token ids) crosses far faster as one Float64Array. They call this for each
// array they read: its numbers, or null when some element is not a number.
function numbersOf(array) {
  for (let i = 0; i < array.length; i++) if (typeof array[i] !== 'number') return null;
  return Float64Array.from(array);
}

// Each engine's module, for heapBytesOf alone: the engine itself holds no way to reach it.
const modules = new WeakMap();

/**
 * The engine over an instantiated module:
 * { run, forward, explain, randn, presets, models, limits, stages, kvCacheBytes, pruneEach, initModel,
 * lossAndGradients, train, taskBatch, headScores, modelForward }.
 */
export function wrapEngine(wasm) {
  wasm.numbersOf = numbersOf;
  const engine = Object.freeze({
    /**
     * Every stage of a spec: { config, stages: [{ id, head, kvHead, step, tile, shape, axes, equation,
     * symbolic, values, totals, operands, terms }] }. With { reuse: trace }, the new trace is written into the
     * memory of an earlier one the caller no longer needs (faster for large traces); once the run has
     * succeeded, every array of that earlier trace is empty (length 0). A refused spec leaves it whole.
     */
    run: (spec, options) => runTrace(wasm, spec, options),
    /** The final output only, recording no trace: { shape, values }. */
    forward: (spec) => unwrap(wasm.forward(plain(spec, 'spec'))),
    /**
     * The numbers behind one cell, explain(trace or spec, { stage, head, step?, row, col }), or behind each of a
     * list of cells. Given a trace run() returned, from the numbers it holds; given a spec, from its run.
     */
    explain: (specOrTrace, cell) => explainOf(wasm, specOrTrace, cell),
    /** numpy's np.random.seed(seed); np.random.randn(rows, cols), row-major. */
    randn: (seed, rows, cols) => unwrap(wasm.randn(seed, rows, cols)),
    /** The examples, defined once in the engine: [{ id, chapter, title, seed42, spec, tokens, keyTokens }]. */
    presets: () => wasm.presets(),
    /**
     * Bytes of a KV cache: 2 · seqLen · dHead · numKvHeads · numLayers · bytesPerValue · batch, or with
     * latentDims (MLA, instead of dHead and numKvHeads) seqLen · latentDims · numLayers · bytesPerValue · batch.
     */
    kvCacheBytes: (query) => unwrap(wasm.kvCacheBytes(plain(query, 'query'))),
    /** For each head alone, ‖Δoutput‖ / ‖output‖ when it is pruned: [{ head, change }]. */
    pruneEach: (spec) => unwrap(wasm.pruneEach(plain(spec, 'spec'))),
    /**
     * The real models the engine describes:
     * [{ id, name, dModel, numHeads, dK, numLayers, numKvHeads, contextLength, scoreValues }].
     */
    models: () => wasm.models(),
    /**
     * The real models that cache a latent (multi-head latent attention):
     * [{ id, name, dModel, numHeads, dHead, dRope, dLatent, numLayers, contextLength }].
     */
    latentModels: () => wasm.latentModels(),
    /**
     * The range of each number field of a spec, as run() checks it: { seqLen: { min, max }, …,
     * weightScale: { above, max } }; words and wordLength bound the designed heads' tokens.
     */
    limits: () => wasm.limits(),
    /** Every stage the engine can record, in its table's order: [{ id, operands: [{ names, perHead }], terms }]
     * (terms: those its pass may report, as trace stages' terms). */
    stages: () => wasm.stages(),
    /**
     * An attention-only model drawn from its seed, { vocab, seqLen, dModel, numLayers, numHeads, dK?, dV?,
     * seed? } → { config, params: { W_E, W_P, layers: [{ W_Q: [per head], W_K, W_V, W_O }], W_U } }, each
     * matrix { shape, values: Float64Array }.
     */
    initModel: (config) => unwrap(wasm.initModel(plain(config, 'config'))),
    /** The mean next-token loss of { tokens (B, seqLen + 1), mask? (B, seqLen) } and its gradients: { loss, grads }. */
    lossAndGradients: (model, batch) => unwrap(wasm.lossAndGradients(plain(model, 'model'), plain(batch, 'batch'))),
    /**
     * Trains with Adam on a task, from step 0 or from a checkpoint, for options.steps (default: to spec.steps):
     * { spec (every default filled in), checkpoints: [{ step, loss, trainLoss, model, optimizer, headScores }] }.
     */
    train: (spec, options) => unwrap(wasm.train(plain(spec, 'spec'), plain(options ?? null, 'options'))),
    /**
     * One sequence of 1 … seqLen tokens through a model: { residual: [R₀ … R_N], logits, probabilities, losses },
     * losses[t] = −ln p(token t + 1) at position t.
     */
    modelForward: (model, tokens) => unwrap(wasm.modelForward(plain(model, 'model'), plain(tokens, 'tokens'))),
    /** A task's sequences, { tokens, mask }: stream 0 (default) the held-out ones, stream k the batch of step k. */
    taskBatch: (spec, options) => unwrap(wasm.taskBatch(plain(spec, 'spec'), plain(options ?? null, 'options'))),
    /** Each head's mean weight on key t − 1, key 0, its induction target and key t: [{ layer, head, … }]. */
    headScores: (model, tokens) => unwrap(wasm.headScores(plain(model, 'model'), plain(tokens, 'tokens'))),
  });
  modules.set(engine, wasm);
  return engine;
}

/**
 * For the leak tests only, no part of the engine's API (engine.js does not export it):
 * { inUse, top, memory }, the bytes malloc holds, the heap's top and the WASM memory's size.
 */
export function heapBytesOf(engine) {
  const wasm = modules.get(engine);
  if (!wasm) throw new TypeError('heapBytesOf: not an engine made by wrapEngine');
  return { ...wasm.heapUsage(), memory: wasm.HEAP8.length };
}
