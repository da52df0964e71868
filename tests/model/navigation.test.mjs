// Steps, Prev/Next and the stage list, from recorded traces (tests/fixtures/traces/).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chapterById } from '../../web/model/chapters.js';
import {
  buildSteps,
  findStepIndex,
  offeredStages,
  pathEnd,
  pathOf,
  placeOnPath,
  progressView,
  stageListView,
  stepAlong,
  timeline,
  timeView,
} from '../../web/model/navigation.js';
import { STAGES } from '../../web/model/stage-table.js';
import { SPECS, traceOf } from './fixtures.mjs';

test('navigation: steps follow the trace; unknown (id, head) falls back', () => {
  const steps = buildSteps(traceOf({ preset: 'lesson-multi-head' }));
  assert.equal(steps.length, 1 + 4 * 7 + 1 + 2, 'x, each head\u2019s 7, all heads, concat and output');
  assert.deepEqual(
    steps.map((s) => s.index),
    steps.map((_, i) => i),
  );
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
      'q_norm',
      'k_norm',
      'q_rot',
      'k_rot',
      'k_new',
      'v_new',
      'k_cache',
      'v_cache',
      'q_rope',
      'q_absorbed',
      'scores',
      'scaled',
      'capped',
      'biased',
      'masked',
      'weights',
      'sink',
      'latent_head',
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
    ['All heads side by side', steps.length - 2],
    ['Concatenate heads', steps.length - 1],
    ['Output projection (off)', null],
  ]);
  assert.deepEqual(combine(), [
    ['All heads side by side', steps.length - 2],
    ['Concatenate heads', steps.length - 1],
  ]);
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

// Next from the first stage until it stops: the ids (with head and time) it shows.
function walk(steps, head = 0) {
  const seen = [0];
  for (let i = 0, next; (next = stepAlong(steps, i, head, 1)) !== i; i = next) seen.push(next);
  return seen;
}
const name = (s) => `${s.id}${s.head ?? ''}${s.step === null ? '' : `@${s.step}`}`;

test('the path: one head walked through, all heads side by side, then the heads combined (10 Next presses)', () => {
  const trace = traceOf({ preset: 'lesson-multi-head' });
  const steps = buildSteps(trace);
  const path = walk(steps);
  assert.deepEqual(
    path.map((i) => name(steps[i])),
    ['x', 'q0', 'k0', 'v0', 'scores0', 'scaled0', 'weights0', 'head0', 'all_heads', 'concat', 'output'],
  );
  const at = (id, head = 0) => findStepIndex(steps, id, head);
  assert.deepEqual(progressView(steps, at('weights'), 0, trace.config), {
    ...progressView(steps, at('weights'), 0, trace.config),
    index: 6,
    total: 11,
    text: 'Stage 7 of 11',
  });
  const end = progressView(steps, at('output'), 0, trace.config, { id: 'cross', title: 'Cross-attention' });
  assert.equal(end.atEnd, true);
  assert.deepEqual(end.nextChapter, { id: 'cross', title: 'Cross-attention' });
  // Head 2 picked at all heads: Prev walks head 2 back; the counter is the same length.
  assert.equal(steps[stepAlong(steps, at('all_heads'), 2, -1)].head, 2);
  assert.equal(name(steps[stepAlong(steps, at('q', 2), 2, -1)]), 'x');
  assert.deepEqual(placeOnPath(steps, at('scores', 2), 2), { index: 4, total: 11 });
  // Prev from the end retraces Next; Home and End are the path's ends.
  const back = [steps.length - 1];
  for (let i = back[0], prev; (prev = stepAlong(steps, i, 0, -1)) !== i; i = prev) back.push(prev);
  assert.deepEqual(back.reverse(), path);
  assert.equal(pathEnd(steps, at('scores', 3), 3, 'first'), 0);
  assert.equal(pathEnd(steps, at('scores', 3), 3, 'last'), at('output'));
});

test('the path with shared K/V: a later query head reads its group\u2019s K and V after its Q', () => {
  const steps = buildSteps(traceOf({ preset: 'gqa-4-2' }));
  const head1 = pathOf(steps, findStepIndex(steps, 'q', 1), 1).map((i) => name(steps[i]));
  assert.deepEqual(head1.slice(0, 5), ['x', 'q1', 'k0', 'v0', 'scores1']);
  // On K of the group, Next follows the head picked, not the head that computed it.
  assert.equal(name(steps[stepAlong(steps, findStepIndex(steps, 'v', 1), 1, 1)]), 'scores1');
});

test('decode steps, tiles and layers stay a second axis: Next crosses to the next one, the count stays', () => {
  const kv = buildSteps(traceOf({ preset: 'kv-cache-gqa' }));
  const path = walk(kv).map((i) => name(kv[i]));
  const perStep = ['x_t', 'q0', 'k_new0', 'v_new0', 'k_cache0', 'v_cache0', 'scores0', 'scaled0', 'weights0', 'head0'];
  const times = timeline(kv);
  assert.deepEqual(path, [
    ...times.flatMap((t) => [...perStep, 'all_heads', 'concat', 'output'].map((id) => `${id}@${t}`)),
    'stacked',
    'causal_reference',
  ]);
  for (const i of walk(kv)) assert.equal(placeOnPath(kv, i, 0).total, 15, 'the counter counts one decode step');
  assert.ok(kv.length > 150, 'while the trace holds every step of every head');

  const flash = buildSteps(traceOf({ preset: 'flash-causal' }));
  const tiles = walk(flash).map((i) => name(flash[i]));
  assert.deepEqual(tiles.slice(0, 10), [
    'x',
    'q0',
    'k0',
    'v0',
    'tile_scores0@0',
    'tile_max0@0',
    'tile_sum0@0',
    'tile_out0@0',
    'block_out0@0',
    'tile_scores0@1',
  ]);
  assert.deepEqual(tiles.slice(-3), ['block_out0@5', 'stacked', 'reference']);
  assert.equal(tiles.length, flash.length, 'one head: every stage once');
  assert.equal(placeOnPath(flash, findStepIndex(flash, 'tile_sum', 0, 1), 0).total, 10, 'tile 1 has no block_out');

  const model = buildSteps(traceOf({ preset: 'trained-induction' }));
  const layers = walk(model).map((i) => name(model[i]));
  assert.deepEqual(layers.slice(layers.indexOf('residual@0'), layers.indexOf('residual@0') + 2), ['residual@0', 'x@1']);
  assert.deepEqual(layers.slice(-5), ['residual@1', 'logits', 'probabilities', 'token_loss', 'loss']);
  assert.ok(!layers.includes('q1@0'), 'one head walked through in each layer');
});

test('every recorded trace: Next visits its path once, in the stage list\u2019s order, and ends', () => {
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    const steps = buildSteps(trace);
    const seen = walk(steps);
    assert.equal(new Set(seen).size, seen.length, `${JSON.stringify(spec)}: no stage twice`);
    for (const i of seen) {
      const listed = stageListView(steps, i, 0, trace.config)
        .groups.flatMap((g) => g.items)
        .map((item) => item.index);
      const here = listed.indexOf(i);
      assert.ok(here >= 0, `${name(steps[i])}: listed`);
      assert.equal(placeOnPath(steps, i, 0).index, here, `${name(steps[i])}: the counter is its place in the list`);
    }
  }
});
