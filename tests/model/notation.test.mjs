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
