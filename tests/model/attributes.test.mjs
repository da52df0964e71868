// The element's attribute table without a browser: what each attribute does to the
// configuration, the messages bad values get, and the stages subset, over the recorded catalog
// (tests/fixtures/traces/catalog.json). What the stepper then shows: tests/wasm/wanted.test.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHAPTERS } from '../../web/model/chapters.js';
import { presetForm } from '../../web/state/form.js';
import { ATTRIBUTES, readAttributes } from '../../web/state/attributes.js';
import { catalog } from './fixtures.mjs';

const read = (attrs) => readAttributes(catalog, (name) => attrs[name] ?? null);

test('attributes: none gives the default preset, compact controls, auto theme, all stages', () => {
  const r = read({});
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.wanted.form, presetForm(catalog, 'lesson-multi-head'));
  assert.equal(r.controls, 'compact');
  assert.equal(r.theme, 'auto');
  assert.equal(r.stages, null);
  assert.equal(r.wanted.stage, null, 'no stage asked: the first of the trace');
});

test('attributes: chapter picks its first preset; the output projection and the ablation have attributes', () => {
  assert.deepEqual(read({ chapter: 'cross' }).wanted.form, presetForm(catalog, 'cross-translation'));
  assert.equal(read({ preset: 'gqa-4-2' }).wanted.form.chapter, 'gqa');
  const r = read({ 'output-projection': 'false', 'no-scale': '' });
  assert.deepEqual(r.errors, []);
  assert.deepEqual(
    [r.wanted.form.outputProjection, r.wanted.form.noScale, r.wanted.form.preset],
    [false, true, 'custom'],
  );
  const gqa = read({ chapter: 'gqa', 'kv-heads': '1' });
  assert.deepEqual([gqa.errors, gqa.wanted.form.kvHeads], [[], '1']);
  const cross = read({ chapter: 'cross', 'key-tokens': 'a b c d', 'valid-keys': '2' });
  assert.deepEqual([cross.errors, cross.wanted.form.keyTokens, cross.wanted.form.validKeys], [[], 'a b c d', '2']);
  for (const name of ['chapter', 'output-projection', 'no-scale', 'kv-heads', 'd-ff', 'key-tokens', 'valid-keys'])
    assert.ok(ATTRIBUTES.includes(name), name);
});

test('attributes: step picks a decode step or tile; block sizes belong to FlashAttention', () => {
  const r = read({ chapter: 'kv-cache', stage: 'k_cache', head: '2', step: '3' });
  assert.deepEqual([r.errors, r.wanted.stage, r.wanted.head, r.wanted.time], [[], 'k_cache', 2, 3]);
  assert.deepEqual(read({ chapter: 'kv-cache', step: 'third' }).errors, [
    'step: "third" is not a whole number (decode steps and tiles count from 0).',
  ]);
  const flash = read({ chapter: 'flash', 'block-rows': '3', 'block-cols': '1' });
  assert.deepEqual([flash.errors, flash.wanted.form.blockRows, flash.wanted.form.blockCols], [[], '3', '1']);
  // B_r ≤ T is the engine's rule, shown when the element runs (tests/wasm/form-refusals.test.mjs).
  assert.deepEqual(read({ chapter: 'flash', 'block-rows': '9' }).errors, []);
  assert.deepEqual(read({ chapter: 'kv-cache', 'block-rows': '2' }).errors, [
    'block-rows: not a setting of chapter "kv-cache".',
  ]);
});

test('attributes: a chapter\u2019s own settings only, presets of that chapter only', () => {
  assert.deepEqual(read({ chapter: 'attention', 'd-ff': '32' }).errors, [
    'd-ff: not a setting of chapter "attention".',
  ]);
  assert.deepEqual(read({ chapter: 'cross', preset: 'gqa-4-2' }).errors, [
    'preset: "gqa-4-2" belongs to chapter "gqa", not "cross".',
  ]);
  assert.equal(
    read({ chapter: 'decoder' }).errors[0],
    `chapter: "decoder" is not one of ${CHAPTERS.map((c) => `"${c.id}"`).join(', ')}.`,
  );
  assert.deepEqual(read({ chapter: 'gqa', 'kv-heads': '3' }).errors, [], 'dividing heads: the engine\u2019s rule');
});

test('attributes: sizes start from the preset and make it custom; tokens of the same count keep it', () => {
  const custom = read({ preset: 'lesson-self-attention', heads: '2', causal: '' });
  assert.deepEqual(custom.errors, []);
  assert.equal(custom.wanted.form.preset, 'custom');
  assert.equal(custom.wanted.form.dModel, '8');
  assert.equal(custom.wanted.form.heads, '2');
  assert.equal(custom.wanted.form.causal, true);
  const retold = read({ preset: 'lesson-causal', tokens: 'a b c d', causal: 'true' });
  assert.equal(retold.wanted.form.preset, 'lesson-causal');
  assert.equal(retold.wanted.form.tokens, 'a b c d');
  assert.equal(read({ preset: 'lesson-causal', causal: 'false' }).wanted.form.causal, false);
});

test('attributes: every bad value gets a message that starts with its attribute', () => {
  const r = read({
    preset: 'x',
    'd-model': 'ten',
    heads: '0',
    seed: '-1',
    stage: 'nope',
    head: 'first',
    stages: 'scores,bogus',
    controls: 'all',
    theme: 'blue',
  });
  const names = r.errors.map((e) => e.split(':')[0]);
  assert.deepEqual(names, ['preset', 'd-model', 'heads', 'seed', 'stages', 'stage', 'head', 'controls', 'theme']);
  assert.deepEqual(read({ preset: 'lesson-multi-head', head: '4' }).errors, [
    'head: 4 is not a head of this configuration (heads 0 to 3).',
  ]);
});

test('stages: a subset, in the order given; the first is the stage wanted unless stage says', () => {
  const r = read({ preset: 'lesson-causal', stages: 'scores, masked,weights' });
  assert.deepEqual([r.errors, r.stages, r.wanted.stage], [[], ['scores', 'masked', 'weights'], 'scores']);
  assert.equal(read({ preset: 'lesson-causal', stages: 'scores,weights', stage: 'weights' }).wanted.stage, 'weights');
  assert.equal(read({ stages: ' ' }).stages, null, 'blank: every stage');
});

test('attributes: chapters keeps those tabs in order and opens the first; unknown or outside ones are named', () => {
  const r = read({ chapters: ' masks, attention ,masks' });
  assert.deepEqual([r.errors, r.chapters, r.wanted.form.chapter], [[], ['masks', 'attention'], 'masks']);
  assert.equal(read({ chapters: 'masks,attention', preset: 'lesson-causal' }).wanted.form.chapter, 'attention');
  assert.deepEqual(read({ chapters: 'masks,nope,flash2' }).errors, [
    `chapters: "nope", "flash2" are not chapters; the chapters are ${CHAPTERS.map((c) => `"${c.id}"`).join(', ')}.`,
  ]);
  assert.deepEqual(read({ chapters: 'masks', chapter: 'cross' }).errors, [
    'chapter: "cross" is not one of the chapters offered (chapters: masks).',
  ]);
  assert.equal(read({}).chapters, null, 'none: every chapter');
  assert.deepEqual(read({ controls: 'locked' }).controls, 'locked');
  assert.match(read({ controls: 'lock' }).errors[0], /^controls: "lock" is not one of .*"locked"\.$/);
});
