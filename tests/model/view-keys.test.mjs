// The view keys (web/state/view-keys.js) as the URL hash and the element's attributes read them:
// one table, one name for the decode step or tile in both (step; links' old t still read), one
// whole-number reader, the stage ids of the stage table in both messages. Over the recorded
// catalog (tests/fixtures/traces/catalog.json): no build, no browser.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { FIELDS } from '../../web/model/fields.js';
import { STAGES } from '../../web/model/stage-table.js';
import { ATTRIBUTES, readAttributes } from '../../web/state/attributes.js';
import { presetForm } from '../../web/state/form.js';
import { elementAttributes } from '../../web/state/snippet.js';
import { hashFromState, stateFromHash } from '../../web/state/url-hash.js';
import { ATTRIBUTE_VIEW_KEYS, HASH_VIEW_KEYS, VIEW_KEYS, hashViewKey, wholeNumber } from '../../web/state/view-keys.js';
import { catalog } from './fixtures.mjs';

const read = (attrs) => readAttributes(catalog, (name) => attrs[name] ?? null);
const notes = (hash) => stateFromHash(catalog, hash).form.linkNotes ?? [];
const KV = '#chapter=kv-cache&preset=kv-cache-gqa&stage=k_cache&head=2';
const ALL_STAGES = STAGES.map((s) => s.id).join(', ');

describe('view keys: one table', () => {
  test('every key names its state, its type and where it is read; names and states are unique', () => {
    for (const prop of ['name', 'state']) {
      const values = VIEW_KEYS.map((k) => k[prop]);
      assert.equal(new Set(values).size, values.length, `${prop}s are unique`);
    }
    for (const k of VIEW_KEYS) {
      assert.ok(['stage', 'whole', 'cell', 'switch', 'quiz'].includes(k.type), `${k.name}: type ${k.type}`);
      assert.ok(k.hash || k.attribute, `${k.name}: read somewhere`);
      if (k.type === 'whole') assert.ok(k.counts && k.shown && 'fallback' in k, `${k.name}: its messages`);
    }
    assert.deepEqual(
      VIEW_KEYS.map((k) => k.name),
      ['stage', 'head', 'step', 'cell', 'sum', 'quiz', 'large'],
    );
  });

  test('the hash and the attributes take their view keys from it, with the same names', () => {
    for (const k of ATTRIBUTE_VIEW_KEYS) assert.ok(ATTRIBUTES.includes(k.name), k.name);
    const linkKeys = notes('#nope=1')[0];
    for (const k of HASH_VIEW_KEYS) assert.match(linkKeys, new RegExp(`\\b${k.name}\\b`), k.name);
    assert.doesNotMatch(linkKeys, /\bt\b/, 'the old name is read, not offered');
    for (const k of VIEW_KEYS.filter((x) => x.hash && x.attribute)) {
      assert.ok(!FIELDS.some((f) => f.hash === k.name || f.attribute === k.name), `${k.name}: no field's name`);
    }
  });

  test('large type: a link says large=1, reads back on, and says nothing when it is off', () => {
    const base = { form: presetForm(catalog, 'lesson-multi-head'), stage: 'scores', head: 0 };
    const on = hashFromState(catalog, { ...base, large: true });
    assert.match(on, /&large=1$/);
    assert.equal(stateFromHash(catalog, on).large, true);
    assert.doesNotMatch(hashFromState(catalog, { ...base, large: false }), /large/);
    assert.equal(stateFromHash(catalog, '#preset=lesson-multi-head&large=0').large, false);
  });

  test('whole numbers: 1 to 9 digits, spaces around allowed; anything else is none', () => {
    for (const [text, n] of [
      ['0', 0],
      ['7', 7],
      [' 12 ', 12],
      ['007', 7],
      ['999999999', 999999999],
    ])
      assert.equal(wholeNumber(text), n, JSON.stringify(text));
    for (const text of [null, '', ' ', '-1', '+1', '1.5', '1e3', '0x10', '1 2', '\uff13', '9999999999', 'NaN'])
      assert.equal(wholeNumber(text), null, JSON.stringify(text));
  });
});

describe('view keys: the decode step or tile is step in links and attributes', () => {
  test('a link writes step, and reads it back', () => {
    const s = stateFromHash(catalog, `${KV}&step=3`);
    assert.deepEqual([s.stage, s.head, s.time, s.form.linkNotes], ['k_cache', 2, 3, undefined]);
    assert.equal(hashFromState(catalog, s), `${KV}&step=3`);
  });

  test('an old link\u2019s t still opens its step, and is written back as step', () => {
    const s = stateFromHash(catalog, `${KV}&t=3`);
    assert.deepEqual([s.time, s.form.linkNotes], [3, undefined]);
    assert.equal(hashFromState(catalog, s), `${KV}&step=3`);
    assert.equal(hashViewKey('t').name, 'step');
    assert.equal(hashViewKey('time'), null);
  });

  test('step and t are one key: the first wins, the second is noted', () => {
    const s = stateFromHash(catalog, `${KV}&t=1&step=2`);
    assert.equal(s.time, 1);
    assert.deepEqual(s.form.linkNotes, ['step: given more than once; the first, "1", is used.']);
  });

  test('a bad step is noted under the name the link used', () => {
    assert.deepEqual(notes(`${KV}&t=third`), ['t: "third" is not a whole number; the first step is shown.']);
    assert.deepEqual(notes(`${KV}&step=-1`), ['step: "-1" is not a whole number; the first step is shown.']);
    assert.equal(stateFromHash(catalog, `${KV}&step=-1`).time, null);
  });

  test('the element reads step with the same reader', () => {
    const r = read({ chapter: 'kv-cache', stage: 'k_cache', head: '2', step: ' 3 ' });
    assert.deepEqual([r.errors, r.wanted.stage, r.wanted.head, r.wanted.time], [[], 'k_cache', 2, 3]);
    assert.deepEqual(read({ chapter: 'kv-cache', step: 'third' }).errors, [
      'step: "third" is not a whole number (decode steps and tiles count from 0).',
    ]);
    assert.equal(read({ chapter: 'kv-cache', step: '-1' }).wanted.time, null);
  });

  test('an element snippet names the step as the element reads it', () => {
    const form = stateFromHash(catalog, KV).form;
    const attrs = elementAttributes(catalog, form, { stage: 'k_cache', head: 2, time: 3 });
    assert.deepEqual(attrs, [
      ['chapter', 'kv-cache'],
      ['preset', 'kv-cache-gqa'],
      ['stage', 'k_cache'],
      ['head', '2'],
      ['step', '3'],
    ]);
    const back = read(Object.fromEntries(attrs));
    assert.deepEqual([back.errors, back.wanted.stage, back.wanted.head, back.wanted.time], [[], 'k_cache', 2, 3]);
  });
});

describe('view keys: the rest of the view', () => {
  test('stage: a bad id is named, with every stage id of the stage table, in both', () => {
    assert.deepEqual(notes('#preset=lesson-causal&stage=nope'), [
      `stage: "nope" is not a stage id (${ALL_STAGES}); the first stage is shown.`,
    ]);
    assert.deepEqual(read({ stage: 'nope' }).errors, [`stage: "nope" is not a stage; the stages are ${ALL_STAGES}.`]);
    assert.equal(stateFromHash(catalog, '#preset=lesson-causal&stage=nope').stage, null);
  });

  test('head: a whole number within the configuration\u2019s heads, else head 0', () => {
    assert.equal(stateFromHash(catalog, '#preset=lesson-multi-head&head=3').head, 3);
    assert.equal(stateFromHash(catalog, '#preset=lesson-multi-head&head=%203').head, 3, 'as the element reads it');
    assert.deepEqual(notes('#preset=lesson-multi-head&head=4'), [
      'head: 4 is not a head of this configuration (heads 0 to 3); head 0 is shown.',
    ]);
    assert.equal(stateFromHash(catalog, '#preset=lesson-multi-head&head=4').head, 0);
    assert.equal(stateFromHash(catalog, '#preset=lesson-multi-head').head, 0);
    assert.equal(read({ preset: 'lesson-multi-head' }).wanted.head, 0);
  });

  test('cell, sum and quiz: links only but quiz, which the element reads too', () => {
    const s = stateFromHash(catalog, '#preset=lesson-multi-head&stage=output&head=1&cell=2.3&sum=1&quiz=1');
    assert.deepEqual([s.selection, s.showContributions, s.quiz], [{ row: 2, col: 3 }, true, true]);
    assert.equal(
      hashFromState(catalog, s),
      '#chapter=attention&preset=lesson-multi-head&stage=output&head=1&cell=2.3&sum=1&quiz=1',
    );
    const off = stateFromHash(catalog, '#preset=lesson-multi-head&sum=0&quiz=false');
    assert.deepEqual([off.showContributions, off.quiz, off.form.linkNotes], [false, false, undefined]);
    assert.equal(stateFromHash(catalog, '#preset=lesson-multi-head&quiz=true').quiz, true, 'as a flag field reads');
    assert.deepEqual(notes('#preset=lesson-multi-head&sum=yes'), ['sum: "yes" is not 1 or 0; read as 0.']);
    assert.deepEqual(
      [read({ quiz: '' }), read({ quiz: 'false' }), read({})].map((r) => [r.errors, r.wanted.quiz]),
      [
        [[], true],
        [[], false],
        [[], false],
      ],
    );
    assert.ok(!ATTRIBUTES.includes('cell') && !ATTRIBUTES.includes('sum'));
  });
});
