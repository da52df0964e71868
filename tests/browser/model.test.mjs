// The page's pure layers (model, state) against the real engine's traces, without a browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import katex from 'katex';
import { requireDist } from './harness.mjs';
import { alignEquation } from '../../web/model/dims.js';
import { explainView } from '../../web/model/explain-view.js';
import { formatCell, parseCell } from '../../web/model/format.js';
import { matrixView } from '../../web/model/matrix-view.js';
import { buildSteps, findStepIndex, stageListView } from '../../web/model/navigation.js';
import { cellColours, sequentialColours } from '../../web/model/palette.js';
import { CHAPTERS } from '../../web/model/chapters.js';
import { FIELDS } from '../../web/model/fields.js';
import { panelView, scaledGeometry } from '../../web/model/panels.js';
import { catalogFrom } from '../../web/model/presets.js';
import { STAGES, stageById } from '../../web/model/stage-table.js';
import { stageView } from '../../web/model/stage-view.js';
import { validateForm } from '../../web/model/validate.js';
import { changeField, modelForm, presetForm } from '../../web/state/form.js';
import { hashFromState, stateFromHash } from '../../web/state/url-hash.js';

requireDist();
const { createEngine } = await import('../../dist/engine.js');
const engine = await createEngine();
const catalog = catalogFrom(engine);

const SPECS = [
  ...catalog.presets.map((p) => ({ preset: p.id })),
  { seed: 7, seqLen: 6, dModel: 12, numHeads: 3, dK: 5, dV: 2, causal: true, outputProjection: true, scaleScores: false },
  { kind: 'cross', seed: 3, queryLen: 3, keyLen: 5, dModel: 6, numHeads: 3, dK: 2, dV: 3, validKeys: 4, outputProjection: true, scaleScores: false },
  { seed: 5, seqLen: 4, dModel: 12, numHeads: 6, numKvHeads: 2, causal: true, outputProjection: true },
  { kind: 'encoder-layer', seed: 9, seqLen: 3, dModel: 10, numHeads: 2, dK: 3, dV: 4, dFF: 7, causal: true },
];
const tokensFor = (c) => ({ T: Array.from({ length: c.seqLen }, (_, i) => `w${i}`), T_q: Array.from({ length: c.seqLen }, (_, i) => `q${i}`), T_kv: Array.from({ length: c.kvLen }, (_, i) => `k${i}`) });

test('stage table: every stage the engine traces has an entry, and explainable ones explain', () => {
  for (const spec of SPECS) {
    const trace = engine.run(spec);
    for (const stage of trace.stages) {
      const entry = stageById(stage.id);
      assert.ok(entry, `${JSON.stringify(spec)}: stage ${stage.id} missing from the stage table`);
      if (entry.explainable) {
        const e = engine.explain(spec, { stage: stage.id, head: stage.head, step: stage.step, row: 0, col: stage.shape[1] - 1 });
        const view = explainView(e, { stageId: stage.id, head: stage.head, row: 0, col: stage.shape[1] - 1, config: trace.config, keyTokens: [], label: entry.result });
        assert.match(view.filledTex, /=/, `${stage.id}: filled formula`);
        assert.ok(!view.filledTex.includes('undefined') && !view.filledTex.includes('NaN'), `${stage.id}: ${view.filledTex}`);
      }
    }
  }
});

test('TeX: every formula and every explain line of every spec typesets in KaTeX without an error', () => {
  const typeset = (tex, what) => assert.doesNotThrow(() => katex.renderToString(tex, { throwOnError: true }), `${what}: ${tex}`);
  for (const spec of SPECS) {
    const trace = engine.run(spec);
    for (const stage of trace.stages) {
      const entry = stageById(stage.id);
      typeset(entry.formula(trace.config), `${stage.id} formula`);
      if (!entry.explain) continue;
      const [rows, cols] = stage.shape;
      for (const [row, col] of [[0, 0], [rows - 1, cols - 1], [0, cols - 1]]) {
        const e = engine.explain(spec, { stage: stage.id, head: stage.head, step: stage.step, row, col });
        const view = explainView(e, { stageId: stage.id, head: stage.head, row, col, config: trace.config, keyTokens: [], label: entry.result });
        typeset(view.symbolicTex, `${stage.id} symbolic`);
        typeset(view.filledTex, `${stage.id} filled`);
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
    const tokens = tokensFor(trace.config);
    for (const step of steps) {
      for (const showContributions of [false, true]) {
        const view = stageView(steps, step.index, { trace, tokens, theme: 'light', selection: null, explained: null, showContributions, preset: null, models: catalog.models });
        const result = view.figure.find((i) => i.result);
        assert.deepEqual([result.data.rows, result.data.cols], step.stage.shape);
        assert.equal(result.data.cells[0].text, formatCell(step.stage.values[0]));
        const operands = view.figure.filter((i) => i.kind === 'matrix' && !i.result);
        const shown = stageById(step.id).figure(trace.config).filter((i) => i.operand !== undefined || i.list).length;
        assert.ok(operands.length >= shown, `${step.id}: operands in the figure`);
        assert.ok(!/undefined|\bnull\b/.test(view.explanation), `${step.id}: ${view.explanation}`);
      }
    }
    const list = stageListView(steps, steps.length - 1, 0, trace.config);
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

test('palette: every fill keeps its ink at 4.5:1 or more, in both themes and both ramps', () => {
  const lum = (rgb) => rgb.map((c) => c / 255).map((s) => (s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4))
    .reduce((acc, v, i) => acc + v * [0.2126, 0.7152, 0.0722][i], 0);
  const parse = (css) => (css.startsWith('#') ? [1, 3, 5].map((i) => parseInt(css.slice(i, i + 2), 16)) : css.match(/\d+/g).map(Number));
  for (const theme of ['light', 'dark']) {
    for (let t = -1; t <= 1.0001; t += 0.01) {
      for (const [ramp, { fill, ink }] of [['diverging', cellColours(t, 1, theme)], ['sequential', sequentialColours((t + 1) / 2, 1, theme)]]) {
        const [a, b] = [lum(parse(fill)), lum(parse(ink))];
        const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        assert.ok(ratio >= 4.5, `${theme} ${ramp} t=${t.toFixed(2)}: ${fill} with ${ink} is ${ratio.toFixed(2)}:1`);
      }
    }
  }
});

test('matrix view: a wrong number of values throws and names the matrix', () => {
  assert.throws(
    () => matrixView({ key: 'k', name: 'scores', shape: [2, 3], values: new Float64Array(5), tokens: [], theme: 'light' }),
    /matrix k: 5 values for shape \(2, 3\)/,
  );
});

test('validation: rules are named, the engine spec comes out when valid', () => {
  const form = { ...presetForm(catalog, 'lesson-multi-head'), preset: 'custom' };
  const errors = (patch) => validateForm(catalog, { ...form, ...patch }).errors;
  assert.match(errors({ dModel: '15' }).heads, /d_model must be divisible by heads/);
  assert.deepEqual(errors({ dModel: '15', dK: '4', dV: '4' }), {}, 'with d_k and d_v given, d_model need not divide');
  assert.match(errors({ tokens: '   ' }).tokens, /between 1 and 512 tokens/);
  assert.match(errors({ dK: '2.5' }).dK, /d_k must be a whole number/);
  assert.match(errors({ seed: '-1' }).seed, /seed must be a whole number/);
  const ok = validateForm(catalog, { ...form, tokens: 'a b c' });
  assert.deepEqual(ok.spec, { kind: 'self', seqLen: 3, dModel: 16, numHeads: 4, seed: 42, weightScale: 0.1, skip: 0, causal: false, outputProjection: true, scaleScores: true });
  assert.match(errors({ weightScale: '0' }).weightScale, /weight scale must be a number above 0 and at most 10/);
  assert.deepEqual(validateForm(catalog, { ...form, prunedHeads: '1, 3' }).spec.prunedHeads, [1, 3]);
  assert.match(errors({ prunedHeads: '4' }).prunedHeads, /between 0 and 3/);
  assert.match(errors({ prunedHeads: 'one' }).prunedHeads, /head numbers separated by commas/);
  assert.deepEqual(validateForm(catalog, presetForm(catalog, 'lesson-causal')).spec, { preset: 'lesson-causal' });
});

test('validation per chapter: K/V heads divide heads; valid keys fit the source; the spec has the chapter\u2019s kind', () => {
  const gqa = { ...presetForm(catalog, 'gqa-4-2'), preset: 'custom' };
  assert.match(validateForm(catalog, { ...gqa, kvHeads: '3' }).errors.kvHeads, /K\/V heads must divide heads/);
  assert.equal(validateForm(catalog, { ...gqa, kvHeads: '1' }).spec.numKvHeads, 1);
  const cross = { ...presetForm(catalog, 'cross-padding'), preset: 'custom' };
  assert.match(validateForm(catalog, { ...cross, validKeys: '5' }).errors.validKeys, /at most the number of source tokens \(4\)/);
  assert.match(validateForm(catalog, { ...cross, keyTokens: '' }).errors.keyTokens, /T_kv = number of source tokens/);
  const spec = validateForm(catalog, { ...cross, keyTokens: 'a b c d e' }).spec;
  assert.deepEqual([spec.kind, spec.queryLen, spec.keyLen, spec.validKeys, spec.causal], ['cross', 2, 5, 3, undefined]);
  const layer = validateForm(catalog, { ...presetForm(catalog, 'encoder-layer'), preset: 'custom', dFF: '' }).spec;
  assert.deepEqual([layer.kind, layer.dFF, layer.outputProjection], ['encoder-layer', undefined, undefined], 'd_ff blank: the engine\u2019s 4 · d_model');
  for (const built of [spec, layer]) assert.ok(engine.run(built).stages.length > 0, 'the engine takes what the page builds');
});

test('fields: one table names every form field, hash key and attribute once; every chapter\u2019s fields exist', () => {
  for (const key of ['field', 'hash', 'attribute']) {
    const values = FIELDS.map((f) => f[key]);
    assert.equal(new Set(values).size, values.length, `${key}s are unique`);
  }
  for (const chapter of CHAPTERS) {
    for (const field of chapter.fields) assert.ok(FIELDS.some((f) => f.field === field), `${chapter.id}: ${field}`);
    assert.ok(catalog.presets.some((p) => p.chapter === chapter.id), `${chapter.id} has a preset from the engine`);
  }
  for (const p of catalog.presets) assert.ok(CHAPTERS.some((c) => c.id === p.chapter), `${p.id}: chapter ${p.chapter}`);
});

test('form: editing a preset keeps it only for same-count tokens; a chapter opens its first preset', () => {
  const base = presetForm(catalog, 'lesson-multi-head');
  assert.equal(changeField(catalog, base, 'tokens', 'a b c d e').preset, 'lesson-multi-head');
  assert.equal(changeField(catalog, base, 'tokens', 'a b c').preset, 'custom');
  assert.equal(changeField(catalog, base, 'causal', true).preset, 'custom');
  assert.equal(changeField(catalog, base, 'preset', 'lesson-causal').tokens, 'the cat sat down');
  const cross = changeField(catalog, base, 'chapter', 'cross');
  assert.deepEqual([cross.chapter, cross.preset, cross.tokens, cross.keyTokens], ['cross', 'cross-translation', 'le chat', 'the cat sat']);
  assert.equal(changeField(catalog, cross, 'keyTokens', 'a b c').preset, 'cross-translation');
  assert.equal(changeField(catalog, cross, 'keyTokens', 'a b').preset, 'custom');
});

test('url hash: the declared fields round-trip in every chapter', () => {
  for (const hash of [
    '#chapter=attention&preset=lesson-multi-head&stage=weights&head=2',
    '#chapter=attention&preset=lesson-causal&tokens=I+saw+it+rain&stage=masked&head=0&cell=2.1',
    '#chapter=attention&tokens=a+b+c&dModel=8&heads=2&dK=4&dV=&seed=7&ws=1&causal=1&wo=1&scale=0&prune=1&stage=output&head=1&sum=1',
    '#chapter=designed-heads&tokens=a+b+a&causal=1&prune=2&stage=weights&head=1',
    '#chapter=cross&preset=cross-padding&keys=un+deux+trois+pad&stage=masked&head=1',
    '#chapter=cross&tokens=a+b&keys=c+d+e&valid=2&dModel=8&heads=2&dK=&dV=&seed=1&ws=0.1&wo=0&scale=1&stage=weights&head=0',
    '#chapter=gqa&tokens=a+b+c&dModel=16&heads=8&kvHeads=2&dK=&dV=&seed=3&ws=0.1&causal=1&wo=1&scale=1&stage=k&head=5',
    '#chapter=encoder-layer&tokens=a+b&dModel=8&heads=2&dK=&dV=&dFF=12&seed=4&ws=0.1&causal=0&scale=1&stage=norm2&head=0',
    '#chapter=attention&tokens=a+b+c+d&dModel=8&heads=1&dK=4&dV=4&seed=42&ws=0.1&skip=1104&causal=1&wo=0&scale=1&stage=x&head=0',
  ]) {
    assert.equal(hashFromState(catalog, stateFromHash(catalog, hash)), hash);
  }
  const s = stateFromHash(catalog, '#preset=lesson-self-attention&tokens=only+three+words');
  assert.equal(s.form.preset, 'custom', 'a preset with the wrong token count becomes custom');
  assert.equal(stateFromHash(catalog, '#preset=gqa-4-2').form.chapter, 'gqa', 'a preset brings its chapter');
  assert.equal(stateFromHash(catalog, '#chapter=cross&preset=gqa-4-2').form.preset, 'cross-translation', 'a preset of another chapter is ignored');
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
  assert.deepEqual(STAGES.filter((s) => s.group === 'head').map((s) => s.id), ['q', 'k', 'v', 'k_new', 'v_new', 'k_cache', 'v_cache', 'scores', 'scaled', 'masked', 'weights', 'head']);
});

test('navigation with shared K/V: a query head\u2019s list holds its group\u2019s K and V, in the lesson\u2019s order', () => {
  const trace = engine.run({ preset: 'gqa-4-2' });
  const steps = buildSteps(trace);
  const k = steps[findStepIndex(steps, 'k', 3)];
  assert.deepEqual([k.id, k.head, k.kvHead], ['k', 2, 1], 'query head 3 reads K/V head 1, recorded at head 2');
  const list = stageListView(steps, findStepIndex(steps, 'scores', 3), 3, trace.config);
  const head = list.groups.find((g) => g.id === 'head');
  assert.equal(head.title, 'Head 3 of 4');
  assert.deepEqual(head.items.map((i) => i.label.split(' (')[0]), ['Queries Q', 'Keys K', 'Values V', 'Scores', 'Scaled scores', 'Attention weights', 'Weighted values']);
  assert.match(head.items[1].label, /K\/V head 1, shared/);
});

test('panels: cross marks padding keys; GQA groups and sizes are the engine\u2019s; the layer marks its part', () => {
  const cross = engine.run({ preset: 'cross-padding' });
  const seq = panelView({ chapterId: 'cross', config: cross.config, tokens: { T_q: ['le', 'chat'], T_kv: ['the', 'black', 'cat', '<pad>'] } });
  assert.deepEqual(seq.keys.map((k) => k.padding), [false, false, false, true]);
  assert.equal(seq.shape, '2 \u00d7 4');
  const gqa = engine.run({ preset: 'gqa-4-2' }).config;
  const groups = panelView({ chapterId: 'gqa', config: gqa, head: 3, models: catalog.models, loadedModel: null });
  assert.deepEqual(groups.groups.map((g) => g.heads.map((h) => h.head)), [[0, 1], [2, 3]]);
  assert.deepEqual(groups.sizes.rows.map((r) => r.slice(1)), [[String(gqa.kv.params), String(gqa.kv.paramsMha)], [String(gqa.kv.cacheValues), String(gqa.kv.cacheValuesMha)]]);
  assert.equal(groups.models.length, 5);
  const layer = panelView({ chapterId: 'encoder-layer', config: engine.run({ preset: 'encoder-layer' }).config, stageId: 'ffn_hidden' });
  assert.deepEqual(layer.parts.map((p) => p.current), [false, false, true, false]);
  assert.deepEqual(layer.widths, ['16', '64', '16']);
});

test('real models: the geometry keeps query heads per K/V head, within 16 heads, and the engine runs it', () => {
  const expected = { 'gpt2-117m': [12, 12], 'gpt2-1.5b': [16, 16], 'gpt3-175b': [16, 16], 'llama3-8b': [16, 4], 'llama3-70b': [16, 2] };
  for (const model of catalog.models) {
    const g = scaledGeometry(model);
    assert.deepEqual([g.heads, g.kvHeads], expected[model.id], model.id);
    assert.equal(g.heads / g.kvHeads, model.numHeads / model.numKvHeads, `${model.id}: group size kept`);
    const checked = validateForm(catalog, modelForm(catalog, model));
    assert.deepEqual(checked.errors, {}, model.id);
    const config = engine.run(checked.spec).config;
    assert.deepEqual([config.numHeads, config.numKvHeads, config.dK, config.causal], [g.heads, g.kvHeads, 4, true]);
  }
  assert.equal(catalog.models.find((m) => m.id === 'gpt3-175b').scoreValues, 2048 * 2048 * 96 * 96);
});

test('palette: weights use the sequential ramp from 0, scores the diverging one', () => {
  const trace = engine.run({ preset: 'lesson-multi-head' });
  const steps = buildSteps(trace);
  const at = (id) => stageView(steps, findStepIndex(steps, id, 0), { trace, tokens: tokensFor(trace.config), theme: 'light', selection: null, explained: null, showContributions: false, preset: null, models: [] });
  const weights = at('weights').figure.find((i) => i.result).data;
  assert.equal(weights.legend.min, '0.000');
  assert.match(weights.legend.gradient, /#f6f6f4, #f9dcb8/);
  const fills = new Set(weights.cells.map((c) => c.fill));
  assert.ok(fills.size > 5, `the lesson's near-uniform weights get ${fills.size} distinct fills`);
  const scores = at('scores').figure.find((i) => i.result).data;
  assert.match(scores.legend.gradient, /#1d5b9e/);
});

test('CSV export: a token a spreadsheet would read as a formula stays text; numbers stay numbers', async () => {
  const { stageCsv } = await import('../../web/model/export/csv.js');
  const csv = stageCsv({ shape: [2, 2], values: Float64Array.from([-0.5, 1, -Infinity, 0]) }, ['=1+2', '@SUM(A1)'], ['+x', 'cat'], 'T');
  assert.equal(csv, "T,'+x,cat\r\n'=1+2,-0.5,1\r\n'@SUM(A1),-Infinity,0\r\n");
});
