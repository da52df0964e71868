// The Notation panel's table over every recorded trace: one row for each kind of quantity the
// trace holds and none for what it lacks, each shape the trace's own axes, one symbol a
// quantity (no symbol for two stages), and the note on counting from 0.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSteps } from '../../web/model/navigation.js';
import { notationView } from '../../web/model/notation.js';
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
