// What the stage entries say, against the fidelity review of 2026-12-01 (findings by number): the
// sentences and formulas that follow the config or the trace's numbers, over the recorded traces.
// A number a sentence quotes is checked against the engine's (the trace, its config, the catalog),
// formatted as the page formats it; a regex is left only where the words carry a fact.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explainView } from '../../web/model/explain-view.js';
import { formatBillions, formatCount, formatFull, formatPlain, formatSci, rowsText } from '../../web/model/format.js';
import { divisorQuestion, rowSumQuestion } from '../../web/model/quiz-questions.js';
import { stageById } from '../../web/model/stage-table.js';
import { catalog, explainOf, SPECS, tokensFor, traceOf } from './fixtures.mjs';
import { CUSTOM_SPECS } from '../../scripts/record-traces.mjs';

const models = catalog.models;

// A stage's explanation for the first recorded stage that matches.
function say(spec, id, where = () => true, change = (c) => c) {
  const trace = traceOf(spec);
  const stage = trace.stages.find((s) => s.id === id && where(s));
  assert.ok(stage, `${JSON.stringify(spec)}: no ${id}`);
  const config = change(trace.config);
  const preset = catalog.presets.find((p) => p.id === spec.preset) ?? null;
  return stageById(id).explanation({ config, stage, tokens: [], preset, models });
}
const formula = (spec, id) => {
  const trace = traceOf(spec);
  return stageById(id).formula(
    trace.config,
    trace.stages.find((s) => s.id === id),
  );
};
const quotes = (text, part) => assert.ok(text.includes(part), `${JSON.stringify(part)} not in: ${text}`);

test('3: the T² memory is the stored matrix, and FlashAttention never stores it', () => {
  const text = say({ preset: 'lesson-multi-head' }, 'scores');
  assert.match(text, /Stored whole \(standard attention\) it needs memory growing with T\u00b2/);
  assert.match(text, /FlashAttention \(its own chapter\) computes the same scores a tile at a time/);
  const gpt3 = models.find((m) => m.id === 'gpt3-175b');
  assert.equal(gpt3.scoreValues, gpt3.contextLength ** 2 * gpt3.numHeads * gpt3.numLayers);
  quotes(text, `computes ${formatBillions(gpt3.scoreValues)} a forward pass`);
});

test('10: the often-quoted ~37 billion is 2048\u00b2 read as 4 M, times 96 \u00b7 96', () => {
  const gpt3 = models.find((m) => m.id === 'gpt3-175b');
  const { contextLength: t, numHeads: h, numLayers: l } = gpt3;
  const lesson = ((4e6 * h * l) / 1e9).toFixed(2);
  const text = say({ preset: 'lesson-multi-head' }, 'scores');
  quotes(text, `~37 billion reads ${t}\u00b2 = ${formatCount(t * t)} as 4 M: `);
  quotes(text, `4,000,000 \u00b7 ${h} \u00b7 ${l} = ${lesson} billion`);
});

test('4: the scaled stage states independence and quotes the engine\u2019s variances, head by head', () => {
  const trace = traceOf({ preset: 'lesson-multi-head' });
  for (const v of trace.config.scoreVariance) {
    const text = say({ preset: 'lesson-multi-head' }, 'scaled', (s) => s.head === v.head);
    assert.match(text, /independent, with mean 0 and variance 1/);
    assert.ok(text.includes(`var(S) = ${formatPlain(v.scores)}, var(S\u0303) = ${formatPlain(v.scaled)}`), text);
    assert.ok(v.scaled < 0.5, `head ${v.head}: ${v.scaled}`);
    assert.match(text, /Far below 1: the premise fails here/);
    const { weightScale: w, dModel: d } = trace.config;
    const variance = `${w}\u00b2 \u00b7 ${d} = ${formatPlain(w * w * d)}`;
    quotes(text, `randn \u00b7 ${w}: each component of q and k has variance about ${variance}`);
  }
  const above = traceOf({ preset: 'masks-causal' }).config;
  const { weightScale: w, dModel: d } = above;
  assert.ok(above.scoreVariance.every((v) => v.scaled > 2));
  const far = say({ preset: 'masks-causal' }, 'scaled');
  assert.match(far, /Far above 1: the premise fails here/);
  quotes(far, `about ${w}\u00b2 \u00b7 ${d} = ${formatPlain(w * w * d)}, not 1`);
  const near = (c) => ({ ...c, scoreVariance: [{ head: 0, scores: 4.4, scaled: 1.1, entries: 25 }] });
  assert.match(
    say({ preset: 'lesson-multi-head' }, 'scaled', () => true, near),
    /within a factor of 2 of 1: the argument holds here/,
  );
  // Designed head 3's scores are equal along every row, as its sentence says.
  const designed = traceOf({ preset: 'designed-heads' }).stages.find((s) => s.id === 'scaled' && s.head === 3);
  const cols = designed.shape[1];
  assert.ok(designed.values.every((v, k) => v === designed.values[k - (k % cols)]));
  assert.match(
    say({ preset: 'designed-heads' }, 'scaled', (s) => s.head === 3),
    /built, not drawn: .*equal on purpose/,
  );
  // Decoding: every step's row of scores, 1 + 2 + … + T of them.
  const kv = traceOf({ preset: 'kv-cache-gqa' }).config;
  const entries = (kv.seqLen * (kv.seqLen + 1)) / 2;
  assert.equal(kv.scoreVariance[0].entries, entries);
  quotes(
    say({ preset: 'kv-cache-gqa' }, 'scaled'),
    `this head\u2019s ${entries} scores, every decode step\u2019s row: var(S)`,
  );
});

test('TRN-3: a trained model\u2019s scaled stage quotes its own layer\u2019s head, not both layers pooled', () => {
  const trace = traceOf({ preset: 'trained-induction' });
  const T = trace.config.seqLen;
  assert.deepEqual(
    trace.config.scoreVariance.map((v) => [v.layer, v.head, v.entries]),
    [0, 1].flatMap((layer) => [0, 1].map((head) => [layer, head, (T * (T + 1)) / 2])),
  );
  for (const v of trace.config.scoreVariance) {
    const text = say({ preset: 'trained-induction' }, 'scaled', (s) => s.head === v.head && s.step === v.layer);
    quotes(text, `Over the ${v.entries} scores its queries see: var(S) = ${formatPlain(v.scores)}, `);
  }
});

test('TRN-4: for a model the premise names no field it lacks, and says how its weights were drawn', () => {
  for (const preset of ['trained-induction', 'untrained-induction']) {
    const text = say({ preset }, 'scaled', (s) => s.head === 0 && s.step === 1);
    assert.doesNotMatch(text, /weight scale|d_model\)|raise d_k/, preset);
    assert.match(text, /Far (below|above) 1: the premise fails here\./, preset);
    quotes(text, 'every matrix was initialised as randn \u00b7 1/\u221a(its rows)');
  }
  const untrained = traceOf({ preset: 'untrained-induction' }).config.scoreVariance;
  assert.ok(
    untrained.every((v) => v.scaled < 0.5),
    'at initialisation the logits spread far less than 1',
  );
});

test('4: the ablation quotes var(S), the logits it leaves, and says how to see saturation', () => {
  const spec = CUSTOM_SPECS['custom-self-causal-unscaled']; // recorded: d_k 5, no ÷√d_k
  const text = say(spec, 'scaled');
  assert.match(text, /^Ablation/);
  assert.match(text, /Far below 1.*Set the weight scale to 1 \(or raise d_model\) to see sharper rows, then raise d_k/);
});

test('6: a decode step\u2019s softmax reads S\u0303, and nothing there is masked', () => {
  assert.match(formula({ preset: 'kv-cache-gqa' }, 'weights'), /e\^\{\\tilde S_\{tj\}/);
  assert.doesNotMatch(formula({ preset: 'kv-cache-gqa' }, 'weights'), /L_/);
  assert.doesNotMatch(say({ preset: 'kv-cache-gqa' }, 'weights'), /masked/);
  assert.match(say({ preset: 'lesson-causal' }, 'weights'), /exactly 0 where masked/);
});

test('7: the flash reference formula adds M when the mask is on', () => {
  assert.match(formula({ preset: 'flash-causal' }, 'reference'), /\\sqrt\{d_k\}\} \+ M\\right\)/);
  assert.doesNotMatch(formula({ preset: 'flash-full' }, 'reference'), /\+ M/);
  assert.match(say({ preset: 'flash-causal' }, 'reference'), /with the same mask M/);
});

// The explain panel's lines for a recorded cell of the first stage that matches.
function explained(spec, id, where, [row, col]) {
  const trace = traceOf(spec);
  const stage = trace.stages.find((s) => s.id === id && where(s));
  const e = explainOf(spec, { stage: id, head: stage.head, step: stage.step, row, col });
  const ctx = { stageId: id, head: stage.head, row, col, config: trace.config, keyTokens: [], label: id, stage };
  return explainView(e, ctx);
}

test('8: a decode step\u2019s one row is token t, a tile\u2019s rows and columns its blocks\u2019 positions', () => {
  const starts = (tex, part) => assert.ok(tex.startsWith(part), `${tex} does not start ${part}`);
  const t = 3; // decode step 3: its one row (row 0) is token 3
  const step = (s) => s.step === t;
  const scores = explained({ preset: 'kv-cache-gqa' }, 'scores', step, [0, 3]);
  starts(scores.symbolicTex, `S_{${t},3} = q_{${t}} \\cdot k_{3}`);
  starts(scores.filledTex, `S_{${t},3} =`);
  assert.equal(scores.title, `scores[${t}, 3], head 0`);
  const q = explained({ preset: 'kv-cache-gqa' }, 'q', step, [0, 0]);
  starts(q.symbolicTex, `q_{${t},0} = \\sum_a x_{${t},a}`);
  starts(q.filledTex, `q_{${t},0} =`);
  const kNew = explained({ preset: 'kv-cache-gqa' }, 'k_new', step, [0, 0]);
  starts(kNew.symbolicTex, `k_{${t},0} = \\sum_a x_{${t},a}`);
  starts(kNew.filledTex, `k_{${t},0} =`);
  // The tile of query block [2, 4) against key block [2, 4): its cell (1, 1) is query 3, key 3.
  const tile = (s) => s.tile?.queryRows[0] === 2 && s.tile.keyRows[0] === 2;
  const [i, j] = [2 + 1, 2 + 1];
  const s = explained({ preset: 'flash-causal' }, 'tile_scores', tile, [1, 1]);
  starts(s.symbolicTex, `L_{${i},${j}} = \\frac{q_{${i}} \\cdot k_{${j}}}`);
  const m = explained({ preset: 'flash-causal' }, 'tile_max', tile, [1, 0]);
  starts(m.symbolicTex, `\\mu_{${i}}^`);
  const weights = explained({ preset: 'lesson-multi-head' }, 'weights', () => true, [4, 4]);
  quotes(weights.filledTex, 'A_{4,4}');
});

test('11: the cache is valid because of the causal mask; an encoder could not cache', () => {
  const text = say({ preset: 'kv-cache-gqa' }, 'k_new');
  assert.match(text, /under the causal mask it depends only on that token and the ones before it/);
  assert.match(text, /A bidirectional encoder could not cache/);
});

test('12, 14: deferred division is FlashAttention-2\u2019s; the speed is memory traffic; skipped blocks', () => {
  assert.match(say({ preset: 'flash-causal' }, 'tile_out'), /FlashAttention-2\u2019s order; FlashAttention-1 rescaled/);
  assert.match(say({ preset: 'flash-causal' }, 'tile_scores'), /HBM into its small, fast on-chip SRAM/);
  const block = traceOf({ preset: 'flash-causal' }).stages.find((s) => s.id === 'block_out');
  const read = say({ preset: 'flash-causal' }, 'block_out');
  quotes(read, `Every key block ${rowsText('query', block.tile.queryRows)} may see has been read`);
  assert.match(read, /the blocks the mask hides entirely were skipped/);
  assert.doesNotMatch(say({ preset: 'flash-full' }, 'block_out'), /skipped/);
});

test('13: the flash difference is absolute while every value is within \u00b11', () => {
  const text = say({ preset: 'flash-causal' }, 'reference');
  const trace = traceOf({ preset: 'flash-causal' });
  const stage = trace.stages.find((s) => s.id === 'reference');
  assert.ok(stage.values.every((v) => Math.abs(v) <= 1));
  quotes(text, `at most ${formatSci(trace.config.maxDifference)} (absolute: every |value| here is at most 1)`);
  stage.values[0] = 3;
  const big = stageById('reference').explanation({ config: trace.config, stage, tokens: [], models });
  assert.match(big, /relative to its largest \|value\|, which exceeds 1/);
});

test('16: the concatenation\u2019s shape comes from the trace', () => {
  for (const [preset, rows, count] of [
    ['kv-cache-gqa', '1', () => 1],
    ['lesson-multi-head', 'T', (c) => c.seqLen],
    ['cross-translation', 'T_q', (c) => c.seqLen],
  ]) {
    const trace = traceOf({ preset });
    const concat = trace.stages.find((s) => s.id === 'concat');
    const c = trace.config;
    assert.deepEqual(concat.shape, [count(c), c.numHeads * c.dV], preset);
    quotes(say({ preset }, 'concat'), `giving (${rows}, h\u00b7d_v) = (${concat.shape.join(', ')})`);
  }
});

test('17, 19, 30, 31: cross-attention and RAG, post-LN, W_O, W_Q in prose', () => {
  assert.match(say({ preset: 'cross-translation' }, 'x_kv'), /most retrieval-augmented systems put the retrieved/);
  assert.match(say({ preset: 'encoder-layer' }, 'residual1'), /post-LN layer .* not an identity.*pre-LN/);
  assert.match(say({ preset: 'lesson-multi-head' }, 'output'), /W_O is not the only place heads meet/);
  const q = say({ preset: 'lesson-multi-head' }, 'q');
  assert.match(q, /Each head has its own W_Q,/);
  assert.doesNotMatch(q, /\^/);
});

test('23, 26: a decode step names t and its range; the largest difference is written as the panel writes it', () => {
  const text = say({ preset: 'kv-cache-gqa' }, 'x_t', (s) => s.step === 2);
  const last = traceOf({ preset: 'kv-cache-gqa' }).config.seqLen - 1;
  assert.ok(text.startsWith(`Decode step t = 2 (of t = 0\u2026${last})`), text);
  const tiny = (c) => ({ ...c, maxDifference: 5.551115123125783e-17 });
  const ref = say({ preset: 'kv-cache-gqa' }, 'causal_reference', () => true, tiny);
  assert.ok(ref.includes(`is ${formatSci(5.551115123125783e-17)} (float64)`), ref);
  assert.doesNotMatch(ref, /e-17/);
});

// The rows of X that share a word: X's columns T … T + d_v − 1 hold each token's word, one-hot.
function sharedWords({ values }, { seqLen: T, dModel: D, dV }) {
  const word = (r) => values.slice(r * D + T, r * D + T + dV).indexOf(1);
  const rows = Array.from({ length: T }, (_, r) => r);
  return rows.filter((r) => rows.some((o) => o !== r && word(o) === word(r)));
}

test('21: the designed X\u2019s shared word columns are read from the engine\u2019s X', () => {
  const spec = { preset: 'designed-heads' };
  const trace = traceOf(spec);
  const stage = trace.stages.find((s) => s.id === 'x');
  const shared = sharedWords(stage, trace.config);
  assert.equal(shared.length, 2);
  quotes(say(spec, 'x'), `the rows of \u201c${shared[0]}\u201d (tokens ${shared.join(', ')}) share a word column`);
  // token 4 takes token 1's word
  const { seqLen: T, dModel: D } = trace.config;
  for (let j = 0; j < trace.config.dV; j += 1) stage.values[4 * D + T + j] = j === 1 ? 1 : 0;
  assert.deepEqual(sharedWords(stage, trace.config), [1, 4]);
  const text = stageById('x').explanation({ config: trace.config, stage, tokens: [], models });
  quotes(text, 'the rows of \u201c1\u201d (tokens 1, 4) share a word column');
});

test('4: the quiz\u2019s \u221ad_k answer states the premise instead of promising variance 1', () => {
  const trace = traceOf({ preset: 'lesson-multi-head' });
  const step = { stage: trace.stages.find((s) => s.id === 'scaled') };
  const q = divisorQuestion(step);
  assert.match(q.why, /^if the components of q and k are independent, with mean 0 and variance 1/);
});

test('7: a tile\u2019s logits hide what the mask hides, a window too', () => {
  assert.match(formula({ preset: 'flash-causal' }, 'tile_scores'), /L_\{ij\} = -\\infty \\text\{ where \} j > i$/);
  const windowed = traceOf(CUSTOM_SPECS['custom-flash-window']);
  const tile = windowed.stages.find((s) => s.id === 'tile_scores');
  assert.deepEqual(tile.terms, ['scale', 'causal', 'window']);
  assert.ok(stageById('tile_scores').formula(windowed.config, tile).endsWith('j > i \\text{ or } j \\le i - W'));
  assert.doesNotMatch(formula({ preset: 'flash-full' }, 'tile_scores'), /infty/);
});

test('BWD-1: dA is positive for a value along dH[t] (more weight raises the loss), negative against it', () => {
  const trace = traceOf({ preset: 'backward-causal' });
  const stage = trace.stages.find((s) => s.id === 'd_weights');
  const text = stageById('d_weights').explanation({ config: trace.config, stage, tokens: [], preset: null, models });
  quotes(text, 'A key whose value points along dH[t] gets a positive dA (more weight on it would raise the loss)');
  quotes(text, 'one pointing against dH[t], where the loss wants the output to go, gets a negative dA');
});

// POS-2: the formula names what the engine read, over every recorded trace: the scores of the
// turned rows under RoPE (its operands q_rot and k_rot), the projections of X + PE under the
// sinusoidal encoding (their operand x_pos).
test('POS-2: scores and projections name the operands the engine read, in every recorded trace', () => {
  let turned = 0;
  let added = 0;
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    const { config } = trace;
    for (const stage of trace.stages) {
      const names = stage.operands?.map((o) => o.name) ?? [];
      const where = `${JSON.stringify(spec)} ${stage.id}`;
      if (stage.id === 'scores') {
        const rot = names.includes('q_rot');
        turned += rot;
        assert.equal(/\\hat\{Q\}\\,\\hat\{K\}/.test(stageById('scores').formula(config, stage)), rot, where);
        assert.equal(stageById('scores').figure(config, stage)[2].label.includes('\u0302'), rot, where);
      }
      if (stage.id === 'q' && config.kind !== 'kv-cache') {
        const pos = names[0] === 'x_pos';
        added += pos;
        assert.equal(stageById('q').formula(config, stage).includes('(X + PE)'), pos, where);
      }
    }
  }
  assert.ok(turned > 0 && added > 0, `RoPE scores ${turned}, X + PE projections ${added}`);
});

// MSK-1: the mask stage names every rule M combines. Over every recorded trace with a mask: a key
// column hidden from every row (padding) is named iff it is there, and a hidden future key iff it
// is there (combinations.test.mjs: every pair of rules).
test('MSK-1: the mask stage names every rule M combines, as the engine\u2019s M shows them', () => {
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    const stage = trace.stages.find((s) => s.id === 'masked');
    if (!stage) continue;
    const { config } = trace;
    const title = stageById('masked').title(config, stage);
    const [rows, keys] = stage.shape;
    const m = stage.operands[1].values;
    const hidden = (t, j) => m[t * keys + j] === -Infinity;
    const padded = Array.from({ length: keys }, (_, j) => j).some((j) =>
      Array.from({ length: rows }, (_, t) => t).every((t) => hidden(t, j)),
    );
    const valid = config.validKeys ?? keys; // past it, keys are padding
    const future = Array.from({ length: rows }, (_, t) => t).some((t) =>
      Array.from({ length: Math.max(0, valid - t - 1) }, (_, k) => t + 1 + k).some((j) => hidden(t, j)),
    );
    const where = `${JSON.stringify(spec)}: ${title}`;
    assert.equal(/padding/i.test(title), config.validKeys !== null, where);
    if (config.validKeys !== null) assert.ok(padded, where);
    if (config.kind !== 'cross') assert.equal(/Causal|causal|window|documents|prefix/i.test(title), future, where);
  }
  const padded = traceOf({ preset: 'masks-padding' });
  const [padding, paddedMask] = [padded.config, padded.stages.find((s) => s.id === 'masked')];
  // MSK-2: the Padding preset is an encoder's (no causal mask), where padding is the whole mask.
  assert.equal(padding.causal, false);
  assert.equal(stageById('masked').title(padding, paddedMask), 'Padding mask');
  assert.match(stageById('masked').formula(padding, paddedMask), /\{cases\} 0 & j < \\text\{valid\} \\\\/);
  const text = say({ preset: 'masks-padding' }, 'masked');
  quotes(text, `Key positions from ${padding.validKeys} on are padding`);
  quotes(text, 'Without a causal mask the padding is the whole mask');
  quotes(text, 'rows are still computed, and their outputs discarded');
});

// The engine's own runs, with and without the encoding: dW_Q's operand is X or x_pos (X + PE).
test('BWD-5: dW_Q\u2019s text and explain line sum over the projection\u2019s input, X + PE under the encoding', () => {
  const symbolic = (spec) => {
    const trace = traceOf(spec);
    const stage = trace.stages.find((s) => s.id === 'd_w_q');
    return stageById('d_w_q').explain.symbolic(0, 1, trace.config, stage);
  };
  const encoded = CUSTOM_SPECS['custom-backward-sinusoidal'];
  quotes(say({ preset: 'backward-causal' }, 'd_w_q'), 'its gradient sums X[t, a]\u00b7dQ[t, b]');
  quotes(say(encoded, 'd_w_q'), 'Q = (X + PE) \u00b7 W_Q');
  quotes(say(encoded, 'd_w_q'), 'its gradient sums (X + PE)[t, a]\u00b7dQ[t, b]');
  assert.equal(symbolic({ preset: 'backward-causal' }), 'dW^{Q}_{0,1} = \\sum_t X_{t,0}\\,dQ_{t,1}');
  assert.equal(symbolic(encoded), 'dW^{Q}_{0,1} = \\sum_t (X + PE)_{t,0}\\,dQ_{t,1}');
});

// POS-7: the turned Q and K are Q̂ and K̂ in every formula and explain line (the tilde is S̃'s and
// no other's); the offset t₀ of the angle is defined where it is used.
test('POS-7: the turned Q and K are written Q\u0302 and K\u0302 in every formula and explain line', () => {
  let turned = 0;
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    for (const stage of trace.stages) {
      const entry = stageById(stage.id);
      const texts = [entry.formula(trace.config, stage), entry.explain?.symbolic?.(0, 1, trace.config, stage) ?? ''];
      for (const text of texts) assert.doesNotMatch(text, /\\tilde\{?[QK]\b/, `${stage.id}: ${text}`);
      if (stage.id === 'q_rot' || stage.id === 'k_rot') {
        turned++;
        const letter = stage.id[0].toUpperCase();
        assert.match(texts[0], new RegExp(`\\\\hat\\{${letter}\\}_\\{t,a\\}`));
        assert.match(texts[1], new RegExp(`^\\\\hat\\{${letter}\\}_\\{0,1\\}`));
        quotes(
          entry.explanation({ config: trace.config, stage, tokens: [], models }),
          't\u2080 being the position of row 0',
        );
      }
    }
  }
  assert.ok(turned > 0, 'some recorded trace turns Q and K');
});

// TRN-9: the row-sum question asks about what the stage's rows are: queries over keys for weights,
// positions over the vocabulary for a model's probabilities; the answer is the engine's row total.
test('TRN-9: the row-sum question names a model\u2019s rows as positions and its columns as next tokens', () => {
  const model = traceOf({ preset: 'trained-induction' });
  const attention = traceOf({ preset: 'lesson-causal' });
  const ask = (trace, id) => {
    const stage = trace.stages.find((s) => s.id === id);
    return { stage, q: rowSumQuestion({ stage }, { tokens: tokensFor(trace.config) }) };
  };
  const p = ask(model, 'probabilities');
  assert.match(p.q.prompt, /^What do the probabilities in row \d+ \(position of “[^”]+”\) add up to\?$/);
  assert.match(p.q.why, /over the next token/);
  assert.equal(p.q.expected.value, p.stage.totals[Math.floor((p.stage.shape[0] - 1) / 2)]);
  const w = ask(attention, 'weights');
  assert.match(w.q.prompt, /^What do the weights in row \d+ \(query “[^”]+”\) add up to\?$/);
  assert.match(w.q.why, /over the keys/);
});

// BWD-6: every weight gradient's stage (head 0's, and W_O's) shows the engine's check that dW is the
// loss's slope: its entry, read back from the stage's own values, and the central difference beside it.
test('BWD-6: the weight gradients quote the engine\u2019s central difference beside their own entry', () => {
  let quoted = 0;
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    if (trace.config.kind !== 'backward') continue;
    for (const g of trace.config.gradientChecks) {
      const id = `d_${g.matrix.toLowerCase()}`;
      const stage = trace.stages.find((s) => s.id === id && (s.head === 0 || s.head === null));
      assert.equal(stage.values[g.row * stage.shape[1] + g.col], g.analytic, `${id}: the entry is the stage's`);
      assert.ok(Math.abs(g.numeric - g.analytic) <= 1e-7 * Math.max(1, Math.abs(g.analytic)), `${id}: the slope`);
      const text = say(spec, id, (s) => s.head === stage.head);
      quotes(text, `${g.matrix}[${g.row}, ${g.col}] (the largest |dW| here)`);
      quotes(text, `= ${formatFull(g.numeric)}, and d${g.matrix}[${g.row}, ${g.col}] = ${formatFull(g.analytic)}`);
      quoted++;
    }
  }
  assert.ok(quoted >= 8, `${quoted} checks quoted`);
});
