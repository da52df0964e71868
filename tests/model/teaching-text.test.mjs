// What the panels, the calculator, the chapters and the page say, checked against the engine's
// numbers and the papers' figures (review 2026-12-01): over the recorded traces and catalog, no build.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSteps } from '../../web/model/navigation.js';
import { panelView } from '../../web/model/panels.js';
import { catalog, traceOf } from './fixtures.mjs';

test('flash: the floats row counts one tile and its block\u2019s m and l, as the engine does', () => {
  for (const preset of ['flash-causal', 'flash-full']) {
    const { config } = traceOf({ preset });
    const { blockRows: br, blockCols: bc } = config;
    assert.equal(config.floats.tiled, br * bc + 2 * br, `${preset}: the engine's count`);
    assert.equal(config.floats.lessonTiled, config.floats.tiled, `${preset}: the same at any T`);
    const p = panelView({ chapterId: 'flash', config, steps: buildSteps(traceOf({ preset })), index: 0 });
    assert.equal(p.floats.rows[1][0], `one ${br} \u00d7 ${bc} tile, m and l for its ${br} rows`);
    assert.equal(p.floats.rows[1][1], String(br * bc + 2 * br));
  }
});

test('models: GPT-2 small is GPT-2 (124M), with a footnote for the lesson\u2019s 117M', () => {
  const gpt2 = catalog.models[0];
  assert.deepEqual([gpt2.id, gpt2.name, gpt2.numLayers, gpt2.dModel], ['gpt2-124m', 'GPT-2 (124M)', 12, 768]);
  assert.ok(!catalog.models.some((m) => /117/.test(m.name + m.id)));
  const p = panelView({
    chapterId: 'gqa',
    config: traceOf({ preset: 'gqa-4-2' }).config,
    head: 0,
    models: catalog.models,
    loadedModel: null,
  });
  assert.match(p.footnote, /GPT-2 \(124M\) is the lesson\u2019s GPT-2 \(117M\)/);
});
