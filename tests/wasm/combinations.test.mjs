// Every feature alone and in every pair, in each kind that runs attention heads (self, cross,
// kv-cache, flash, backward), and the model's presets: a spec either runs, and then each stage's
// title and formula state what the engine applied (the mask's rules, ALiBi's B, RoPE's turned Q
// and K, X + PE, the ÷√d_k ablation) and nothing it did not, or it is refused with a message
// that names one of the pair's fields, and the engine runs the next spec as before. What should
// be in force is read from the spec here, not from the engine or the page.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';
import katex from 'katex';

import { createEngine } from '../../dist/engine.js';
import { FEATURES, KINDS, NOT_IN_BACKWARD, combinations } from '../../scripts/combinations.mjs';
import { buildSteps } from '../../web/model/navigation.js';
import { notationView, symbolsOf } from '../../web/model/notation.js';
import { stageById, titleOf } from '../../web/model/stage-table.js';
import { assertClose, labelOf } from './support.mjs';

let engine;
before(async () => {
  engine = await createEngine();
});

// The rules M must combine, from the spec: a window, a prefix and documents keep the causal rule
// (a prefix in its own widened form), padding adds its own. A KV cache holds only the past (no M).
function maskRules(spec) {
  if (spec.kind === 'kv-cache') return [];
  const causal = spec.causal || spec.window || spec.prefix || spec.documents;
  return [
    ...(causal ? [spec.prefix ? 'prefix' : 'causal'] : []),
    ...(spec.window ? ['window'] : []),
    ...(spec.sinkTokens ? ['sink-tokens'] : []),
    ...(spec.documents ? ['documents'] : []),
    ...(spec.validKeys ? ['padding'] : []),
  ];
}

// Each rule's condition as the masked formula writes it, and its name in the title.
const CONDITION = {
  causal: ['0 & j \\le i', /causal/i], // first of the cases, not inside the prefix's
  prefix: ['j < P', /prefix-LM/i],
  window: ['j > i - ', /sliding-window/i], // W, or (W − sinks) beside sink tokens
  'sink-tokens': ['j < \\text{sinks}', /sink-token/i],
  documents: ['document}', /packed-documents/i],
  padding: ['j < \\text{valid}', /padding/i],
};

const typesets = (tex, where) =>
  assert.doesNotThrow(() => katex.renderToString(tex, { throwOnError: true }), `${where}: ${tex}`);

// Every stage's title and formula against what the spec puts in force.
function checkStages(name, spec, trace) {
  const rules = maskRules(spec);
  const scale = spec.scaleScores === false ? [] : ['scale'];
  // ALiBi's distance is one-sided where no key lies ahead of its query: under a causal rule, or in
  // a decode step.
  const oneSided = rules.some((r) => r === 'causal' || r === 'prefix') || spec.kind === 'kv-cache';
  const bias = spec.alibi ? [oneSided ? 'one-sided' : 'symmetric'] : [];
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
      assert.equal(formula.startsWith('L = \\bar S + M'), Boolean(spec.softcap), `${where}: S\u0304 in ${formula}`);
    } else if (stage.id === 'k_cache' || stage.id === 'v_cache') {
      // A window's ring is full from step W on: each new row overwrites the oldest slot.
      const ring = spec.window !== undefined && stage.step >= spec.window;
      assert.deepEqual(stage.terms, ring ? ['ring'] : [], `${where}: the engine's terms`);
      // The slot: t mod W, or past the pinned rows under sink tokens.
      const slot = spec.sinkTokens ? '\\bmod (W - \\text{sinks})' : '\\bmod W';
      assert.equal(formula.includes(slot), ring, `${where}: ${formula}`);
    } else if (stage.id === 'd_x') {
      const encoded = spec.positionalEncoding === 'sinusoidal';
      assert.deepEqual(stage.terms, encoded ? ['sinusoidal'] : [], `${where}: the engine's terms`);
    } else if (stage.id === 'x_t') {
      const encoded = spec.positionalEncoding === 'sinusoidal';
      assert.deepEqual(stage.terms, encoded ? ['sinusoidal'] : [], `${where}: the engine's terms`);
      assert.equal(formula.includes('(X + PE)_{t,:}'), encoded, `${where}: ${formula}`);
    } else if (stage.id === 'tile_scores' || stage.id === 'reference') {
      assert.deepEqual(stage.terms, [...scale, ...rules], `${where}: the engine's terms`);
    } else if (stage.id === 'd_scaled') {
      assert.deepEqual(stage.terms, [...rules, ...bias], `${where}: the engine's terms`);
      assert.equal(formula.includes('(= dL)'), rules.length > 0, `${where}: ${formula}`);
    } else if (stage.id === 'd_scores') {
      assert.deepEqual(stage.terms, scale, `${where}: the engine's terms`);
      assert.equal(formula.includes('\\sqrt{d_k}'), scale.length > 0, `${where}: ${formula}`);
    } else if (stage.id === 'causal_reference') {
      const decoded = ['causal', ...(spec.window ? ['window'] : []), ...(spec.sinkTokens ? ['sink-tokens'] : [])];
      const turned = spec.rope ? ['rope'] : [];
      const modern = ['qkNorm', 'softcap', 'sinks'].filter((f) => spec[f] !== undefined);
      const named = modern.map((f) => ({ qkNorm: 'qk-norm', softcap: 'softcap', sinks: 'sinks' })[f]);
      assert.deepEqual(
        stage.terms,
        [...scale, ...decoded, ...bias, ...turned, ...named],
        `${where}: the engine's terms`,
      );
    } else if (stage.id === 'scores') {
      // MLA's scores add the RoPE parts' product: its base spec has a d_r of 2.
      const decoupled = spec.kind === 'mla' && spec.dRope > 0;
      assert.deepEqual(stage.terms, decoupled ? ['decoupled-rope'] : [], `${where}: the engine's terms`);
      assert.equal(formula.includes('Q^{R}'), decoupled, `${where}: ${formula}`);
    } else if (!['scaled', 'biased'].includes(stage.id)) assert.deepEqual(stage.terms, [], `${where}: no terms`);
    if (stage.id === 'tile_scores')
      assert.equal(formula.includes('W'), rules.includes('window'), `${where}: the window in ${formula}`);
    if (stage.id === 'reference' || stage.id === 'causal_reference') {
      assert.equal(formula.includes('+ M'), stage.terms.includes('causal'), `${where}: M in ${formula}`);
      assert.equal(formula.includes('+ B'), Boolean(spec.alibi), `${where}: B in ${formula}`);
      assert.equal(formula.includes('\\hat{Q}'), Boolean(spec.rope), `${where}: Q\u0302 in ${formula}`);
      const normed = Boolean(spec.qkNorm) && !spec.rope; // under RoPE the turned rows show, \\hat
      assert.equal(formula.includes('\\check{Q}'), normed, `${where}: Q\u030c in ${formula}`);
      assert.equal(formula.includes('\\kappa'), Boolean(spec.softcap), `${where}: \u03ba in ${formula}`);
      assert.equal(formula.includes('_{\\zeta}'), Boolean(spec.sinks), `${where}: \u03b6 in ${formula}`);
      assert.equal(formula.includes('\\sqrt{d_k}'), scale.length > 0, `${where}: \u221ad_k in ${formula}`);
    }
    if (stage.id === 'weights') {
      const read = rules.length > 0 ? 'L' : spec.alibi ? '(\\tilde S + B)' : spec.softcap ? '\\bar S' : '\\tilde S';
      assert.ok(formula.includes(`e^{${read}_{`), `${where}: the softmax reads ${read}: ${formula}`);
    }
    // RoPE turns Q and K (Q̂, K̂), except in MLA, where it turns only the separate parts Q^R and K^R.
    if (stage.id === 'scores')
      assert.equal(formula.includes('\\hat{Q}'), Boolean(spec.rope) && spec.kind !== 'mla', `${where}: ${formula}`);
    if (stage.id === 'scaled') {
      assert.deepEqual(stage.terms, spec.scaleScores === false ? [] : ['scale'], `${where}: the engine's terms`);
      assert.equal(formula.includes('\\text{no}'), spec.scaleScores === false, where);
    }
    if (stage.id === 'biased') {
      assert.deepEqual(stage.terms, bias, `${where}: the engine's terms`);
      assert.equal(formula.includes('B_{ij} = -m_n (i - j)'), oneSided, `${where}: ${formula}`);
    }
    if (stage.id === 'q' && config.kind !== 'kv-cache')
      assert.equal(formula.includes('(X + PE)'), spec.positionalEncoding === 'sinusoidal', `${where}: ${formula}`);
  }
  const ids = new Set(trace.stages.map((s) => s.id));
  assert.equal(ids.has('masked'), rules.length > 0 && spec.kind !== 'flash', `${name}: a masked stage`);
  assert.equal(ids.has('biased'), Boolean(spec.alibi), `${name}: a biased stage`);
  assert.equal(ids.has('capped'), Boolean(spec.softcap), `${name}: a capped stage`);
  // Every symbol of every formula is in the notation table, and the panel lists each once.
  const steps = buildSteps(trace);
  for (const step of steps) {
    const formula = stageById(step.id).formula(config, step.stage);
    assert.deepEqual(symbolsOf(formula).unknown, [], `${name}: ${step.id}: letters no notation row names: ${formula}`);
    const symbols = notationView(formula, steps, step.head).table.rows.map((r) => r[0]);
    assert.equal(new Set(symbols).size, symbols.length, `${name}: ${step.id}: each notation symbol once`);
  }
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
  // Each feature runs alone in self-attention and in the backward pass (but those it refuses by
  // name); most pairs run.
  for (const f of Object.keys(FEATURES)) assert.doesNotThrow(() => engine.run({ ...KINDS.self, ...FEATURES[f] }), f);
  for (const f of Object.keys(FEATURES)) {
    const spec = { ...KINDS.backward, ...FEATURES[f] };
    if (NOT_IN_BACKWARD.includes(f)) assert.throws(() => engine.run(spec), new RegExp(`"${f}"`), f);
    else assert.doesNotThrow(() => engine.run(spec), f);
  }
  assert.ok(counts.ran >= 150, `${counts.ran} ran`);
  assert.deepEqual(engine.run(KINDS.self).config.kind, 'self', 'the engine answers after every refusal');
});

test('the model presets: no masked stage names a rule the model does not apply', () => {
  for (const preset of ['trained-induction', 'untrained-induction']) {
    const trace = engine.run({ preset });
    checkStages(preset, { kind: 'model', causal: true }, trace);
  }
});

// numpy's pairwise reference (scripts/make-reference.py): every combination the engine runs, each
// stage's values within 1e-12 (the inputs exactly, −∞ where numpy masked), every stage numpy
// computed compared.
const PAIRWISE = JSON.parse(readFileSync(new URL('../fixtures/pairwise-reference.json', import.meta.url), 'utf8'));

// One matrix of the reference as assertClose takes it, null (masked) read back as −∞.
function numpy(key) {
  const rows = PAIRWISE.matrices[key];
  assert.ok(rows, `${key}: numpy has no such matrix`);
  return { shape: [rows.length, rows[0].length], values: Float64Array.from(rows.flat(), (v) => v ?? -Infinity) };
}

test('numpy\u2019s pairwise reference: every combination the engine runs, every stage to 1e-12', () => {
  assert.equal(PAIRWISE.version, 7, 'pairwise-reference.json: regenerate it with scripts/make-reference.py');
  const ran = combinations().filter(([, spec]) => {
    try {
      return Boolean(engine.run(spec));
    } catch {
      return false;
    }
  });
  assert.deepEqual(
    Object.keys(PAIRWISE.cases),
    ran.map(([name]) => name),
    'the reference holds every one that runs',
  );
  let compared = 0;
  for (const [name, spec] of ran) {
    assert.deepEqual(PAIRWISE.cases[name].spec, spec, `${name}: numpy's spec`);
    for (const stage of engine.run(spec).stages) {
      // The inputs are drawn, exact; but a decode step's x_t under the encoding is X + PE, computed.
      const exact = ['x', 'x_q', 'x_kv', 'x_t', 'd_output'].includes(stage.id) && stage.terms.length === 0;
      assertClose(`${name}:${labelOf(stage)}`, stage, numpy(`${name}:${labelOf(stage)}`), exact ? 0 : 1e-12);
      compared++;
      if (stage.id !== 'weights') continue;
      const key = `${name}:${labelOf({ ...stage, id: 'totals' })}`; // the row sums
      assertClose(key, { shape: [stage.shape[0], 1], values: stage.totals }, numpy(key), 1e-12);
      compared++;
    }
  }
  assert.equal(compared, Object.keys(PAIRWISE.matrices).length, 'every matrix numpy wrote was compared');
  console.log(`# ${ran.length} combinations, ${compared} stages within 1e-12 of numpy`);
});
