// Cell colours: contrast in both themes and ramps, and which ramp a stage gets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSteps, findStepIndex } from '../../web/model/navigation.js';
import { cellColours, sequentialColours } from '../../web/model/palette.js';
import { stageView } from '../../web/model/stage-view.js';
import { tokensFor, traceOf } from './fixtures.mjs';

test('palette: every fill keeps its ink at 4.5:1 or more, in both themes and both ramps', () => {
  const lum = (rgb) =>
    rgb
      .map((c) => c / 255)
      .map((s) => (s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4))
      .reduce((acc, v, i) => acc + v * [0.2126, 0.7152, 0.0722][i], 0);
  const parse = (css) =>
    css.startsWith('#') ? [1, 3, 5].map((i) => parseInt(css.slice(i, i + 2), 16)) : css.match(/\d+/g).map(Number);
  for (const theme of ['light', 'dark']) {
    for (let t = -1; t <= 1.0001; t += 0.01) {
      for (const [ramp, { fill, ink }] of [
        ['diverging', cellColours(t, 1, theme)],
        ['sequential', sequentialColours((t + 1) / 2, 1, theme)],
      ]) {
        const [a, b] = [lum(parse(fill)), lum(parse(ink))];
        const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        assert.ok(ratio >= 4.5, `${theme} ${ramp} t=${t.toFixed(2)}: ${fill} with ${ink} is ${ratio.toFixed(2)}:1`);
      }
    }
  }
});

test('palette: weights use the sequential ramp from 0, scores the diverging one', () => {
  const trace = traceOf({ preset: 'lesson-multi-head' });
  const steps = buildSteps(trace);
  const at = (id) =>
    stageView(steps, findStepIndex(steps, id, 0), {
      trace,
      tokens: tokensFor(trace.config),
      theme: 'light',
      selection: null,
      explained: null,
      showContributions: false,
      preset: null,
      models: [],
    });
  const weights = at('weights').figure.find((i) => i.result).data;
  assert.equal(weights.legend.min, '0.000');
  assert.match(weights.legend.gradient, /#f6f6f4, #f9dcb8/);
  const fills = new Set(weights.cells.map((c) => c.fill));
  assert.ok(fills.size > 5, `the lesson's near-uniform weights get ${fills.size} distinct fills`);
  const scores = at('scores').figure.find((i) => i.result).data;
  assert.match(scores.legend.gradient, /#1d5b9e/);
});
