// Issue 35's truthful colour: which scale each matrix is drawn on, read from the views the page
// builds for recorded traces. Weights on 0 … 1, one head's logits on one shared scale (so ÷√d_k
// shows as paler colour), the mask as 0 and −∞, every other matrix on its own range; the legend
// says which.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCell } from '../../web/model/format.js';
import { buildSteps, findStepIndex } from '../../web/model/navigation.js';
import { rangeOf, sequentialColours } from '../../web/model/palette.js';
import { stageView } from '../../web/model/stage-view.js';
import { tokensFor, traceOf } from './fixtures.mjs';

function viewsOf(spec) {
  const trace = traceOf(spec);
  const steps = buildSteps(trace);
  const ctx = { trace, tokens: tokensFor(trace.config), theme: 'light', selection: null, explained: null };
  const at = (id, head = 0) => stageView(steps, findStepIndex(steps, id, head), { ...ctx, models: [] });
  return { trace, at, result: (id, head = 0) => at(id, head).figure.find((i) => i.result).data };
}
const stageOf = (trace, id, head = 0) => trace.stages.find((s) => s.id === id && s.head === head);

test('scales: weights on the fixed 0 … 1, whatever their largest value', () => {
  const { trace, result } = viewsOf({ preset: 'lesson-multi-head' });
  const weights = result('weights');
  assert.deepEqual([weights.legend.min, weights.legend.max], ['0.000', '1.000']);
  assert.deepEqual([weights.legend.note, weights.legend.why], ['fixed', 'fixed 0 … 1: each row shares out 1']);
  const values = stageOf(trace, 'weights').values;
  assert.ok(rangeOf(values) < 1, 'the lesson\u2019s largest weight is below 1');
  for (const i of [0, 7, values.length - 1])
    assert.equal(weights.cell(i).fill, sequentialColours(values[i], 1, 'light').fill, `cell ${i}: coloured on 0 … 1`);
});

const SHARED =
  'scales: S and S\u0303 of one head on one scale, so that \u00f7\u221ad_k pales them; M as 0 and \u2212\u221e';
test(SHARED, () => {
  const { trace, at, result } = viewsOf({ preset: 'lesson-causal' });
  const scores = stageOf(trace, 'scores');
  const shared = formatCell(rangeOf(scores.values)); // S holds the largest |logit| (÷√d_k, no bias)
  for (const id of ['scores', 'scaled', 'masked']) {
    assert.equal(result(id).legend.max, shared, `${id}: S's range`);
    assert.equal(result(id).legend.note, 'shared');
    assert.equal(result(id).legend.why, `centred on 0, shared by S, S̃ and L: ±${shared}`);
  }
  // The same cell is paler in S̃ than in S: further from the ramp's end, nearer the middle.
  const [s, st] = [result('scores'), result('scaled')];
  const i = scores.values.findIndex((v) => Math.abs(v) > 0.5 * rangeOf(scores.values));
  const distance = (rgb, to) =>
    Math.hypot((rgb >> 16) - (to >> 16), ((rgb >> 8) & 255) - ((to >> 8) & 255), (rgb & 255) - (to & 255));
  const middle = 0xf6f6f4; // the diverging ramp's 0
  assert.ok(distance(st.cell(i).rgb, middle) < distance(s.cell(i).rgb, middle), `cell ${i}: S̃ paler than S`);
  // In the masked stage's figure, M is drawn as 0 and −∞, not on a colour ramp.
  const mask = at('masked').figure.find((item) => item.data?.name === 'M').data;
  assert.deepEqual(
    [mask.legend.min, mask.legend.max, mask.legend.note, mask.legend.why],
    ['0', '\u2212\u221e', 'seen, hidden', '0 where a key is seen, \u2212\u221e where it is hidden'],
  );
  // Any other matrix: centred on 0 to its own largest |value|.
  const x = result('x', null);
  assert.equal(x.legend.max, formatCell(rangeOf(stageOf(trace, 'x', null).values)));
  assert.deepEqual([x.legend.note, x.legend.why], ['own', 'centred on 0, to its own largest |value|']);
});
