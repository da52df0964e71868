// The Modern attention chapter's panel (model/modern-panel.js) on the engine's recorded traces: the
// soft cap's card when the config caps (the models, the engine's per-head change, the references),
// and none when it does not; the text derived from the capped stage states the trace's numbers.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { modernPanel } from '../../web/model/modern-panel.js';
import { panelView } from '../../web/model/panels.js';
import { stageById } from '../../web/model/stage-table.js';
import { formatCell } from '../../web/model/format.js';
import { traceOf } from './fixtures.mjs';

test('the soft cap: its models, the engine\u2019s change in each head, its references', () => {
  const { config } = traceOf({ preset: 'modern-softcap' });
  const panel = panelView({ chapterId: 'modern', config, tokens: {}, head: 0, steps: [], index: 0 });
  assert.equal(panel.kind, 'modern');
  assert.deepEqual(
    panel.changes.map((c) => c.id),
    ['softcap'],
  );
  const [cap] = panel.changes;
  assert.deepEqual(
    cap.models.rows.map((r) => [r[0], r[1]]),
    [
      ['Gemma 2 (2B, 9B, 27B)', '50'],
      ['Grok-1 (314B)', '30, after \u00f7\u221a128 (its d_k)'],
      ['Gemma 3', 'none'],
    ],
  );
  assert.equal(config.softcapChange.length, config.numHeads);
  assert.deepEqual(
    cap.measured.rows,
    Array.from(config.softcapChange, (d, h) => [String(h), formatCell(d)]),
  );
  // The preset's weight scale and κ are chosen so that the cap visibly moves some weight.
  assert.ok(Math.max(...config.softcapChange) >= 0.05, `${config.softcapChange}`);
  assert.equal(cap.references.length, 3);
});

test('no cap, no card: the panel says that none of its changes is on', () => {
  const { config } = traceOf({ preset: 'masks-causal' });
  assert.deepEqual(modernPanel(config), { kind: 'modern', changes: [] });
});

test('the capped stage\u2019s text states κ, the largest |S̃| and its capped value, from the trace', () => {
  const trace = traceOf({ preset: 'modern-softcap' });
  const stage = trace.stages.find((s) => s.id === 'capped' && s.head === 1);
  const input = Array.from(stage.operands[0].values, Math.abs);
  const at = input.indexOf(Math.max(...input));
  const text = stageById('capped').explanation({ config: trace.config, stage });
  assert.match(text, /here with κ = 30: /);
  assert.ok(
    text.includes(
      `largest |S\u0303| is ${formatCell(input[at])}, capped to ${formatCell(Math.abs(stage.values[at]))}.`,
    ),
    text,
  );
  assert.ok(text.includes(`differ by up to ${formatCell(trace.config.softcapChange[1])}`), text);
  // Head 1's largest |S̃| is far past κ: capped just under it.
  assert.ok(input[at] > 60, `${input[at]}`);
  assert.ok(Math.abs(stage.values[at]) < 30 && Math.abs(stage.values[at]) > 29, 'the largest logit is bent near κ');
});

test('sinks: each head\u2019s ζ, largest share and rows past half, read from the sink stages', async () => {
  const { buildSteps } = await import('../../web/model/navigation.js');
  const trace = traceOf({ preset: 'modern-sinks' });
  const panel = modernPanel(trace.config, buildSteps(trace));
  assert.deepEqual(
    panel.changes.map((c) => c.id),
    ['sinks'],
  );
  const sinks = trace.stages.filter((s) => s.id === 'sink');
  assert.deepEqual(
    panel.changes[0].measured.rows,
    sinks.map((s) => [
      String(s.head),
      String(trace.config.sinks[s.head]),
      formatCell(Math.max(...s.values)),
      `${Array.from(s.values).filter((v) => v > 0.5).length} of 8`,
    ]),
  );
  // The example's head 0 (ζ = 2) gives the sink more than half of at least half its rows.
  assert.ok(Array.from(sinks[0].values).filter((v) => v > 0.5).length >= 4, `${sinks[0].values}`);
  const text = stageById('sink').explanation({ config: trace.config, stage: sinks[0] });
  assert.match(text, /of logit ζ = 2 and no value/);
  assert.match(
    text,
    new RegExp(`more than half of ${panel.changes[0].measured.rows[0][3].split(' ')[0]} of the 8 rows`),
  );
});
