// The engine's traces, recorded by scripts/record-traces.mjs into tests/fixtures/traces/ (and
// checked against the engine by tests/wasm/trace-fixtures.test.mjs), read back in the shape
// engine.run() returns them: the model tests need no build. They are the model's inputs, not its
// expected outputs.
import { cellKey, decodeValue, readJson, RECORD } from './fixture-format.mjs';

const INDEX = readJson('index.json');

/** engine.presets(), engine.models(), engine.latentModels() and engine.limits(), as catalogFrom(engine)
 * reads them. */
const { presets, models, latentModels, limits } = decodeValue(readJson('catalog.json'), []);
export const catalog = Object.freeze({ presets, models, latentModels, limits });

/** The specs the model tests sweep: the presets (but those index.json leaves out), then custom specs. */
export const SPECS = INDEX.traces.map(({ spec }) => spec);

const byFile = new Map();
function fixtureOf(spec) {
  const entry = INDEX.traces.find((t) => JSON.stringify(t.spec) === JSON.stringify(spec));
  if (!entry)
    throw new Error(`no recorded trace for ${JSON.stringify(spec)}: add it to scripts/record-traces.mjs and ${RECORD}`);
  if (!byFile.has(entry.file)) {
    const { trace, cells, answers, arrays } = readJson(entry.file);
    const decoded = decodeValue(answers, arrays);
    byFile.set(entry.file, {
      trace: decodeValue(trace, arrays),
      explains: new Map(decodeValue(cells, arrays).map((cell, i) => [cellKey(cell), decoded[i]])),
    });
  }
  return byFile.get(entry.file);
}

/** What engine.run(spec) returned: { config, stages }. A fresh copy each call. */
export function traceOf(spec) {
  const { config, stages } = fixtureOf(spec).trace;
  return structuredClone({ config, stages });
}

/** What engine.explain(spec, cell) returned, for a cell recorded: { stage, head, step, row, col }. */
export function explainOf(spec, cell) {
  const key = cellKey(cell);
  const answer = fixtureOf(spec).explains.get(key);
  if (!answer) throw new Error(`${JSON.stringify(spec)}: no recorded explain for ${key}: ${RECORD}`);
  return structuredClone(answer);
}

/** A spec the page builds, run by the engine when recorded: { config, stageCount }. */
export function runOf(spec) {
  const run = INDEX.runs.find((r) => JSON.stringify(r.spec) === JSON.stringify(spec));
  if (!run)
    throw new Error(
      `the engine never ran ${JSON.stringify(spec)}: add it to PAGE_SPECS in scripts/record-traces.mjs and ${RECORD}`,
    );
  return { config: decodeValue(run.config, []), stageCount: run.stageCount };
}

/** Token labels for a trace's config, w0 w1 … (q…, k… for a cross pass), as the page passes them. */
export const tokensFor = (c) => ({
  T: Array.from({ length: c.seqLen }, (_, i) => `w${i}`),
  T_q: Array.from({ length: c.seqLen }, (_, i) => `q${i}`),
  T_kv: Array.from({ length: c.kvLen }, (_, i) => `k${i}`),
});
