// The bad-input table's URL hash and attribute cases (tests/browser/hostile-cases.mjs), read as
// the page reads them, without a browser: each link's notes and each form field's message come
// from stateFromHash and validateForm, each attribute's from readAttributes, all pure. What only
// a page can show (markup kept inert, the last good view kept, the engine's own messages) is
// tests/browser/hostile.test.mjs's, for the cases inBrowser names.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { splitTokens } from '../../web/model/tokens.js';
import { validateForm } from '../../web/model/validate.js';
import { readAttributes } from '../../web/state/attributes.js';
import { stateFromHash } from '../../web/state/url-hash.js';
import {
  ATTRIBUTE_BASE,
  ATTRIBUTE_CASES,
  BASES,
  HASH_CASES,
  escaped,
  hashOf,
  sameMessage,
} from '../browser/hostile-cases.mjs';
import { catalog } from './fixtures.mjs';

const title = (c, i) => `${i + 1}. ${escaped(JSON.stringify({ ...c, message: undefined })).slice(0, 110)}`;

function assertAmong(messages, c) {
  assert.ok(
    messages.some((m) => sameMessage(m, c.message)),
    `message ${JSON.stringify(escaped(c.message))} not among ${JSON.stringify(messages.map(escaped))}`,
  );
}

describe('hostile, parsed: the URL hash', () => {
  for (const base of Object.values(BASES))
    test(`the bases are good links: ${base}`, () => {
      const { form } = stateFromHash(catalog, base);
      assert.deepEqual([form.linkNotes, validateForm(catalog, form).errors], [undefined, {}]);
    });
  HASH_CASES.forEach((c, i) => {
    if (c.engine) return;
    test(title(c, i), () => {
      const { form } = stateFromHash(catalog, hashOf(c));
      const checked = validateForm(catalog, form);
      const messages = [...(form.linkNotes ?? []), ...Object.values(checked.errors)];
      if (c.accepted) {
        assert.deepEqual(messages, [], 'no message');
        assert.deepEqual(checked.tokens, c.accepted, 'the tokens, as given');
      } else assertAmong(messages, c);
    });
  });
});

describe('hostile, parsed: the element attributes', () => {
  const read = (set) => readAttributes(catalog, (name) => ({ ...ATTRIBUTE_BASE, ...set })[name] ?? null);
  test('the base attributes are good', () => assert.deepEqual(read({}).errors, []));
  ATTRIBUTE_CASES.forEach((c, i) => {
    test(title(c, i), () => {
      const { errors, wanted } = read(c.set);
      if (c.accepted) {
        assert.deepEqual(errors, [], 'no message');
        assert.deepEqual(splitTokens(wanted.form.tokens), c.accepted, 'the tokens, as given');
      } else assertAmong(errors, c);
    });
  });
});
