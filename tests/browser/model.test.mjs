// The page's pure layers (model, state) against the real engine's traces, without a browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requireDist } from './harness.mjs';
import { alignEquation } from '../../web/model/dims.js';
import { explainView } from '../../web/model/explain-view.js';
import { formatCell, parseCell } from '../../web/model/format.js';
import { matrixView } from '../../web/model/matrix-view.js';
import { buildSteps, findStepIndex, stageListView } from '../../web/model/navigation.js';
import { cellColours } from '../../web/model/palette.js';
import { PRESETS } from '../../web/model/presets.js';
import { STAGES, stageById } from '../../web/model/stage-table.js';
import { stageView } from '../../web/model/stage-view.js';
import { validateForm } from '../../web/model/validate.js';
import { changeField, presetForm } from '../../web/state/form.js';
import { hashFromState, stateFromHash } from '../../web/state/url-hash.js';

requireDist();
const { createEngine } = await import('../../dist/engine.js');
const engine = await createEngine();

const SPECS = [
  ...PRESETS.map((p) => ({ preset: p.id })),
  { seed: 7, seqLen: 6, dModel: 12, numHeads: 3, dK: 5, dV: 2, causal: true, outputProjection: true, scaleScores: false },
];

test('stage table: every stage the engine traces has an entry, and explainable ones explain', () => {
  for (const spec of SPECS) {
    const trace = engine.run(spec);
    for (const stage of trace.stages) {
      const entry = stageById(stage.id);
      assert.ok(entry, `${JSON.stringify(spec)}: stage ${stage.id} missing from the stage table`);
      if (entry.explainable) {
        const e = engine.explain(spec, { stage: stage.id, head: stage.head, row: 0, col: stage.shape[1] - 1 });
        const view = explainView(e, { stageId: stage.id, head: stage.head, row: 0, col: stage.shape[1] - 1, config: trace.config, tokens: [], label: entry.result });
        assert.match(view.filledTex, /=/, `${stage.id}: filled formula`);
      }
    }
  }
});

test('shape equations: numbers and symbols zip token by token on every stage', () => {
  for (const spec of SPECS) {
    for (const stage of engine.run(spec).stages) {
      const tokens = alignEquation(stage.equation, stage.symbolic);
      assert.ok(tokens, `${stage.id}: ${stage.equation} | ${stage.symbolic}`);
      const text = tokens.map((t) => (t.kind === 'dim' ? t.value : t.text)).join('');
      assert.equal(text, stage.equation);
      for (const t of tokens.filter((x) => x.kind === 'dim' && x.symbol !== x.value)) {
        assert.ok(t.parts.every((p) => p.dim), `${stage.id}: ${t.symbol} has a colour`);
      }
    }
  }
});

test('stage views: every step of every spec builds, with operands and a result', () => {
  for (const spec of SPECS) {
    const trace = engine.run(spec);
    const steps = buildSteps(trace);
    const tokens = Array.from({ length: trace.config.seqLen }, (_, i) => `w${i}`);
    for (const step of steps) {
      for (const showContributions of [false, true]) {
        const view = stageView(steps, step.index, { trace, tokens, theme: 'light', selection: null, explained: null, showContributions });
        const result = view.figure.find((i) => i.result);
        assert.deepEqual([result.data.rows, result.data.cols], step.stage.shape);
        assert.equal(result.data.cells[0].text, formatCell(step.stage.values[0]));
      }
    }
    const list = stageListView(steps, steps.length - 1, 0, trace.config.numHeads);
    assert.ok(list.groups.length >= 2);
  }
});

test('numbers: three decimals with a real minus, −∞, and back', () => {
  assert.equal(formatCell(0.4967141530112327), '0.497');
  assert.equal(formatCell(-0.1382643011711847), '\u22120.138');
  assert.equal(formatCell(-Infinity), '\u2212\u221e');
  assert.equal(parseCell('\u22120.138'), -0.138);
  assert.equal(parseCell('\u2212\u221e'), -Infinity);
});

test('palette: every fill keeps its ink at 4.5:1 or more, in both themes', () => {
  const lum = (rgb) => rgb.map((c) => c / 255).map((s) => (s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4))
    .reduce((acc, v, i) => acc + v * [0.2126, 0.7152, 0.0722][i], 0);
  const parse = (css) => (css.startsWith('#') ? [1, 3, 5].map((i) => parseInt(css.slice(i, i + 2), 16)) : css.match(/\d+/g).map(Number));
  for (const theme of ['light', 'dark']) {
    for (let t = -1; t <= 1.0001; t += 0.01) {
      const { fill, ink } = cellColours(t, 1, theme);
      const [a, b] = [lum(parse(fill)), lum(parse(ink))];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      assert.ok(ratio >= 4.5, `${theme} t=${t.toFixed(2)}: ${fill} with ${ink} is ${ratio.toFixed(2)}:1`);
    }
  }
});

test('matrix view: a wrong number of values throws and names the matrix', () => {
  assert.throws(
    () => matrixView({ key: 'k', name: 'scores', shape: [2, 3], values: new Float64Array(5), tokens: [], theme: 'light' }),
    /matrix k: 5 values for shape \(2, 3\)/,
  );
});

test('validation: rules are named, the engine config comes out when valid', () => {
  const form = { ...presetForm('lesson-multi-head'), preset: 'custom' };
  assert.match(validateForm({ ...form, dModel: '15' }).errors.heads, /d_model must be divisible by heads/);
  assert.match(validateForm({ ...form, tokens: '   ' }).errors.tokens, /between 1 and 64 tokens/);
  assert.match(validateForm({ ...form, dK: '2.5' }).errors.dK, /d_k must be a whole number/);
  assert.match(validateForm({ ...form, seed: '-1' }).errors.seed, /seed must be a whole number/);
  const ok = validateForm({ ...form, dK: '', tokens: 'a b c' });
  assert.deepEqual(ok.spec, { seed: 42, seqLen: 3, dModel: 16, numHeads: 4, dV: 4, causal: false, outputProjection: true, scaleScores: true });
  assert.deepEqual(validateForm(presetForm('lesson-causal')).spec, { preset: 'lesson-causal' });
});

test('form: editing a preset keeps it only for same-count tokens', () => {
  const base = presetForm('lesson-multi-head');
  assert.equal(changeField(base, 'tokens', 'a b c d e').preset, 'lesson-multi-head');
  assert.equal(changeField(base, 'tokens', 'a b c').preset, 'custom');
  assert.equal(changeField(base, 'causal', true).preset, 'custom');
  assert.equal(changeField(base, 'preset', 'lesson-causal').tokens, 'the cat sat down');
});

test('url hash: the declared fields round-trip', () => {
  for (const hash of [
    '#preset=lesson-multi-head&stage=weights&head=2',
    '#preset=lesson-causal&tokens=I+saw+it+rain&stage=masked&head=0&cell=2.1',
    '#tokens=a+b+c&dModel=8&heads=2&dK=4&dV=&causal=1&seed=7&scale=0&wo=1&stage=output&head=1&sum=1',
  ]) {
    assert.equal(hashFromState(stateFromHash(hash)), hash);
  }
  const s = stateFromHash('#preset=lesson-self-attention&tokens=only+three+words');
  assert.equal(s.form.preset, 'custom', 'a preset with the wrong token count becomes custom');
});

test('navigation: steps follow the trace; unknown (id, head) falls back', () => {
  const steps = buildSteps(engine.run({ preset: 'lesson-multi-head' }));
  assert.equal(steps.length, 1 + 4 * 7 + 2);
  assert.equal(steps[findStepIndex(steps, 'weights', 2)].head, 2);
  assert.deepEqual(steps[findStepIndex(steps, 'masked', 1)].stage.id, 'weights');
  assert.equal(steps[findStepIndex(steps, 'masked', 1)].head, 1);
  assert.equal(findStepIndex(steps, 'nonsense', 0), 0);
  const noProjection = buildSteps(engine.run({ preset: 'lesson-self-attention' }));
  assert.equal(noProjection[findStepIndex(noProjection, 'output', 0)].id, noProjection.at(-1).id);
  assert.equal(STAGES.filter((s) => s.group === 'head').length, 8);
});
