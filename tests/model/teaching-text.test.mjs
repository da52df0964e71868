// What the panels, the calculator, the chapters and the page say, checked against the engine's
// numbers and the papers' figures (review 2026-12-01): over the recorded traces and catalog, no build.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSteps } from '../../web/model/navigation.js';
import { panelView } from '../../web/model/panels.js';
import { traceOf } from './fixtures.mjs';

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
