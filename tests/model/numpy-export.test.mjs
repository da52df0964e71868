// The numpy export over every recorded trace (tests/fixtures/traces/): every stage the engine
// traces has its place in the generated program, and each key that place reads (["scaled"],
// ["kv"], …) is one the program's own functions store. Adding a stage without its numpy
// counterpart fails here, in node, before the browser tests run the scripts in python3.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ATTENTION_BACKWARD } from '../../web/model/export/numpy-functions.js';
import { numpyScript, stageExpression, structureOf } from '../../web/model/export/numpy-script.js';
import { BACKWARD_STAGES } from '../../web/model/stages/backward.js';
import { SPECS, traceOf } from './fixtures.mjs';

// The dictionary keys an expression reads: stages["heads"][1]["q"] → heads, q.
const keysRead = (expression) => [...expression.matchAll(/\["([^"]+)"\]/g)].map((m) => m[1]);

test('numpy export: every traced stage has its place in the program, under keys the program stores', () => {
  const seen = new Set();
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    const structure = structureOf(trace.config, trace);
    for (const stage of trace.stages) {
      const what = `${JSON.stringify(spec).slice(0, 60)}: ${structure} ${stage.id}`;
      if (seen.has(`${structure} ${stage.id}`)) continue;
      seen.add(`${structure} ${stage.id}`);
      const expression = stageExpression(structure, stage);
      const script = numpyScript({ config: trace.config, spec, trace, stage });
      assert.ok(script.includes(`stage = ${expression}\n`), `${what}: the script prints ${expression}`);
      for (const key of keysRead(expression))
        assert.ok(script.includes(`"${key}"`) && script.split(`"${key}"`).length > 2, `${what}: no "${key}" stored`);
    }
  }
  assert.ok(seen.size >= 60, `${seen.size} (structure, stage) pairs`);
  for (const { id } of BACKWARD_STAGES) assert.ok(seen.has(`backward ${id}`), `a recorded backward trace has ${id}`);
});

test('numpy export: attention_backward stores every gradient under the key its stage entry reads', () => {
  for (const { id, numpy } of BACKWARD_STAGES) {
    const [key] = keysRead(numpy('backward', { head: 0, kvHead: 0 })).slice(-1);
    assert.equal(key, id);
    assert.ok(ATTENTION_BACKWARD.includes(`grads["${id}"] =`) || ATTENTION_BACKWARD.includes(`"${id}": `), id);
  }
});

test('numpy export: a backward pass draws dO after every weight, unscaled, or copies it with given matrices', () => {
  const spec = { preset: 'backward-gqa' };
  const trace = traceOf(spec);
  const stage = trace.stages.find((s) => s.id === 'd_k' && s.kvHead === 1);
  const drawn = numpyScript({ config: trace.config, spec, trace, stage });
  assert.match(drawn, /\nW_O = .*\nd_output = np\.random\.randn\(T, d_model\) {2}#/);
  assert.match(drawn, /\ngrads = attention_backward\(X, W_Qs, W_Ks, W_Vs, W_O, stages, d_output, scale=True\)\n/);
  assert.match(drawn, /\nstage = grads\["kv"\]\[1\]\["d_k"\]\nprint\("d_k, K\/V head 1:", stage.shape\)/);
  // An explicit spec has a seed when dO is drawn: its matrices, dO too, are still copied.
  const given = { kind: 'backward', X: [[0]], W_Q: [[[0]]], W_K: [[[0]]], W_V: [[[0]]] };
  const copied = numpyScript({ config: trace.config, spec: given, trace, stage });
  assert.doesNotMatch(copied, /np\.random/);
  assert.match(copied, /\nd_output = np\.array\(\[\n {4}\[-?\d/);
});

test('numpy export: a stage the pass does not have is refused by name', () => {
  assert.throws(() => stageExpression('flash', { id: 'norm1' }), /numpy script: no stage norm1 in a flash pass/);
  assert.throws(() => stageExpression('self', { id: 'tile_max' }), /numpy script: no stage tile_max in a self pass/);
});

// StreamingLLM's sink tokens as the engine's config reports them (config.sinkTokens, beside its
// window): the recorded window and decode presets, their configs given the field. The window's
// lines of attention_mask without sink tokens, and with them.
const WINDOW_LINES =
  '    if window is not None:                 # only the window latest keys, this one included\n' +
  '        hidden |= cols <= rows - window\n';
const SINK_LINES =
  '    if window is not None:                 # the window - sink_tokens latest keys, this one included,\n' +
  '        pinned = sink_tokens or 0          # and the first sink_tokens tokens (StreamingLLM) stay seen\n' +
  '        hidden |= (cols <= rows - (window - pinned)) & (cols >= pinned)\n';
const SINK_SLOT =
  '    slot = t if window is None or t < window else sink_tokens + (t - sink_tokens) % (window - sink_tokens)\n';

const SINK_TOKENS_TITLE =
  'numpy export: sink tokens keep the first keys in the mask and pin the first cache rows; ' +
  'without them the script is as before';
test(SINK_TOKENS_TITLE, () => {
  const spec = { preset: 'masks-window' };
  const trace = traceOf(spec);
  const stage = trace.stages.findLast((s) => s.id === 'masked');
  const plain = numpyScript({ config: trace.config, spec, trace, stage });
  assert.doesNotMatch(plain, /sink_tokens|pinned/);
  assert.ok(plain.includes(WINDOW_LINES));
  const pinned = numpyScript({ config: { ...trace.config, sinkTokens: 1 }, spec, trace, stage });
  assert.ok(pinned.includes(', window=None, sink_tokens=None):\n'), 'attention_mask takes sink_tokens');
  assert.ok(pinned.includes(SINK_LINES), 'the window keeps its W - k latest keys and the first k');
  assert.ok(pinned.includes('\nmask = attention_mask(T, T, causal=True, window=3, sink_tokens=1)\n'));
  const without = pinned.replace(SINK_LINES, WINDOW_LINES).replace(/, sink_tokens=(None|1)/g, '');
  assert.equal(without, plain, 'nothing else differs');

  const decoding = { preset: 'kv-cache-gqa' };
  const decoded = traceOf(decoding);
  const cached = decoded.stages.findLast((s) => s.id === 'k_cache');
  const script = (fields) =>
    numpyScript({ config: { ...decoded.config, ...fields }, spec: decoding, trace: decoded, stage: cached });
  assert.doesNotMatch(script({ window: 3 }), /sink_tokens|pinned/);
  const streaming = script({ window: 3, sinkTokens: 1 });
  assert.ok(streaming.includes(', window=None, sink_tokens=0):\n'), 'decode_step takes sink_tokens');
  assert.ok(streaming.includes(SINK_SLOT), 'the ring after the pinned rows');
  assert.match(streaming, /\n {4}out, stages = decode_step\(t, .*, window=3, sink_tokens=1\)\n/);
  assert.match(streaming, /\ncausal_reference, _ = .*attention_mask\(T, T, causal=True, window=3, sink_tokens=1\), /);
  assert.ok(streaming.includes(SINK_LINES), 'the whole pass masks as the cache holds');
});
