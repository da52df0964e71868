// The Open edX recipe's grader (docs/embedding.md): its Python, read from the problem XML there,
// run by python3 on answers in the shape getGrade and edX give it (web/lms/jsinput.js).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const guide = readFileSync(path.join(ROOT, 'docs', 'embedding.md'), 'utf8');
const recipe = guide.slice(guide.indexOf('**Open edX (JSInput).**'));
const python = /<!\[CDATA\[\n([\s\S]*?)\]\]>/.exec(recipe)[1];
const cfn = /<customresponse cfn="(\w+)">/.exec(recipe)[1];

// edX passes ans as JSON { answer: getGrade()'s text, state: getState()'s text }.
function grade(g) {
  const ans = JSON.stringify({ answer: JSON.stringify(g), state: '{}' });
  const call = `${python}\nimport json as _j\nprint(_j.dumps(${cfn}(None, ${JSON.stringify(ans)})))`;
  return JSON.parse(execFileSync('python3', ['-c', call], { encoding: 'utf8' }));
}

const base = { chapter: 'attention', preset: 'lesson-causal', total: 5 };

test('the recipe grades a finished quiz by its share right first time, and asks for the rest first', () => {
  assert.deepEqual(grade({ ...base, answered: 5, correct: 4, score: 0.8 }), {
    ok: true,
    grade_decimal: 0.8,
    msg: '4 of 5 right at the first try.',
  });
  assert.equal(grade({ ...base, answered: 5, correct: 3, score: 0.6 }).ok, false);
  assert.deepEqual(grade({ ...base, answered: 2, correct: 2, score: 0.4 }), {
    ok: false,
    msg: 'Answer every question first: 2 of 5 so far.',
  });
});
