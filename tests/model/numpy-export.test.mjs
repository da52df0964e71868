// The numpy export over every recorded trace (tests/fixtures/traces/): every stage the engine
// traces has its place in the generated program, and each key that place reads (["scaled"],
// ["kv"], …) is one the program's own functions store. Adding a stage without its numpy
// counterpart fails here, in node, before the browser tests run the scripts in python3.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ATTENTION_BACKWARD } from '../../web/model/export/numpy-functions.js';
import { pyNumber } from '../../web/model/export/numpy-inputs.js';
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

// Kind mla (DeepSeek-V2's multi-head latent attention): the draws in the engine's order (W_DKV,
// every W_UK, W_UV and W_Q, then the RoPE part's W_KR and every W_QR, W_O last), its pass, and
// without a RoPE part (d_r = 0) no line of one; given matrices copied from the trace's operands.
const MLA_DRAWS = [
  'np.random.seed(42)',
  'X = np.random.randn(T, d_model)            # token embeddings (not scaled)',
  'W_DKV = np.random.randn(d_model, d_c) * 0.5  # down to the latent',
  'W_UKs = [np.random.randn(d_c, d_k) * 0.5 for _ in range(num_heads)]  # up: keys',
  'W_UVs = [np.random.randn(d_c, d_v) * 0.5 for _ in range(num_heads)]  # up: values',
  'W_Qs = [np.random.randn(d_model, d_k) * 0.5 for _ in range(num_heads)]',
  "W_KR = np.random.randn(d_model, d_r) * 0.5  # the shared RoPE key's",
  'W_QRs = [np.random.randn(d_model, d_r) * 0.5 for _ in range(num_heads)]',
  'W_O = np.random.randn(num_heads * d_v, d_model) * 0.5',
].join('\n');
const MLA_PASS =
  'mask = attention_mask(T, T, causal=True)\n' +
  'output, stages = latent_attention(X, W_DKV, W_UKs, W_UVs, W_Qs, W_O, mask, scale=True, ' +
  'W_KR=W_KR, W_QRs=W_QRs, turn=turn)\n';
// The first row of a matrix as the script writes it.
const firstRow = ({ shape, values }) => `[${Array.from(values.slice(0, shape[1]), pyNumber).join(', ')}],`;

const MLA_TITLE =
  'numpy export: kind mla draws in the engine\u2019s order and runs latent_attention; without a RoPE part ' +
  'no line of one; given matrices are copied, W_KR and each W_QR from their stages';
test(MLA_TITLE, () => {
  const spec = { preset: 'modern-mla' };
  const trace = traceOf(spec);
  const stage = trace.stages.find((s) => s.id === 'q_rope' && s.head === 3);
  const drawn = numpyScript({ config: trace.config, spec, trace, stage });
  assert.equal(structureOf(trace.config, trace), 'mla');
  assert.ok(drawn.includes('\nT, d_model = 8, 16\nnum_heads, d_k, d_v = 4, 4, 4\nd_c, d_r = 8, 2  #'), 'the sizes');
  assert.ok(drawn.includes(`\n${MLA_DRAWS}\n`), 'the draws');
  assert.match(drawn, /\nturn = lambda x, positions, back=False: rope\(x, positions, base=10000, dims=2, /);
  assert.ok(drawn.includes(`\n${MLA_PASS}\nstage = stages["heads"][3]["q_rope"]\n`), 'the pass');
  assert.doesNotMatch(drawn, /multi_head_attention|self_attention/);

  const weights = trace.stages.find((s) => s.id === 'weights' && s.head === 1);
  const flat = numpyScript({ config: { ...trace.config, dRope: 0, rope: null }, spec, trace, stage: weights });
  assert.doesNotMatch(flat, /def rope|\bturn\b|W_KR|W_QR|k_rope|q_rope/);
  assert.ok(flat.includes('\nd_c, d_r = 8, 0  #'));
  assert.ok(flat.includes('        scaled = scores / np.sqrt(q.shape[-1]) if scale else scores\n'), '÷√d_k');
  assert.match(flat, /\nW_Qs = .*\nW_O = .*\n\n/);
  assert.match(flat, /\noutput, stages = latent_attention\(X, W_DKV, W_UKs, W_UVs, W_Qs, W_O, mask, scale=True\)\n/);

  const given = {
    kind: 'mla',
    X: [[0]],
    W_DKV: [[0]],
    W_UK: [[[0]]],
    W_UV: [[[0]]],
    W_Q: [[[0]]],
    W_KR: [[0]],
    W_QR: [[[0]]],
    W_O: [[0]],
  };
  const copied = numpyScript({ config: trace.config, spec: given, trace, stage });
  assert.doesNotMatch(copied, /np\.random/);
  const operand = (id, name, head = null) =>
    trace.stages.find((s) => s.id === id && s.head === head).operands.find((o) => o.name === name);
  assert.ok(copied.includes(`\nW_KR = np.array([\n    ${firstRow(operand('k_rope', 'W_KR'))}\n`), 'W_KR');
  assert.ok(copied.includes(`\nW_QRs = [\n    np.array([\n        ${firstRow(operand('q_rope', 'W_QR', 0))}\n`));
  assert.ok(copied.includes(`\nW_UKs = [\n    np.array([\n        ${firstRow(operand('k', 'W_UK', 0))}\n`));
  assert.ok(copied.includes(`\n${MLA_PASS}`));
});
