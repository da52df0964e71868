// The Notation panel's table over every recorded trace: one row for each kind of quantity the
// trace holds and none for what it lacks, each shape the trace's own axes, one symbol a
// quantity (no symbol for two stages), and the note on counting from 0.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSteps } from '../../web/model/navigation.js';
import { notationView } from '../../web/model/notation.js';
import { stageById } from '../../web/model/stage-table.js';
import { SPECS, traceOf } from './fixtures.mjs';

test('notation: a row per quantity the trace holds, its shape the trace\u2019s axes', () => {
  const symbols = new Map(); // symbol → the stage id it names, across every trace
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    const ids = [...new Set(trace.stages.map((s) => s.id))];
    const view = notationView(buildSteps(trace));
    const shown = view.table.rows.map((r) => r[0]);
    assert.equal(new Set(shown).size, shown.length, `${JSON.stringify(spec)}: a symbol once`);
    for (const id of ['scores', 'weights']) {
      const stage = trace.stages.find((s) => s.id === id);
      if (!stage) continue;
      const row = view.table.rows.find((r) => r[0] === (id === 'scores' ? 'S' : 'A'));
      assert.equal(row[3], `(${stage.axes.join(', ')})`, `${id}: its axes`);
    }
    if (!ids.includes('masked')) assert.ok(!shown.includes('L'), 'no L without a mask');
    if (ids.includes('tile_out')) assert.ok(shown.includes('O\u0303') && !shown.includes('S'), 'flash: Õ, tiles');
    for (const [symbol, is] of view.table.rows) symbols.set(symbol, (symbols.get(symbol) ?? new Set()).add(is));
  }
  // One symbol, one definition: O is concat·W_O or, in FlashAttention, Õ / l — both the output.
  for (const [symbol, defs] of symbols) if (symbol !== 'O') assert.equal(defs.size, 1, `${symbol}: ${[...defs]}`);
  const note = notationView(buildSteps(traceOf(SPECS[0]))).note;
  assert.match(note, /number head_1 \u2026 head_h are heads 0 \u2026 h \u2212 1, the first token is position 0/);
});

// TRN-6, TRN-7: the trained model's own symbols are in the table, and none is used twice in its
// chapter: N counts the layers (L is the masked logits), n_vocab the vocabulary (V is the values), y the
// token ids (x is the residual stream).
test('notation: the trained model\u2019s own symbols are in the table, none of them reused', () => {
  const trace = traceOf({ preset: 'trained-induction' });
  const { rows } = notationView(buildSteps(trace)).table;
  const symbols = rows.map((r) => r[0]);
  for (const s of ['x\u2080', 'x\u2097\u208a\u2081', 'z', 'p', '\u2113\u209c', '\u2112'])
    assert.ok(symbols.includes(s), s);
  for (const id of ['logits', 'token_loss']) {
    const [entry, stage] = [stageById(id), trace.stages.find((s) => s.id === id)];
    const texts = [entry.formula(trace.config, stage), entry.explain.symbolic(1, 2, trace.config, stage)];
    for (const text of texts) assert.doesNotMatch(text, /x_L|x_\{\S*\+1\}(?!\s*=)/, `${id}: ${text}`);
  }
  assert.match(stageById('token_loss').formula(trace.config), /p_\{t,\\,y_\{t\+1\}\}/);
});

// POS-8: one letter, one meaning. A RoPE or PE pair is c (i stays a query), the rotated width d_rot
// and PE's d_model are written out, a product's summed feature is a (d names sizes), the softmax's
// row max is μ (m_n is ALiBi's slope; FlashAttention keeps its m), and the notation lists the
// symbols of the positions and masks a trace uses, and only those.
test('POS-8: pair index c, μ for the row max, m_n for the slope, and the notation lists what the trace uses', () => {
  const seen = { rope: 0, pe: 0, alibi: 0 };
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    const { config } = trace;
    for (const stage of trace.stages) {
      const entry = stageById(stage.id);
      const texts = [entry.formula(config, stage), entry.explain?.symbolic?.(1, 2, config, stage) ?? ''];
      const where = `${JSON.stringify(spec)} ${stage.id}`;
      for (const text of texts) {
        assert.doesNotMatch(text, /\\theta_i|\\varphi_\{p,i\}|2i\b|\\sum_d\b/, `${where}: ${text}`);
        if (stage.id === 'weights' || stage.id === 'probabilities') assert.doesNotMatch(text, /\bm_/, where);
      }
      if (stage.id === 'q_rot') seen.rope += /\\theta_c = \\text\{base\}\^\{-2c\/d_\{\\text\{rot\}\}\}/.test(texts[0]);
      if (stage.id === 'x_pos') seen.pe += /10000\^\{2c\/d_\{\\text\{model\}\}\}/.test(texts[0]);
      if (stage.id === 'biased') seen.alibi += /m_n/.test(texts[0]);
    }
    const listed = notationView(buildSteps(trace), config).indices.rows.map((r) => r[0]);
    assert.equal(listed.includes('c'), Boolean(config.rope), `${JSON.stringify(spec)}: c`);
    assert.equal(listed.includes('m_n, B'), Boolean(config.alibi), `${JSON.stringify(spec)}: m_n`);
    assert.equal(listed.includes('W'), config.window !== null, `${JSON.stringify(spec)}: W`);
    assert.equal(listed.includes('P'), config.prefix !== null, `${JSON.stringify(spec)}: P`);
    assert.ok(listed.includes('\u03bc\u1d62'), 'μ_i, the row max');
  }
  assert.ok(seen.rope > 0 && seen.pe > 0 && seen.alibi > 0, JSON.stringify(seen));
});
