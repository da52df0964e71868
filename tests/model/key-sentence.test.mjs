// A paragraph as the page shows it: its key sentence, then the rest behind "More" (a chapter's
// lead, a stage's explanation).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHAPTERS } from '../../web/model/chapters.js';
import { keySentence } from '../../web/model/key-sentence.js';
import { stageById } from '../../web/model/stage-table.js';
import { traceOf } from './fixtures.mjs';

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

test('a mask of several rules says first how they combine, then each rule; one rule speaks for itself', () => {
  const keyOf = (preset) => {
    const trace = traceOf({ preset });
    const stage = trace.stages.find((s) => s.id === 'masked');
    return keySentence(stageById('masked').explanation({ config: trace.config, stage, tokens: [], labels: {} }));
  };
  const [windowKey, windowRest] = keyOf('masks-window');
  assert.equal(
    windowKey,
    'M combines the causal and sliding-window rules: query i sees key j only where every one of them ' +
      'allows it, and M holds \u2212\u221e everywhere else.',
  );
  assert.match(windowRest, /^A token may look only at itself/);
  assert.match(windowRest, /The window keeps no key more than W \u2212 1 = 2 tokens back \(W = 3\)/);
  assert.match(keyOf('masks-documents')[0], /^M combines the causal and packed-documents rules/);
  assert.match(keyOf('masks-causal')[0], /^A token may look only at itself and at earlier tokens/);
});
