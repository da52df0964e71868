// The form, its validation into an engine spec, the fields table, the URL hash and the real
// models' geometry, over the recorded catalog (tests/fixtures/traces/catalog.json). Where the
// page builds a spec, the recorded runs (runOf) say the engine took it, and with what config.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHAPTERS, chapterById } from '../../web/model/chapters.js';
import { FIELDS, fieldsOf } from '../../web/model/fields.js';
import { scaledGeometry } from '../../web/model/panels.js';
import { validateForm } from '../../web/model/validate.js';
import { changeField, modelForm, presetForm } from '../../web/state/form.js';
import { hashFromState, stateFromHash } from '../../web/state/url-hash.js';
import { catalog, runOf } from './fixtures.mjs';

test('validation: rules are named, the engine spec comes out when valid', () => {
  const form = { ...presetForm(catalog, 'lesson-multi-head'), preset: 'custom' };
  const errors = (patch) => validateForm(catalog, { ...form, ...patch }).errors;
  // Rules between fields are the engine's (runForm puts its refusal under the field it names:
  // tests/wasm/form-refusals.test.mjs); the form checks each field by the engine's range.
  assert.deepEqual(errors({ dModel: '15' }), {}, 'heads dividing d_model: the engine\u2019s rule');
  assert.match(errors({ tokens: '   ' }).tokens, /^Enter between 1 and 1024 tokens/);
  assert.equal(
    errors({ heads: '65' }).heads,
    'heads h must be a whole number from 1 to 64.',
    'the engine\u2019s limit (catalog.limits.numHeads)',
  );
  assert.deepEqual(errors({ heads: '64', dModel: '64' }), {}, 'the engine\u2019s largest head count');
  assert.match(errors({ dK: '2.5' }).dK, /d_k must be a whole number/);
  assert.match(errors({ seed: '-1' }).seed, /seed must be a whole number/);
  const ok = validateForm(catalog, { ...form, tokens: 'a b c' });
  assert.deepEqual(ok.spec, {
    kind: 'self',
    seqLen: 3,
    dModel: 16,
    numHeads: 4,
    seed: 42,
    weightScale: 0.1,
    skip: 0,
    causal: false,
    outputProjection: true,
    scaleScores: true,
  });
  assert.match(errors({ weightScale: '0' }).weightScale, /weight scale must be a number above 0 and at most 10/);
  assert.deepEqual(validateForm(catalog, { ...form, prunedHeads: '1, 3' }).spec.prunedHeads, [1, 3]);
  assert.deepEqual(errors({ prunedHeads: '4' }), {}, 'a head past the last: the engine\u2019s rule');
  assert.match(errors({ prunedHeads: 'one' }).prunedHeads, /head numbers separated by commas/);
  assert.deepEqual(validateForm(catalog, presetForm(catalog, 'lesson-causal')).spec, { preset: 'lesson-causal' });
});

const PER_CHAPTER =
  'validation per chapter: the spec has the chapter\u2019s kind; rules between fields are left to the engine';
test(PER_CHAPTER, () => {
  const gqa = { ...presetForm(catalog, 'gqa-4-2'), preset: 'custom' };
  assert.deepEqual(
    validateForm(catalog, { ...gqa, kvHeads: '3' }).errors,
    {},
    'dividing heads: the engine\u2019s rule',
  );
  assert.equal(validateForm(catalog, { ...gqa, kvHeads: '1' }).spec.numKvHeads, 1);
  const cross = { ...presetForm(catalog, 'cross-padding'), preset: 'custom' };
  assert.match(validateForm(catalog, { ...cross, keyTokens: '' }).errors.keyTokens, /T_kv = number of source tokens/);
  const spec = validateForm(catalog, { ...cross, keyTokens: 'a b c d e' }).spec;
  assert.deepEqual([spec.kind, spec.queryLen, spec.keyLen, spec.validKeys, spec.causal], ['cross', 2, 5, 3, undefined]);
  const layer = validateForm(catalog, { ...presetForm(catalog, 'encoder-layer'), preset: 'custom', dFF: '' }).spec;
  assert.deepEqual(
    [layer.kind, layer.dFF, layer.outputProjection],
    ['encoder-layer', undefined, undefined],
    'd_ff blank: the engine\u2019s 4 · d_model',
  );
  for (const built of [spec, layer]) assert.ok(runOf(built).stageCount > 0, 'the engine takes what the page builds');
});

test('fields: one table names every form field, hash key and attribute once; every chapter\u2019s fields exist', () => {
  for (const key of ['field', 'hash', 'attribute']) {
    const values = FIELDS.map((f) => f[key]);
    assert.equal(new Set(values).size, values.length, `${key}s are unique`);
  }
  for (const chapter of CHAPTERS) {
    for (const field of chapter.fields)
      assert.ok(
        FIELDS.some((f) => f.field === field),
        `${chapter.id}: ${field}`,
      );
    assert.ok(
      catalog.presets.some((p) => p.chapter === chapter.id),
      `${chapter.id} has a preset from the engine`,
    );
  }
  for (const p of catalog.presets)
    assert.ok(
      CHAPTERS.some((c) => c.id === p.chapter),
      `${p.id}: chapter ${p.chapter}`,
    );
});

test('preset form: every field, from the field table; read back, each preset asks for its own spec', () => {
  for (const p of catalog.presets) {
    const form = presetForm(catalog, p.id);
    assert.deepEqual(Object.keys(form).sort(), ['chapter', 'preset', ...FIELDS.map((f) => f.field)].sort(), p.id);
    const { ok, errors, spec } = validateForm(catalog, { ...form, preset: 'custom' });
    assert.ok(ok, `${p.id}: ${JSON.stringify(errors)}`);
    const offered = new Set(fieldsOf(chapterById(p.chapter)).map((f) => f.spec));
    for (const [key, value] of Object.entries(p.spec))
      if (spec[key] !== undefined || offered.has(key)) assert.deepEqual(spec[key], value, `${p.id}: spec.${key}`);
  }
  const { chapter, preset, ...fields } = presetForm(catalog, 'lesson-causal');
  assert.deepEqual([chapter, preset], ['attention', 'lesson-causal']);
  assert.deepEqual(fields, {
    tokens: 'the cat sat down',
    keyTokens: '',
    validKeys: '',
    dModel: '8',
    heads: '1',
    kvHeads: '',
    dK: '4',
    dV: '4',
    dFF: '',
    dLatent: '',
    dRope: '0',
    blockRows: '',
    blockCols: '',
    seed: '42',
    weightScale: '0.1',
    skip: '1104',
    causal: true,
    outputProjection: false,
    noScale: false,
    prunedHeads: '',
    window: '',
    sinkTokens: '',
    prefix: '',
    documents: '',
    positionalEncoding: false,
    rope: false,
    ropeConvention: 'interleaved',
    ropeOffset: '0',
    ropeDims: '',
    alibi: false,
    qkNorm: false,
    qNormGain: '',
    kNormGain: '',
    softcap: '',
    sinks: '',
    checkpoint: 'trained',
    scored: '',
  });
  const layer = presetForm(catalog, 'encoder-layer');
  assert.deepEqual([layer.outputProjection, layer.skip, layer.dFF], [true, '0', '64'], 'the layer always has W_O');
  assert.deepEqual(presetForm(catalog, 'cross-padding').keyTokens.split(' ').length, 4);
});

test('form: editing a preset keeps it only for same-count tokens; a chapter opens its first preset', () => {
  const base = presetForm(catalog, 'lesson-multi-head');
  assert.equal(changeField(catalog, base, 'tokens', 'a b c d e').preset, 'lesson-multi-head');
  assert.equal(changeField(catalog, base, 'tokens', 'a b c').preset, 'custom');
  assert.equal(changeField(catalog, base, 'causal', true).preset, 'custom');
  assert.equal(changeField(catalog, base, 'preset', 'lesson-causal').tokens, 'the cat sat down');
  const cross = changeField(catalog, base, 'chapter', 'cross');
  assert.deepEqual(
    [cross.chapter, cross.preset, cross.tokens, cross.keyTokens],
    ['cross', 'cross-translation', 'le chat', 'the cat sat'],
  );
  assert.equal(changeField(catalog, cross, 'keyTokens', 'a b c').preset, 'cross-translation');
  assert.equal(changeField(catalog, cross, 'keyTokens', 'a b').preset, 'custom');
});

test('url hash: the declared fields round-trip in every chapter', () => {
  for (const hash of [
    '#chapter=attention&preset=lesson-multi-head&stage=weights&head=2',
    '#chapter=attention&preset=lesson-causal&tokens=I+saw+it+rain&stage=masked&head=0&cell=2.1',
    '#chapter=attention&tokens=a+b+c&dModel=8&heads=2&dK=4&dV=' +
      '&seed=7&ws=1&causal=1&wo=1&scale=0&prune=1&stage=output&head=1&sum=1',
    '#chapter=designed-heads&tokens=a+b+a&causal=1&prune=2&stage=weights&head=1',
    '#chapter=cross&preset=cross-padding&keys=un+deux+trois+pad&stage=masked&head=1',
    '#chapter=cross&tokens=a+b&keys=c+d+e&valid=2&dModel=8&heads=2&dK=&dV=' +
      '&seed=1&ws=0.1&wo=0&scale=1&stage=weights&head=0',
    '#chapter=gqa&tokens=a+b+c&dModel=16&heads=8&kvHeads=2&dK=&dV=&seed=3&ws=0.1&causal=1&wo=1&scale=1&stage=k&head=5',
    '#chapter=encoder-layer&tokens=a+b&dModel=8&heads=2&dK=&dV=&dFF=12' +
      '&seed=4&ws=0.1&causal=0&scale=1&stage=norm2&head=0',
    '#chapter=attention&tokens=a+b+c+d&dModel=8&heads=1&dK=4&dV=4' +
      '&seed=42&ws=0.1&skip=1104&causal=1&wo=0&scale=1&stage=x&head=0',
  ]) {
    assert.equal(hashFromState(catalog, stateFromHash(catalog, hash)), hash);
  }
  const s = stateFromHash(catalog, '#preset=lesson-self-attention&tokens=only+three+words');
  assert.equal(s.form.preset, 'custom', 'a preset with the wrong token count becomes custom');
  assert.equal(stateFromHash(catalog, '#preset=gqa-4-2').form.chapter, 'gqa', 'a preset brings its chapter');
  assert.equal(
    stateFromHash(catalog, '#chapter=cross&preset=gqa-4-2').form.preset,
    'cross-translation',
    'a preset of another chapter is ignored',
  );
});

test('real models: the geometry keeps query heads per K/V head, within 16 heads, and the engine runs it', () => {
  const expected = {
    'gpt2-124m': [12, 12],
    'gpt2-1.5b': [16, 16],
    'gpt3-175b': [16, 16],
    'llama3-8b': [16, 4],
    'llama3-70b': [16, 2],
    'mistral-7b': [16, 4],
  };
  for (const model of catalog.models) {
    const g = scaledGeometry(model);
    assert.deepEqual([g.heads, g.kvHeads], expected[model.id], model.id);
    assert.equal(g.heads / g.kvHeads, model.numHeads / model.numKvHeads, `${model.id}: group size kept`);
    const checked = validateForm(catalog, modelForm(catalog, model));
    assert.deepEqual(checked.errors, {}, model.id);
    const config = runOf(checked.spec).config;
    assert.deepEqual([config.numHeads, config.numKvHeads, config.dK, config.causal], [g.heads, g.kvHeads, 4, true]);
  }
  assert.equal(catalog.models.find((m) => m.id === 'gpt3-175b').scoreValues, 2048 * 2048 * 96 * 96);
});

test('validation: the model chapter sends a checkpoint the page holds as the model itself', () => {
  const form = { ...presetForm(catalog, null, 'trained-heads'), preset: 'custom', tokens: '3 5 3', scored: '1' };
  const model = { config: { vocab: 8 }, params: {} }; // passed through as it is: the engine checks it
  const held = { ...catalog, checkpoints: new Map([['run, step 600', model]]) };
  const run = validateForm(held, { ...form, checkpoint: 'run, step 600' });
  assert.deepEqual(run.errors, {});
  assert.equal(run.spec.model, model, 'the same object, not a copy');
  assert.deepEqual({ ...run.spec, model: null }, { kind: 'model', tokens: [3, 5, 3], model: null, scored: [1] });
  assert.equal(validateForm(held, { ...form, checkpoint: 'trained' }).spec.checkpoint, 'trained');
  assert.equal(validateForm(held, { ...form, checkpoint: 'trained' }).spec.model, undefined);
  // Not held (a name the page no longer holds, or no checkpoints at all): refused by the choice.
  assert.match(
    validateForm(catalog, { ...form, checkpoint: 'run, step 600' }).errors.checkpoint,
    /one of trained, untrained/,
  );
  // Only the model chapter reads them.
  const self = validateForm(held, { ...presetForm(catalog, 'lesson-multi-head'), checkpoint: 'run, step 600' });
  assert.equal(self.spec.model, undefined);
});

test('hash: chapters keeps a lecturer\u2019s tabs, opens the first, notes what it cannot use, is written back', () => {
  const read = (hash) => stateFromHash(catalog, hash);
  const two = read('#chapters=masks,attention');
  assert.deepEqual([two.chapters, two.form.chapter, two.form.linkNotes], [['masks', 'attention'], 'masks', undefined]);
  assert.equal(read('#chapters=masks,attention&preset=lesson-causal').form.preset, 'lesson-causal');
  const outside = read('#chapters=masks&chapter=cross');
  assert.deepEqual(
    [outside.form.chapter, outside.form.linkNotes],
    ['masks', ['chapter: cross is not one of the chapters offered (masks); masks is shown.']],
  );
  assert.deepEqual(read('#chapters=masks,nope,flash2').form.linkNotes, [
    'chapters: "nope", "flash2" are not chapters; left out.',
  ]);
  assert.equal(read('#chapter=masks').chapters, null, 'none: every chapter');
  const written = hashFromState(catalog, { ...two, head: 0, time: null });
  assert.match(written, /^#chapters=masks%2Cattention&chapter=masks&/);
  assert.deepEqual(read(written).chapters, ['masks', 'attention'], 'a link written reads back');
});

test('hash: controls=locked is the page read-only, written back; any other value is noted, full shown', () => {
  const locked = stateFromHash(catalog, '#controls=locked&preset=lesson-causal');
  assert.deepEqual([locked.controls, locked.form.linkNotes], ['locked', undefined]);
  assert.match(hashFromState(catalog, { ...locked, head: 0, time: null }), /^#controls=locked&chapter=attention&/);
  assert.equal(stateFromHash(catalog, '#preset=lesson-causal').controls, 'full');
  assert.doesNotMatch(hashFromState(catalog, { ...stateFromHash(catalog, '#'), head: 0, time: null }), /controls/);
  const bad = stateFromHash(catalog, '#controls=none');
  assert.deepEqual(
    [bad.controls, bad.form.linkNotes],
    ['full', ['controls: "none" is not one of full, locked; full is shown.']],
  );
});
