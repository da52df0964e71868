// What the page's form shows is what the engine runs: each preset's form, read back as a custom
// configuration, asks for exactly the preset's spec; and where the words build X (the designed
// heads), new words reach the engine however they arrive (typed, or in a link).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { chapterById } from '../../web/model/chapters.js';
import { fieldsOf } from '../../web/model/fields.js';
import { buildSteps } from '../../web/model/navigation.js';
import { catalogFrom } from '../../web/model/presets.js';
import { stageView } from '../../web/model/stage-view.js';
import { validateForm } from '../../web/model/validate.js';
import { changeField, presetForm } from '../../web/state/form.js';
import { stateFromHash } from '../../web/state/url-hash.js';

const engine = await createEngine();
const catalog = catalogFrom(engine);

describe('every preset: its form shows the spec it runs', () => {
  for (const p of catalog.presets) {
    test(p.id, () => {
      const form = presetForm(catalog, p.id);
      assert.equal(form.chapter, p.chapter);
      const { ok, errors, spec } = validateForm(catalog, { ...form, preset: 'custom' });
      assert.ok(ok, `the form is valid: ${JSON.stringify(errors)}`);
      // A field the chapter's form does not offer (the ablation in decoding) is left to the engine.
      const offered = new Set(fieldsOf(chapterById(p.chapter)).map((f) => f.spec));
      for (const [key, value] of Object.entries(p.spec))
        if (spec[key] !== undefined || offered.has(key)) assert.deepEqual(spec[key], value, `spec.${key}`);
      // What one states and the other leaves out (weightScale 0.1, skip 0, …) is the engine's default.
      const fromForm = engine.run(spec);
      const fromPreset = engine.run({ preset: p.id });
      assert.deepEqual(fromForm.config, fromPreset.config, 'config');
      fromForm.stages.forEach((s, i) => assert.deepEqual(s.values, fromPreset.stages[i].values, s.id));
    });
  }
});

describe('designed heads: new words of the same count build X', () => {
  const words = ['a', 'rose', 'is', 'a', 'red', 'rose'];
  // X = [position one-hot (6) | word one-hot (4: a, rose, is, red) | 1]: (6, 11).
  const wordColumn = (x, r) => Array.from(x.values.slice(r * 11 + 6, r * 11 + 10)).indexOf(1);
  const cases = {
    typed: () => changeField(catalog, presetForm(catalog, 'designed-heads'), 'tokens', words.join(' ')),
    linked: () =>
      stateFromHash(catalog, '#chapter=designed-heads&preset=designed-heads&tokens=a+rose+is+a+red+rose').form,
    'typed under the causal preset': () =>
      changeField(catalog, presetForm(catalog, 'designed-heads-causal'), 'tokens', words.join(' ')),
  };
  for (const [how, formOf] of Object.entries(cases)) {
    test(how, () => {
      const form = formOf();
      assert.equal(form.preset, 'custom', 'new words are no longer the preset');
      const { spec } = validateForm(catalog, form);
      assert.deepEqual(spec.tokens, words);
      const x = engine.run(spec).stages.find((s) => s.id === 'x');
      assert.deepEqual(x.shape, [6, 11]);
      assert.equal(wordColumn(x, 0), wordColumn(x, 3), 'both "a" rows share a column');
      assert.equal(wordColumn(x, 1), wordColumn(x, 5), 'both "rose" rows share a column');
      assert.deepEqual(
        [0, 1, 2, 4].map((r) => wordColumn(x, r)),
        [0, 1, 2, 3],
        'four distinct words',
      );
    });
  }
  test('the same words keep the preset, and a new count of drawn tokens keeps only labels', () => {
    const same = changeField(catalog, presetForm(catalog, 'designed-heads'), 'tokens', 'the cat sat on the mat');
    assert.equal(same.preset, 'designed-heads');
    const relabelled = changeField(catalog, presetForm(catalog, 'lesson-self-attention'), 'tokens', 'a b c d e');
    assert.equal(relabelled.preset, 'lesson-self-attention', 'drawn X: the words are labels only');
  });
});

// Issue 35: the note under Tokens tells what an edit changes, and the engine agrees: the same count
// of other words changes no number; a new count keeps X's first rows (numpy draws X first, row by
// row) and draws every weight anew, so every score changes.
test('tokens: the note under the field says what the engine does with other words and a new count', () => {
  const { hint } = fieldsOf(chapterById('attention')).find((f) => f.field === 'tokens');
  assert.match(hint, /^labels only while their number stays: other words of the same count change no number/);
  assert.match(
    hint,
    /a new count keeps the first rows of X but draws W_Q, W_K, W_V and W_O anew: every score changes$/,
  );
  const runOf = (words) =>
    engine.run(
      validateForm(catalog, changeField(catalog, presetForm(catalog, 'lesson-self-attention'), 'tokens', words)).spec,
    );
  const [base, relabelled, longer] = [runOf('a b c d e'), runOf('one two three four five'), runOf('a b c d e f')];
  const values = (trace) => trace.stages.flatMap((s) => Array.from(s.values));
  assert.deepEqual(values(relabelled), values(base), 'other words, the same count: every number the same');
  const stage = (trace, id) => trace.stages.find((s) => s.id === id && (s.head ?? 0) === 0);
  assert.deepEqual(
    Array.from(stage(longer, 'x').values.slice(0, 5 * stage(base, 'x').shape[1])),
    Array.from(stage(base, 'x').values),
    "one more word: X's first five rows kept",
  );
  const weight = (trace) => stage(trace, 'q').operands.find((o) => o.name === 'W_Q').values[0];
  assert.notEqual(weight(longer), weight(base), 'one more word: W_Q drawn anew');
  assert.notEqual(stage(longer, 'scores').values[0], stage(base, 'scores').values[0], 'and the first score changes');
  // Cross-attention: a new source count keeps X_q and X_kv's first rows, and draws the weights anew.
  const cross = (keyLen) => engine.run({ kind: 'cross', seed: 42, queryLen: 3, keyLen, dModel: 8, numHeads: 2 });
  const [five, six] = [cross(5), cross(6)];
  assert.deepEqual(stage(six, 'x_q').values, stage(five, 'x_q').values);
  assert.deepEqual(Array.from(stage(six, 'x_kv').values.slice(0, 40)), Array.from(stage(five, 'x_kv').values));
  assert.notEqual(weight(six), weight(five));
  const keyHint = fieldsOf(chapterById('cross')).find((f) => f.field === 'keyTokens').hint;
  assert.match(keyHint, /a new count keeps X_q and the first rows of X_kv but draws every weight anew$/);
});

describe('designed heads: what X\u2019s explanation says of repeated words follows the words', () => {
  const explanationOfX = (tokens) => {
    const trace = engine.run({ kind: 'designed', tokens, causal: false });
    const steps = buildSteps(trace);
    const index = steps.findIndex((s) => s.id === 'x');
    const ctx = { trace, tokens: { T: tokens }, theme: 'light', selection: null, explained: null, models: [] };
    return stageView(steps, index, ctx).explanation;
  };
  test('the lesson\u2019s sentence: both \u201cthe\u201ds', () =>
    assert.match(
      explanationOfX(['the', 'cat', 'sat', 'on', 'the', 'mat']),
      /the rows of \u201cthe\u201d \(tokens 0, 4\) share a word column/,
    ));
  test('two repeated words, one of them in another case', () => {
    const text = explanationOfX(['A', 'rose', 'is', 'a', 'red', 'rose']);
    assert.match(text, /the rows of \u201cA\u201d \(tokens 0, 3\) and of \u201crose\u201d \(tokens 1, 5\) share/);
    assert.doesNotMatch(text, /the\u201ds/);
  });
  test('no repeated word', () =>
    assert.match(explanationOfX(['one', 'two', 'three']), /no word repeats here, so every token has a word column/));
});
