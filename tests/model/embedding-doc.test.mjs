// docs/embedding.md's table of configuration fields: each row's chapters are the chapters whose form
// holds that field (web/model/chapters.js through fieldsOf), "all" and "all but …" included.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CHAPTERS } from '../../web/model/chapters.js';
import { FIELDS, fieldsOf } from '../../web/model/fields.js';

const DOC = readFileSync(new URL('../../docs/embedding.md', import.meta.url), 'utf8');

// Each row: its hash keys (`ropeOffset`, `ropeDims`) and its chapters, notes in parentheses left out.
const rows = DOC.split('\n')
  .filter((line) => /^\| [^|]+ \| `/.test(line))
  .map((line) => line.split('|').map((cell) => cell.trim()))
  .filter((cells) => cells.length === 6) // | field | hash key | attribute | chapters |
  .map(([, , keys, , chapters]) => ({
    keys: [...keys.matchAll(/`([^`]+)`/g)].map((m) => m[1]),
    chapters: chapters.replace(/\([^)]*\)/g, '').trim(),
  }));

const ids = CHAPTERS.map((c) => c.id);
function listed(text) {
  if (text === 'all') return ids;
  const but = /^all but (.+)$/.exec(text);
  if (but) {
    const out = but[1].split(/,| and /).map((s) => s.trim());
    return ids.filter((id) => !out.includes(id));
  }
  return text.split(',').map((s) => s.trim());
}

test('embedding.md: each field\u2019s chapters are the chapters whose form holds it', () => {
  const checked = rows.filter((r) => r.keys.some((k) => FIELDS.some((f) => f.hash === k)));
  assert.ok(checked.length >= 25, `${checked.length} rows read`);
  const wrong = checked.flatMap(({ keys, chapters }) => {
    const field = FIELDS.find((f) => f.hash === keys[0]);
    const holding = CHAPTERS.filter((c) => fieldsOf(c).some((f) => f.field === field.field)).map((c) => c.id);
    const said = listed(chapters);
    const same = said.length === holding.length && said.every((id) => holding.includes(id));
    return same ? [] : [`${keys.join(', ')}: says ${said.join(', ')}; the forms: ${holding.join(', ')}`];
  });
  assert.deepEqual(wrong, []);
});
