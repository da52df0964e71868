// POS-1: what the masked stage and the softmax say they read is what the engine read. Under ALiBi
// the mask is added to S̃ + B (the masked stage's operand `biased`), and without a mask the
// softmax reads S̃ + B itself (the weights' operand `biased`); otherwise S̃ and L as before.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { buildSteps, findStepIndex } from '../../web/model/navigation.js';
import { panelView } from '../../web/model/panels.js';
import { cacheRowsQuestion } from '../../web/model/quiz-questions.js';
import { stageById } from '../../web/model/stage-table.js';
import { slotTokens, stageView } from '../../web/model/stage-view.js';
import { explainView } from '../../web/model/explain-view.js';

let engine;
before(async () => {
  engine = await createEngine();
});

const SPECS = [
  { preset: 'positions-alibi' },
  { preset: 'backward-window-alibi' },
  { preset: 'lesson-causal' },
  { preset: 'lesson-multi-head' },
  { seed: 13, seqLen: 4, dModel: 8, numHeads: 2, alibi: true },
  { seed: 13, seqLen: 4, dModel: 8, numHeads: 2, alibi: true, causal: true },
];

for (const spec of SPECS)
  test(`POS-1: ${JSON.stringify(spec)}: the mask and the softmax name the logits the engine read`, () => {
    const { config, stages } = engine.run(spec);
    const at = (id) => stages.find((s) => s.id === id);
    const reads = (id) => at(id)?.operands[0].name;
    const weights = stageById('weights').formula(config, at('weights'));
    if (reads('masked')) {
      const masked = stageById('masked').formula(config, at('masked'));
      assert.equal(masked.startsWith('L = \\tilde S + B + M'), reads('masked') === 'biased', masked);
      assert.equal(masked.startsWith('L = \\tilde S + M'), reads('masked') === 'scaled', masked);
      assert.match(weights, /e\^\{L_\{ij\}/);
    } else {
      const biased = reads('weights') === 'biased';
      assert.equal(/e\^\{\(\\tilde S \+ B\)_\{ij\}/.test(weights), biased, weights);
      assert.equal(/e\^\{\\tilde S_\{ij\}/.test(weights), !biased, weights);
    }
  });

// POS-5: the slopes' rule the biased stage writes, read back as numbers, gives the engine's slopes for
// every head count: Press et al.'s 2^(−8(n+1)/h) when h is a power of two, else the power of two p
// below h, then every other slope of 2p heads: head n ≥ p takes slope 2(n − p) of 2p.
test('POS-5: the ALiBi formula states the rule that gives the engine\u2019s slopes, for 1 to 9 heads', () => {
  for (let h = 1; h <= 9; h++) {
    const { config, stages } = engine.run({ seed: 1, seqLen: 3, dModel: 4, numHeads: h, dK: 2, dV: 2, alibi: true });
    const formula = stageById('biased').formula(
      config,
      stages.find((s) => s.id === 'biased'),
    );
    const first = /m_n = 2\^\{-8\(n\+1\)\/(\d+)\}/.source;
    const then = /\\ \(n < (\d+)\), \\quad m_n = 2\^\{-8\(2\(n - \d+\) \+ 1\)\/(\d+)\}\\ \(n \\ge \d+\)/.source;
    const rule = new RegExp(`${first}(?:${then})?`).exec(formula);
    assert.ok(rule, formula);
    const [p, below, twice] = [Number(rule[1]), rule[2] && Number(rule[2]), rule[3] && Number(rule[3])];
    const slopes = Array.from({ length: Math.min(h, p) }, (_, n) => 2 ** ((-8 * (n + 1)) / p));
    if (below !== undefined) {
      assert.equal(below, p);
      for (let n = p; n < h; n++) slopes.push(2 ** ((-8 * (2 * (n - p) + 1)) / twice));
    } else assert.equal(p, h, `${h} heads: a power of two`);
    // The engine computes Press et al.'s powers their way (start · ratioⁿ): equal to within an ulp.
    assert.equal(config.alibi.length, h);
    config.alibi.forEach((m, n) => assert.ok(Math.abs(m - slopes[n]) <= 2e-16 * m, `${h} heads, m_${n}: ${m}`));
  }
});

// KV-1: with a window, a decode step's row holds min(t + 1, W) scores and reads min(t, W − 1) earlier
// keys from a cache of at most W rows; the scores' text, the panel and the quiz say so from the trace.
test('KV-1: a windowed KV cache: the scores text, the panel\u2019s count and the quiz follow the ring', () => {
  const trace = engine.run({ kind: 'kv-cache', seed: 4, seqLen: 6, dModel: 4, numHeads: 1, window: 3 });
  const steps = buildSteps(trace);
  const tokens = { T: ['a', 'b', 'c', 'd', 'e', 'f'] };
  for (let t = 0; t < 6; t++) {
    const scores = trace.stages.find((s) => s.id === 'scores' && s.step === t);
    const cache = trace.stages.find((s) => s.id === 'k_cache' && s.step === t);
    assert.equal(scores.shape[1], Math.min(t + 1, 3), `step ${t}: the row the engine scored`);
    const said = stageById('scores').explanation({ config: trace.config, stage: scores, models: [] });
    assert.match(said, t + 1 < 3 ? new RegExp(`one row of t\\+1 = ${t + 1} scores`) : /one row of W = 3 scores/);
    // From step W on the new row overwrites the oldest slot: the cache's term, formula and text say so.
    assert.deepEqual(cache.terms, t >= 3 ? ['ring'] : [], `step ${t}: the cache's terms`);
    const formula = stageById('k_cache').formula(trace.config, cache);
    assert.equal(
      formula,
      t >= 3 ? 'K[t \\bmod W] \\leftarrow k_t' : 'K_{\\le t} = \\begin{bmatrix} K_{< t} \\\\ k_t \\end{bmatrix}',
    );
    const index = findStepIndex(steps, 'scores', 0, t);
    const panel = panelView({ chapterId: 'kv-cache', config: trace.config, steps, index, tokens });
    assert.equal(panel.cached, scores.shape[1] - 1, `step ${t}: earlier keys read`);
    const kNew = findStepIndex(steps, 'k_new', 0, t);
    const question = cacheRowsQuestion(steps[kNew], { trace, tokens });
    assert.equal(question.expected.value, cache.shape[0]);
    assert.match(question.hint, /keeps W = 3 keys at most/);
  }
});

// KV-2: once a windowed cache's ring is full, its rows are slots: the figure labels each with the
// token it holds, and explain names the slot and its token. Which token a slot holds is checked
// against the cache itself: slot s's key row equals k_new of the step that wrote it.
test('KV-2: a full ring\u2019s slots are labelled with the tokens they hold, in the figure and in explain', () => {
  const spec = { kind: 'kv-cache', seed: 4, seqLen: 6, dModel: 4, numHeads: 1, window: 3 };
  const trace = engine.run(spec);
  const steps = buildSteps(trace);
  const tokens = { T: ['a', 'b', 'c', 'd', 'e', 'f'] };
  const row = (m, r) => Array.from(m.values.slice(r * m.shape[1], (r + 1) * m.shape[1]));
  let full = 0;
  for (let t = 0; t < 6; t++) {
    const cache = trace.stages.find((s) => s.id === 'k_cache' && s.step === t);
    const held = slotTokens(trace.config, t);
    if (cache.axes[0] !== 'W') continue;
    full++;
    for (let s = 0; s < 3; s++) {
      const written = trace.stages.find((x) => x.id === 'k_new' && x.step === held[s]);
      assert.deepEqual(row(cache, s), row(written, 0), `step ${t}: slot ${s} holds token ${held[s]}'s key`);
    }
    const index = findStepIndex(steps, 'weights', 0, t);
    const view = stageView(steps, index, { trace, tokens, theme: 'light', selection: null, preset: null });
    const result = view.figure.find((i) => i.result).data;
    assert.deepEqual(
      result.colLabels,
      held.map((j) => tokens.T[j]),
      `step ${t}: the slots' tokens`,
    );
    const explained = engine.explain(trace, { stage: 'weights', head: 0, step: t, row: 0, col: 0 });
    const panel = explainView(explained, {
      ...{ stageId: 'weights', head: 0, row: 0, col: 0, config: trace.config, keyTokens: tokens.T },
      ...{ label: 'A', stage: steps[index].stage },
    });
    assert.equal(panel.title, `A[${t}, ${held[0]}], cache slot 0 (token ${held[0]})`);
    assert.match(panel.symbolicTex, new RegExp(`^A_\\{${t},${held[0]}\\}`));
    const keys = panel.table.rows.map((r) => r[0].text);
    assert.deepEqual(
      keys,
      held.map((j) => `${j} ${tokens.T[j]}`),
      `step ${t}: the softmax's keys are the slots' tokens`,
    );
    const head = findStepIndex(steps, 'head', 0, t);
    const summed = explainView(engine.explain(trace, { stage: 'head', head: 0, step: t, row: 0, col: 0 }), {
      ...{ stageId: 'head', head: 0, row: 0, col: 0, config: trace.config, keyTokens: tokens.T },
      ...{ label: 'H', stage: steps[head].stage },
    });
    assert.deepEqual(
      summed.table.rows.map((r) => r[0].text),
      keys,
      `step ${t}: A·V sums over the slots' tokens`,
    );
  }
  assert.equal(full, 4, 'steps 2 to 5 hold a full ring');
});

// KV-3: StreamingLLM's cache: the first rows stay pinned to the sink tokens; a ring step's formula
// names the slot past them, its text the token it replaced, and the figure labels the old cache's
// rows with the tokens they held before the step and the new cache's with those after it.
test('KV-3: sink tokens: pinned rows, the ring behind them, the replaced token and each row labelled', () => {
  const trace = engine.run({ preset: 'kv-cache-streaming' });
  const steps = buildSteps(trace);
  const words = ['the', 'cat', 'sat', 'on', 'the', 'mat', 'and', 'slept', 'all', 'day'];
  const index = findStepIndex(steps, 'k_cache', 0, 8);
  const view = stageView(steps, index, { trace, tokens: { T: words }, theme: 'light', selection: null, preset: null });
  const [old, written] = view.figure.filter((i) => i.kind === 'matrix').map((i) => i.data);
  const result = view.figure.find((i) => i.result).data;
  const labels = (step) => trace.config.slotTokens[step].map((j) => words[j]);
  assert.deepEqual(old.rowLabels, labels(7), 'before step 8: tokens 0–3 pinned, 6 and 7 in the ring');
  assert.deepEqual(result.rowLabels, labels(8), 'after: token 8 in the oldest ring slot');
  assert.deepEqual(result.rowLabels, ['the', 'cat', 'sat', 'on', 'all', 'slept']);
  assert.equal(written.rowLabels.length, 1);
  const entry = stageById('k_cache');
  assert.match(entry.formula(trace.config, steps[index].stage), /\\text\{sinks\} \+ \(t - \\text\{sinks\}\) \\bmod/);
  const text = entry.explanation({ config: trace.config, stage: steps[index].stage });
  assert.match(text, /the first 4 pinned to the sink tokens 0 to 3/);
  assert.match(text, /Token 8’s row overwrites slot 4, which held token 6’s/);
});
