// Numbers, the matrix view, the chapter panels and CSV export.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stageCsv } from '../../web/model/export/csv.js';
import { formatCell, parseCell } from '../../web/model/format.js';
import { matrixView } from '../../web/model/matrix-view.js';
import { panelView } from '../../web/model/panels.js';
import { buildSteps } from '../../web/model/navigation.js';
import { catalog, tokensFor, traceOf } from './fixtures.mjs';

test('numbers: three decimals with a real minus, \u2212\u221e, and back', () => {
  assert.equal(formatCell(0.4967141530112327), '0.497');
  assert.equal(formatCell(-0.1382643011711847), '\u22120.138');
  assert.equal(formatCell(-Infinity), '\u2212\u221e');
  assert.equal(parseCell('\u22120.138'), -0.138);
  assert.equal(parseCell('\u2212\u221e'), -Infinity);
});

test('matrix view: a wrong number of values throws and names the matrix', () => {
  assert.throws(
    () =>
      matrixView({ key: 'k', name: 'scores', shape: [2, 3], values: new Float64Array(5), tokens: [], theme: 'light' }),
    /matrix k: 5 values for shape \(2, 3\)/,
  );
});

test('panels: cross marks padding keys; GQA groups and sizes are the engine\u2019s; the layer marks its part', () => {
  const cross = traceOf({ preset: 'cross-padding' });
  const seq = panelView({
    chapterId: 'cross',
    config: cross.config,
    tokens: { T_q: ['le', 'chat'], T_kv: ['the', 'black', 'cat', '<pad>'] },
  });
  assert.deepEqual(
    seq.keys.map((k) => k.padding),
    [false, false, false, true],
  );
  assert.equal(seq.shape, '2 \u00d7 4');
  const gqa = traceOf({ preset: 'gqa-4-2' }).config;
  const groups = panelView({ chapterId: 'gqa', config: gqa, head: 3, models: catalog.models, loadedModel: null });
  assert.deepEqual(
    groups.groups.map((g) => g.heads.map((h) => h.head)),
    [
      [0, 1],
      [2, 3],
    ],
  );
  assert.deepEqual(
    groups.sizes.rows.map((r) => r.slice(1)),
    [
      [String(gqa.kv.params), String(gqa.kv.paramsMha)],
      [String(gqa.kv.cacheValues), String(gqa.kv.cacheValuesMha)],
    ],
  );
  assert.equal(groups.models.length, 6);
  const layer = panelView({
    chapterId: 'encoder-layer',
    config: traceOf({ preset: 'encoder-layer' }).config,
    stageId: 'ffn_hidden',
  });
  assert.deepEqual(
    layer.parts.map((p) => p.current),
    [false, false, true, false],
  );
  assert.deepEqual(layer.widths, ['16', '64', '16']);
});

test('CSV export: a token a spreadsheet would read as a formula stays text; numbers stay numbers', () => {
  const csv = stageCsv(
    { shape: [2, 2], values: Float64Array.from([-0.5, 1, -Infinity, 0]) },
    ['=1+2', '@SUM(A1)'],
    ['+x', 'cat'],
    'T',
  );
  assert.equal(csv, "T,'+x,cat\r\n'=1+2,-0.5,1\r\n'@SUM(A1),-Infinity,0\r\n");
});

// POS-10: the RoPE table's angle columns name the row and, with an offset, the position o + p the
// engine turned it by: each column's φ is that position times θ_c.
test('the RoPE table heads each angle column with its row and its position, o + p', () => {
  const trace = traceOf({ preset: 'positions-rope-half-split' });
  const steps = buildSteps(trace);
  const tokens = tokensFor(trace.config);
  const panel = panelView({ chapterId: 'positions', config: trace.config, steps, head: 0, tokens, index: 0 });
  const { headers, rows } = panel.rope.table;
  const o = trace.config.rope.offset;
  assert.ok(o > 0, `offset ${o}`);
  headers.slice(3).forEach((h, p) => {
    assert.equal(h, `\u03c6, row ${p} (${tokens.T[p]}), position ${o + p}`);
    rows.forEach((r) => assert.equal(Number(r[3 + p]), Number(formatCell((o + p) * Number(r[2])))));
  });
});
