// Steps, Prev/Next and the stage list, from recorded traces (tests/fixtures/traces/).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSteps, findStepIndex, stageListView } from '../../web/model/navigation.js';
import { STAGES } from '../../web/model/stage-table.js';
import { traceOf } from './fixtures.mjs';

test('navigation: steps follow the trace; unknown (id, head) falls back', () => {
  const steps = buildSteps(traceOf({ preset: 'lesson-multi-head' }));
  assert.equal(steps.length, 1 + 4 * 7 + 2);
  assert.equal(steps[findStepIndex(steps, 'weights', 2)].head, 2);
  assert.deepEqual(steps[findStepIndex(steps, 'masked', 1)].stage.id, 'weights');
  assert.equal(steps[findStepIndex(steps, 'masked', 1)].head, 1);
  assert.equal(findStepIndex(steps, 'nonsense', 0), 0);
  const noProjection = buildSteps(traceOf({ preset: 'lesson-self-attention' }));
  assert.equal(noProjection[findStepIndex(noProjection, 'output', 0)].id, noProjection.at(-1).id);
  assert.deepEqual(
    STAGES.filter((s) => s.group === 'head').map((s) => s.id),
    ['q', 'k', 'v', 'k_new', 'v_new', 'k_cache', 'v_cache', 'scores', 'scaled', 'masked', 'weights', 'head'],
  );
});

const SHARED_KV =
  'navigation with shared K/V: a query head\u2019s list holds its group\u2019s K and V, in the lesson\u2019s order';
test(SHARED_KV, () => {
  const trace = traceOf({ preset: 'gqa-4-2' });
  const steps = buildSteps(trace);
  const k = steps[findStepIndex(steps, 'k', 3)];
  assert.deepEqual([k.id, k.head, k.kvHead], ['k', 2, 1], 'query head 3 reads K/V head 1, recorded at head 2');
  const list = stageListView(steps, findStepIndex(steps, 'scores', 3), 3, trace.config);
  const head = list.groups.find((g) => g.id === 'head');
  assert.equal(head.title, 'Head 3 of 4');
  assert.deepEqual(
    head.items.map((i) => i.label.split(' (')[0]),
    ['Queries Q', 'Keys K', 'Values V', 'Scores', 'Scaled scores', 'Attention weights', 'Weighted values'],
  );
  assert.match(head.items[1].label, /K\/V head 1, shared/);
});
