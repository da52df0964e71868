// Every feature alone and in every pair, in each kind that runs attention heads (self, cross,
// kv-cache, flash, backward), and the model's presets: a spec either runs, and then each stage's
// title and formula state what the engine applied (the mask's rules, ALiBi's B, RoPE's turned Q
// and K, X + PE, the ÷√d_k ablation) and nothing it did not, or it is refused with a message
// that names one of the pair's fields, and the engine runs the next spec as before. What should
// be in force is read from the spec here, not from the engine or the page.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import katex from 'katex';

import { createEngine } from '../../dist/engine.js';
import { buildSteps } from '../../web/model/navigation.js';
import { notationView } from '../../web/model/notation.js';
import { stageById, titleOf } from '../../web/model/stage-table.js';

let engine;
before(async () => {
  engine = await createEngine();
});

const KINDS = {
  self: { seed: 5, seqLen: 6, dModel: 8, numHeads: 2 },
  cross: { kind: 'cross', seed: 5, queryLen: 3, keyLen: 6, dModel: 8, numHeads: 2 },
  'kv-cache': { kind: 'kv-cache', seed: 5, seqLen: 6, dModel: 8, numHeads: 2 },
  flash: { kind: 'flash', seed: 5, seqLen: 6, dModel: 8, dK: 4, dV: 4, blockRows: 2, blockCols: 3 },
  backward: { kind: 'backward', seed: 5, seqLen: 6, dModel: 8, numHeads: 2 },
};

const FEATURES = {
  causal: { causal: true },
  window: { window: 3 },
  prefix: { prefix: 2 },
  documents: { documents: [2, 4] },
  padding: { validKeys: 5 },
  sinusoidal: { positionalEncoding: 'sinusoidal' },
  'rope interleaved': { rope: { convention: 'interleaved' } },
  'rope half-split': { rope: { convention: 'half-split' } },
  alibi: { alibi: true },
  'grouped K/V': { numKvHeads: 1 },
  'no W_O': { outputProjection: false },
  unscaled: { scaleScores: false },
};

// Each feature alone, then every pair, in every kind: [name, spec].
function combinations() {
  const names = Object.keys(FEATURES);
  const sets = [[], ...names.map((a) => [a]), ...names.flatMap((a, i) => names.slice(i + 1).map((b) => [a, b]))];
  return Object.entries(KINDS).flatMap(([kind, base]) =>
    sets.map((set) => [
      `${kind}${set.map((f) => ` + ${f}`).join('')}`,
      Object.assign({}, base, ...set.map((f) => FEATURES[f])),
    ]),
  );
}

// The rules M must combine, from the spec: a window, a prefix and documents keep the causal rule
// (a prefix in its own widened form), padding adds its own. A KV cache holds only the past (no M).
function maskRules(spec) {
  if (spec.kind === 'kv-cache') return [];
  const causal = spec.causal || spec.window || spec.prefix || spec.documents;
  return [
    ...(causal ? [spec.prefix ? 'prefix' : 'causal'] : []),
    ...(spec.window ? ['window'] : []),
    ...(spec.documents ? ['documents'] : []),
    ...(spec.validKeys ? ['padding'] : []),
  ];
}

// Each rule's condition as the masked formula writes it, and its name in the title.
const CONDITION = {
  causal: ['0 & j \\le i', /causal/i], // first of the cases, not inside the prefix's
  prefix: ['j < P', /prefix-LM/i],
  window: ['j > i - W', /sliding-window/i],
  documents: ['document}', /packed-documents/i],
  padding: ['j < \\text{valid}', /padding/i],
};

const typesets = (tex, where) =>
  assert.doesNotThrow(() => katex.renderToString(tex, { throwOnError: true }), `${where}: ${tex}`);

// Every stage's title and formula against what the spec puts in force.
function checkStages(name, spec, trace) {
  const rules = maskRules(spec);
  const { config } = trace;
  for (const stage of trace.stages) {
    const entry = stageById(stage.id);
    const where = `${name}: ${stage.id}/${stage.head}@${stage.step}`;
    const formula = entry.formula(config, stage);
    const title = titleOf(entry, config, stage);
    typesets(formula, where);
    if (stage.id === 'masked') {
      assert.deepEqual(stage.terms, rules, `${where}: the engine's terms`);
      for (const [rule, [tex, named]] of Object.entries(CONDITION)) {
        assert.equal(formula.includes(tex), rules.includes(rule), `${where}: ${rule} in ${formula}`);
        assert.equal(named.test(title), rules.includes(rule), `${where}: ${rule} in "${title}"`);
      }
      assert.equal(formula.startsWith('L = \\tilde S + B + M'), Boolean(spec.alibi), `${where}: B in ${formula}`);
    } else assert.deepEqual(stage.terms, [], `${where}: no terms`);
    if (stage.id === 'weights') {
      const read = rules.length > 0 ? 'L' : spec.alibi ? '(\\tilde S + B)' : '\\tilde S';
      assert.ok(formula.includes(`e^{${read}_{`), `${where}: the softmax reads ${read}: ${formula}`);
    }
    if (stage.id === 'scores') assert.equal(formula.includes('\\hat{Q}'), Boolean(spec.rope), `${where}: ${formula}`);
    if (stage.id === 'scaled') assert.equal(formula.includes('\\text{no}'), spec.scaleScores === false, where);
    if (stage.id === 'q' && config.kind !== 'kv-cache')
      assert.equal(formula.includes('(X + PE)'), spec.positionalEncoding === 'sinusoidal', `${where}: ${formula}`);
  }
  const ids = new Set(trace.stages.map((s) => s.id));
  assert.equal(ids.has('masked'), rules.length > 0 && spec.kind !== 'flash', `${name}: a masked stage`);
  assert.equal(ids.has('biased'), Boolean(spec.alibi), `${name}: a biased stage`);
  const symbols = notationView(buildSteps(trace)).table.rows.map((r) => r[0]);
  assert.equal(new Set(symbols).size, symbols.length, `${name}: each notation symbol once`);
}

const PAIRS_TITLE =
  'every feature alone and in pairs, in every kind: the stage text states what the engine applied, ' +
  'or the spec is refused by a field';
test(PAIRS_TITLE, () => {
  const counts = { ran: 0, refused: 0 };
  const fieldsOf = (spec) => Object.keys(spec);
  for (const [name, spec] of combinations()) {
    let trace;
    try {
      trace = engine.run(spec);
    } catch (error) {
      counts.refused++;
      const named = fieldsOf(spec).filter((f) => error.message.includes(f));
      assert.ok(named.length > 0, `${name}: the refusal names none of ${fieldsOf(spec)}: ${error.message}`);
      continue;
    }
    counts.ran++;
    checkStages(name, spec, trace);
  }
  console.log(`# ${counts.ran} combinations ran and were checked, ${counts.refused} refused by a field`);
  // Each feature runs alone in self-attention and in the backward pass; most pairs run.
  for (const kind of ['self', 'backward'])
    for (const f of Object.keys(FEATURES)) assert.doesNotThrow(() => engine.run({ ...KINDS[kind], ...FEATURES[f] }), f);
  assert.ok(counts.ran >= 150, `${counts.ran} ran`);
  assert.deepEqual(engine.run(KINDS.self).config.kind, 'self', 'the engine answers after every refusal');
});

test('the model presets: no masked stage names a rule the model does not apply', () => {
  for (const preset of ['trained-induction', 'untrained-induction']) {
    const trace = engine.run({ preset });
    checkStages(preset, { kind: 'model', causal: true }, trace);
  }
});
