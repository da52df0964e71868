// Steps, Prev/Next and the stage list, from recorded traces (tests/fixtures/traces/).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chapterById } from '../../web/model/chapters.js';
import { buildSteps, findStepIndex, offeredStages, stageListView, timeView } from '../../web/model/navigation.js';
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
    [
      'q',
      'k',
      'v',
      'q_rot',
      'k_rot',
      'k_new',
      'v_new',
      'k_cache',
      'v_cache',
      'scores',
      'scaled',
      'biased',
      'masked',
      'weights',
      'head',
    ],
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
  assert.equal(head.title, 'Head 3 (of 0\u20133)');
  assert.deepEqual(
    head.items.map((i) => i.label.split(' (')[0]),
    ['Queries Q', 'Keys K', 'Values V', 'Scores', 'Scaled scores', 'Attention weights', 'Weighted values'],
  );
  assert.match(head.items[1].label, /K\/V head 1, shared/);
});

// A head's items in the list at (id, head): [label, index] (index null: a stage left out).
function headItems(preset, id, head, options) {
  const trace = traceOf({ preset });
  const steps = buildSteps(trace);
  const list = stageListView(steps, findStepIndex(steps, id, head), head, trace.config, options);
  return list.groups.find((g) => g.id === 'head').items.map((i) => [i.label, i.index, i.current, i.done]);
}

const MASK_PLACE =
  'stage list: without the causal mask, its stage is listed in place (index null) when the form offers it, only then';
test(MASK_PLACE, () => {
  const off = headItems('lesson-multi-head', 'weights', 2, { offered: ['masked', 'output'] });
  const at = off.findIndex(([label]) => label === 'Causal mask (off)');
  assert.deepEqual(
    off.slice(at - 1, at + 2).map(([label, index]) => [label, index === null]),
    [
      ['Scaled scores', false],
      ['Causal mask (off)', true],
      ['Attention weights', false],
    ],
  );
  assert.deepEqual(off[at].slice(2), [false, false], 'neither current nor done');
  const plain = headItems('lesson-multi-head', 'weights', 2);
  assert.deepEqual(off.toSpliced(at, 1), plain, 'the other items as without the option');
  const on = headItems('lesson-causal', 'weights', 0, { offered: ['masked', 'output'] });
  const mask = on.filter(([label]) => /mask/i.test(label));
  assert.equal(mask.length, 1);
  assert.equal(mask[0][0], 'Causal mask');
  assert.equal(typeof mask[0][1], 'number', 'with the mask: its own step');
  // A padding mask is the head's own mask stage; tiles have no scaled scores to follow.
  const padding = headItems('cross-padding', 'weights', 0, { offered: ['masked', 'output'] }).filter(([l]) =>
    /mask/i.test(l),
  );
  assert.deepEqual(
    padding.map(([label, index]) => [label, index === null]),
    [['Padding mask', false]],
  );
  const flash = buildSteps(traceOf({ preset: 'flash-full' }));
  const tiles = stageListView(flash, 0, 0, traceOf({ preset: 'flash-full' }).config, { offered: ['masked', 'output'] });
  assert.ok(
    tiles.groups.every((g) => g.items.every((i) => i.index !== null)),
    'no mask place among tiles',
  );
  assert.ok(
    headItems('designed-heads', 'weights', 1, { offered: ['masked', 'output'] }).some(([, index]) => index === null),
  );
});

test('stage list: without W_O, two heads\u2019 concat is listed, then "Output projection (off)" in its place', () => {
  const spec = { seed: 11, seqLen: 4, dModel: 8, numHeads: 2, causal: false, outputProjection: false };
  const trace = traceOf(spec);
  const steps = buildSteps(trace);
  assert.equal(steps.at(-1).id, 'concat', 'the concat is the last stage: the output');
  const combine = (options) =>
    stageListView(steps, steps.length - 1, 0, trace.config, options)
      .groups.find((g) => g.id === 'combine')
      .items.map((i) => [i.label, i.index]);
  assert.deepEqual(combine({ offered: ['masked', 'output'] }), [
    ['Concatenate heads', steps.length - 1],
    ['Output projection (off)', null],
  ]);
  assert.deepEqual(combine(), [['Concatenate heads', steps.length - 1]]);
  const one = buildSteps(traceOf({ preset: 'lesson-self-attention' }));
  const single = stageListView(one, 0, 0, traceOf({ preset: 'lesson-self-attention' }).config, {
    offered: ['masked', 'output'],
  });
  assert.ok(!single.groups.some((g) => g.id === 'combine'), 'one head: nothing to join, no place for W_O');
});

test('the form offers the mask and W_O where it has their checkboxes, unless the stages chosen leave them out', () => {
  const offered = Object.fromEntries(
    ['attention', 'cross', 'gqa', 'encoder-layer', 'kv-cache', 'flash', 'positions', 'masks', 'designed-heads'].map(
      (id) => [id, offeredStages(chapterById(id).fields)],
    ),
  );
  assert.deepEqual(offered, {
    attention: ['masked', 'output'],
    cross: ['output'],
    gqa: ['masked', 'output'],
    'encoder-layer': ['masked'],
    'kv-cache': ['q_rot', 'k_rot', 'biased', 'output'],
    flash: ['masked'],
    positions: ['x_pos', 'q_rot', 'k_rot', 'biased', 'masked'],
    masks: ['masked'],
    'designed-heads': ['masked'],
  });
  assert.deepEqual(offeredStages(chapterById('attention').fields, ['scores', 'masked', 'weights']), ['masked']);
  assert.deepEqual(offeredStages(chapterById('attention').fields, ['scores', 'weights']), []);
});

test('navigation: the trained model\u2019s time axis names a layer inside the layers, and before or after them', () => {
  const trace = traceOf({ preset: 'trained-induction' });
  const steps = buildSteps(trace);
  const label = (id, step = null) => timeView(steps, findStepIndex(steps, id, 0, step), trace.config, {}).label;
  assert.equal(label('embedded'), 'Before the layers (layers 0\u20131): the embeddings R\u2080 that layer 0 reads');
  assert.equal(label('weights', 0), 'Layer 0 (layers 0\u20131): reads R\u2080, the embeddings');
  assert.equal(label('weights', 1), 'Layer 1 (layers 0\u20131): reads R\u2081, layer 0\u2019s stream');
  assert.equal(
    label('loss'),
    'After the layers (layers 0\u20131): the prediction reads R\u2082, layer 1\u2019s stream',
  );
  assert.equal(
    timeView(steps, findStepIndex(steps, 'loss', 0), trace.config, {}).value,
    1,
    'the slider at the last layer',
  );
});
