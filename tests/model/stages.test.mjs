// The stage table, the explain panel's TeX, the shape equations and every step's view, over every
// recorded trace (tests/fixtures/traces/: each preset and the custom specs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import katex from 'katex';
import { alignEquation } from '../../web/model/dims.js';
import { explainView } from '../../web/model/explain-view.js';
import { formatCell } from '../../web/model/format.js';
import { buildSteps, stageListView } from '../../web/model/navigation.js';
import { GROUPS, stageById } from '../../web/model/stage-table.js';
import { stageView } from '../../web/model/stage-view.js';
import { catalog, explainOf, SPECS, tokensFor, traceOf } from './fixtures.mjs';

test('stage table: every stage the engine traces has an entry, and explainable ones explain', () => {
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    for (const stage of trace.stages) {
      const entry = stageById(stage.id);
      assert.ok(entry, `${JSON.stringify(spec)}: stage ${stage.id} missing from the stage table`);
      if (entry.explain) {
        const e = explainOf(spec, {
          stage: stage.id,
          head: stage.head,
          step: stage.step,
          row: 0,
          col: stage.shape[1] - 1,
        });
        const view = explainView(e, {
          stageId: stage.id,
          head: stage.head,
          row: 0,
          col: stage.shape[1] - 1,
          config: trace.config,
          keyTokens: [],
          label: entry.result,
          stage,
        });
        assert.match(view.filledTex, /=/, `${stage.id}: filled formula`);
        assert.ok(
          !view.filledTex.includes('undefined') && !view.filledTex.includes('NaN'),
          `${stage.id}: ${view.filledTex}`,
        );
      }
    }
  }
});

test('TeX: every formula and every explain line of every spec typesets in KaTeX without an error', () => {
  const typeset = (tex, what) =>
    assert.doesNotThrow(() => katex.renderToString(tex, { throwOnError: true }), `${what}: ${tex}`);
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    for (const stage of trace.stages) {
      const entry = stageById(stage.id);
      typeset(entry.formula(trace.config, stage), `${stage.id} formula`);
      if (!entry.explain) continue;
      const [rows, cols] = stage.shape;
      for (const [row, col] of [
        [0, 0],
        [rows - 1, cols - 1],
        [0, cols - 1],
      ]) {
        const e = explainOf(spec, { stage: stage.id, head: stage.head, step: stage.step, row, col });
        const view = explainView(e, {
          stageId: stage.id,
          head: stage.head,
          row,
          col,
          config: trace.config,
          keyTokens: [],
          label: entry.result,
          stage,
        });
        typeset(view.symbolicTex, `${stage.id} symbolic`);
        typeset(view.filledTex, `${stage.id} filled`);
      }
    }
  }
});

test('shape equations: numbers and symbols zip token by token on every stage', () => {
  for (const spec of SPECS) {
    for (const stage of traceOf(spec).stages) {
      const tokens = alignEquation(stage.equation, stage.symbolic);
      assert.ok(tokens, `${stage.id}: ${stage.equation} | ${stage.symbolic}`);
      const text = tokens.map((t) => (t.kind === 'dim' ? t.value : t.text)).join('');
      assert.equal(text, stage.equation);
      for (const t of tokens.filter((x) => x.kind === 'dim' && x.symbol !== x.value)) {
        assert.ok(
          t.parts.every((p) => p.dim),
          `${stage.id}: ${t.symbol} has a colour`,
        );
      }
    }
  }
});

test('stage views: every step of every spec builds, with operands and a result', () => {
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    const steps = buildSteps(trace);
    const tokens = tokensFor(trace.config);
    for (const step of steps) {
      for (const showContributions of [false, true]) {
        const view = stageView(steps, step.index, {
          trace,
          tokens,
          theme: 'light',
          selection: null,
          explained: null,
          showContributions,
          preset: null,
          models: catalog.models,
        });
        if (step.id === 'all_heads') {
          // Composed by the page: every head's weights at this time, as the trace holds them, and no result.
          const weights = trace.stages.filter((s) => s.id === 'weights' && (s.step ?? null) === step.step);
          const drawn = view.figure.filter((i) => i.kind === 'matrix');
          assert.equal(drawn.length, trace.config.numHeads);
          assert.ok(!drawn.some((i) => i.result));
          drawn.forEach((item, h) => {
            assert.equal(item.data.head, h);
            assert.equal(item.data.cells.at(-1).text, formatCell(weights[h].values.at(-1)));
          });
          continue;
        }
        const result = view.figure.find((i) => i.result);
        assert.deepEqual([result.data.rows, result.data.cols], step.stage.shape);
        assert.equal(result.data.cells[0].text, formatCell(step.stage.values[0]));
        const operands = view.figure.filter((i) => i.kind === 'matrix' && !i.result);
        const shown = stageById(step.id)
          .figure(trace.config, step.stage)
          .filter((i) => i.operand !== undefined || i.list).length;
        assert.ok(operands.length >= shown, `${step.id}: operands in the figure`);
        assert.ok(!/undefined|\bnull\b/.test(view.explanation), `${step.id}: ${view.explanation}`);
      }
    }
    // At the last step the list shows, in the table's order, each group a traced stage belongs to;
    // the backward chapter folds the forward ones into one group.
    const traced = new Set(trace.stages.map((s) => stageById(s.id).group));
    const groups = GROUPS.map((g) => g.id).filter((id) => traced.has(id));
    const backward = ['forward', ...groups.filter((id) => id.startsWith('gradient'))];
    const list = stageListView(steps, steps.length - 1, 0, trace.config);
    assert.deepEqual(
      list.groups.map((g) => g.id),
      trace.config.kind === 'backward' ? backward : groups,
    );
  }
});
