// The Trained heads chapter's lead, against the engine: the task's sequences (a block of 4–8
// tokens twice in a row, at a random place) and the heads the shipped run formed (layer 0's heads
// toward the previous token, head 0 most; both layer-1 heads induction heads).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { chapterById } from '../../web/model/chapters.js';
import { readCheckpoint } from '../../web/training/checkpoint.js';

const SHIPPED = readCheckpoint(
  JSON.parse(readFileSync(new URL('../../web/checkpoints/induction.json', import.meta.url))),
);
const LEAD = chapterById('trained-heads').lead;

let engine;
before(async () => {
  engine = await createEngine();
});

// Whether a holds a block of n tokens at p repeated at once after it; the first p where one of 4–8 does.
const repeatsAt = (a, p, n) => p + 2 * n <= a.length && a.slice(p, p + n).join() === a.slice(p + n, p + 2 * n).join();
const blockStart = (a) => a.findIndex((_, p) => [4, 5, 6, 7, 8].some((n) => repeatsAt(a, p, n)));

const TASK_TITLE =
  'the lead\u2019s task: every sequence holds a block of 4\u20138 tokens twice in a row, at places that vary';
test(TASK_TITLE, () => {
  assert.match(
    LEAD,
    /random token sequences in which a block of 4\u20138 tokens appears twice in a row, at a random place/,
  );
  const { tokens } = engine.taskBatch(SHIPPED.spec, { count: 200 });
  const starts = tokens.map((s) => blockStart(Array.from(s)));
  assert.equal(starts.length, 200);
  assert.ok(
    starts.every((p) => p >= 0),
    'a sequence without a repeated block',
  );
  assert.ok(new Set(starts).size >= 8, `the block starts at ${[...new Set(starts)].join(', ')} only`);
});

test('the lead\u2019s heads: the shipped run\u2019s last checkpoint, as the engine scored it', () => {
  assert.match(
    LEAD,
    /turned layer 0\u2019s heads toward the previous token \(head 0 most\) and both layer-1 heads into induction heads/,
  );
  const scores = SHIPPED.history.at(-1).headScores;
  const of = (layer, head) => scores.find((h) => h.layer === layer && h.head === head);
  const kinds = ['previousToken', 'firstToken', 'induction', 'self'];
  const best = (h) => kinds.reduce((a, b) => (h[b] > h[a] ? b : a));
  assert.equal(best(of(0, 0)), 'previousToken');
  assert.equal(best(of(0, 1)), 'previousToken');
  assert.ok(of(0, 0).previousToken > of(0, 1).previousToken, 'head 0 most');
  for (const head of [0, 1]) {
    assert.equal(best(of(1, head)), 'induction', `layer 1 head ${head}`);
    assert.ok(of(1, head).induction >= 0.5, `layer 1 head ${head}: ${of(1, head).induction}`);
  }
});
