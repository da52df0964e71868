// A paragraph as the page shows it: its key sentence, then the rest behind "More" (a chapter's
// lead, a stage's explanation).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHAPTERS } from '../../web/model/chapters.js';
import { keySentence } from '../../web/model/key-sentence.js';

test('the first sentence ends at . ! or ? before a capital, not inside a number or an abbreviation', () => {
  assert.deepEqual(keySentence('Random weights × 0.1 make it uniform: correct. Here it is built.'), [
    'Random weights × 0.1 make it uniform: correct.',
    'Here it is built.',
  ]);
  assert.deepEqual(keySentence('One sentence (Shaw et al. 2018) only.'), ['One sentence (Shaw et al. 2018) only.', '']);
  assert.deepEqual(keySentence('Why? (Because.) Then.'), ['Why?', '(Because.) Then.']);
});

test('every chapter\u2019s lead splits into a key sentence of at most 60 words and the rest, losing no word', () => {
  for (const c of CHAPTERS) {
    const [first, rest] = keySentence(c.lead);
    assert.equal(`${first} ${rest}`.trim(), c.lead, c.id);
    assert.ok(first.split(/\s+/).length <= 60, `${c.id}: ${first.split(/\s+/).length} words`);
  }
});
