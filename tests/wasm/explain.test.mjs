// explain() through the WASM engine: dot-product cells are the sum of their terms,
// weights are their softmax parts, concat cells point at their head's column.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { PRESETS, label, stageOf } from './support.mjs';

let engine;
before(async () => {
  engine = await createEngine();
});

const DOT_STAGES = ['q', 'k', 'v', 'scores', 'scaled', 'head', 'output'];

// Every cell of every stage with this id, as [stage, row, col].
function* cellsOf(trace, id) {
  for (const s of trace.stages.filter((st) => st.id === id)) {
    for (let row = 0; row < s.shape[0]; row += 1) {
      for (let col = 0; col < s.shape[1]; col += 1) yield [s, row, col];
    }
  }
}

const valueAt = (s, row, col) => s.values[row * s.shape[1] + col];

describe('explain', () => {
  for (const preset of Object.keys(PRESETS)) {
    describe(preset, () => {
      let trace;
      before(() => {
        trace = engine.run({ preset });
      });

      test('dot-product cells: Σ terms = sum, and sum / divisor = the cell to 1e-12', () => {
        let cells = 0;
        for (const id of DOT_STAGES) {
          for (const [s, row, col] of cellsOf(trace, id)) {
            const where = `${label(s.id, s.head)} (${row}, ${col})`;
            const e = engine.explain({ preset }, { stage: s.id, head: s.head, row, col });
            assert.equal(e.value, valueAt(s, row, col), `${where}: value`);
            assert.ok(Array.isArray(e.terms) && e.terms.length > 0, `${where}: terms`);
            let sum = 0;
            for (const t of e.terms) {
              assert.equal(t.a * t.b, t.product, `${where}: a · b = product`);
              sum += t.product;
            }
            assert.equal(sum, e.sum, `${where}: Σ products = sum`);
            const divisor = id === 'scaled' ? Math.sqrt(trace.config.dK) : 1;
            assert.equal(e.divisor, divisor, `${where}: divisor`);
            assert.ok(Math.abs(e.sum / e.divisor - e.value) <= 1e-12, `${where}: ${e.sum} / ${e.divisor} vs ${e.value}`);
            assert.equal(e.softmax, null, `${where}: no softmax`);
            cells += 1;
          }
        }
        assert.ok(cells > 0);
      });

      test('weights: exps[col] / expSum is the weight; masked cells have exp 0', () => {
        for (const [s, row, col] of cellsOf(trace, 'weights')) {
          const where = `${label(s.id, s.head)} (${row}, ${col})`;
          const e = engine.explain({ preset }, { stage: 'weights', head: s.head, row, col });
          assert.equal(e.value, valueAt(s, row, col), `${where}: value`);
          assert.equal(e.terms, null, `${where}: no terms`);
          assert.equal(e.masked, trace.config.causal && col > row, `${where}: masked`);
          const { logits, max, exps, expSum } = e.softmax;
          assert.equal(logits.length, trace.config.seqLen);
          assert.equal(max, Math.max(...logits), `${where}: max`);
          assert.equal(exps.reduce((a, b) => a + b, 0), expSum, `${where}: Σ exps`);
          assert.equal(exps[col] / expSum, e.value, `${where}: exps[col] / expSum`);
          if (e.masked) {
            assert.equal(logits[col], -Infinity, `${where}: masked logit`);
            assert.equal(exps[col], 0, `${where}: masked exp`);
          }
        }
      });

      test('concat cells point at the head value they copy', () => {
        if (!trace.config.outputProjection) return;
        for (const [s, row, col] of cellsOf(trace, 'concat')) {
          const e = engine.explain({ preset }, { stage: 'concat', head: null, row, col });
          const dV = trace.config.dV;
          assert.deepEqual(e.source, { head: Math.floor(col / dV), col: col % dV }, `concat (${row}, ${col})`);
          assert.equal(valueAt(stageOf(trace, 'head', e.source.head), row, e.source.col), e.value);
          assert.equal(e.value, valueAt(s, row, col));
        }
      });
    });
  }

  test('masked cells of the causal example explain as −∞ with masked set', () => {
    const e = engine.explain({ preset: 'lesson-causal' }, { stage: 'masked', head: 0, row: 1, col: 3 });
    assert.equal(e.value, -Infinity);
    assert.equal(e.masked, true);
  });
});
