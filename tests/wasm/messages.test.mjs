// Messages that echo a caller's text, through the engine: unknown cell fields refused like
// unknown spec fields; echoed names cut at 40 code points (never half a character: no U+FFFD)
// with hidden and direction-changing characters written as \uXXXX; designed tokens and other
// names holding a lone surrogate refused by index. After each the engine still serves the next
// preset exactly as before.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { servingCheck } from './support.mjs';

let engine;
let stillServes; // after each refusal: the next preset gives the trace it gave before any error
before(async () => {
  engine = await createEngine();
  stillServes = servingCheck(engine);
});

// The message of the Error call() throws.
function messageOf(call) {
  let message = null;
  assert.throws(call, (err) => {
    assert.ok(err instanceof Error);
    message = err.message;
    return true;
  });
  stillServes();
  return message;
}

// What the engine must never put raw into a message.
const HIDDEN = /[\u0000-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF\uFFFD]|\p{Cs}/u;
const CELL = { stage: 'scores', head: 0, row: 0, col: 0 };
const LESSON = { preset: 'lesson-multi-head' };

describe("explain: the cell's fields", () => {
  test('an unknown cell field is refused by name, listing the known ones', () => {
    assert.equal(
      messageOf(() => engine.explain(LESSON, { ...CELL, colour: 1 })),
      'cell: unknown field "colour" for a cell (known: col, head, row, stage, step)',
    );
  });

  test('the check comes before any other: a typo beside a bad stage names the typo', () => {
    assert.match(
      messageOf(() => engine.explain(LESSON, { stage: 'nope', rows: 0, col: 0 })),
      /^cell: unknown field "rows"/,
    );
  });

  test('the known fields, step included, are still taken', () => {
    assert.equal(typeof engine.explain(LESSON, CELL).value, 'number');
    assert.equal(
      typeof engine.explain({ preset: 'kv-cache-gqa' }, { stage: 'k_cache', head: 0, step: 1, row: 0, col: 0 }).value,
      'number',
    );
  });
});

describe('echoed names: cut on a code point, hidden characters shown', () => {
  const CUTS = [
    ['2-byte é', 'é'],
    ['3-byte 注', '注'],
    ['4-byte 😀 (a surrogate pair)', '😀'],
  ];
  for (const [name, ch] of CUTS) {
    test(`a preset id of ${name} is cut at 40 characters, never inside one`, () => {
      const message = messageOf(() => engine.run({ preset: `x${ch.repeat(60)}` }));
      assert.ok(message.startsWith(`preset: "x${ch.repeat(39)}" is not one of lesson-`), message);
      assert.doesNotMatch(message, HIDDEN);
    });
  }

  const CLASSES = [
    ['C0 control', '\u0007'],
    ['NUL', '\u0000'],
    ['DEL', '\u007F'],
    ['C1 control', '\u0085'],
    ['zero-width space', '\u200B'],
    ['right-to-left mark', '\u200F'],
    ['RLO', '\u202E'],
    ['LRE', '\u202A'],
    ['first-strong isolate', '\u2068'],
    ['pop isolate', '\u2069'],
    ['byte-order mark', '\uFEFF'],
    ['line separator', '\u2028'],
    ['Arabic letter mark', '\u061C'],
  ];
  const escapeOf = (c) => `\\u${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  for (const [name, c] of CLASSES) {
    test(`${name} (${escapeOf(c)}) is written out in an unknown field, a preset, a kind and a stage`, () => {
      const shown = `"a${escapeOf(c)}b"`;
      const messages = [
        messageOf(() => engine.run({ seqLen: 2, dModel: 4, [`a${c}b`]: 1 })),
        messageOf(() => engine.run({ preset: `a${c}b` })),
        messageOf(() => engine.forward({ kind: `a${c}b`, seqLen: 2, dModel: 4 })),
        messageOf(() => engine.explain(LESSON, { ...CELL, stage: `a${c}b` })),
        messageOf(() => engine.explain(LESSON, { ...CELL, [`a${c}b`]: 1 })),
      ];
      assert.ok(messages[0].startsWith(`spec: unknown field ${shown} for self-attention`), messages[0]);
      assert.ok(messages[1].startsWith(`preset: ${shown} is not one of`), messages[1]);
      assert.ok(messages[2].startsWith(`kind: ${shown} is not one of self,`), messages[2]);
      assert.ok(messages[3].startsWith(`stage: ${shown} is not a stage;`), messages[3]);
      assert.ok(messages[4].startsWith(`cell: unknown field ${shown} for a cell`), messages[4]);
      for (const m of messages) assert.doesNotMatch(m, HIDDEN);
    });
  }

  test('plain ASCII is echoed unchanged', () => {
    assert.ok(messageOf(() => engine.run({ preset: 'lesson-nope' })).startsWith('preset: "lesson-nope" is not one of'));
    assert.ok(
      messageOf(() => engine.run({ seqLen: 2, dModel: 4, 'a"b\\c': 1 })).startsWith('spec: unknown field "a"b\\c" for'),
    );
  });

  test('a long name full of hidden characters: 40 of them, each escaped', () => {
    const message = messageOf(() => engine.run({ preset: '\u202E'.repeat(1000) }));
    assert.ok(message.startsWith(`preset: "${'\\u202E'.repeat(40)}" is not one of`), message.slice(0, 80));
  });
});

describe('lone surrogates', () => {
  const LONE = [
    [
      'a high surrogate alone',
      ['the', '\uD800'],
      'tokens[1]: holds a lone surrogate (U+D800 at index 0); give well-formed text',
    ],
    [
      'a low surrogate inside a word',
      ['a\uDC00b', 'cat'],
      'tokens[0]: holds a lone surrogate (U+DC00 at index 1); give well-formed text',
    ],
    [
      'a high surrogate ending a word',
      ['the', 'cat', 'sat\uD83D'],
      'tokens[2]: holds a lone surrogate (U+D83D at index 3); give well-formed text',
    ],
    [
      'a pair reversed',
      ['\uDE00\uD83D'],
      'tokens[0]: holds a lone surrogate (U+DE00 at index 0); give well-formed text',
    ],
  ];
  for (const [name, tokens, message] of LONE) {
    test(`designed tokens: ${name} is refused by index`, () => {
      assert.equal(
        messageOf(() => engine.run({ kind: 'designed', tokens })),
        message,
      );
      assert.equal(
        messageOf(() => engine.forward({ kind: 'designed', tokens })),
        message,
      );
      assert.equal(
        messageOf(() => engine.pruneEach({ kind: 'designed', tokens })),
        message,
      );
    });
  }

  test('a surrogate pair (one character) is a word like any other', () => {
    const trace = engine.run({ kind: 'designed', tokens: ['😀', 'cat', '😀'] });
    assert.ok(trace.stages.length > 0);
    assert.equal(trace.config.seqLen, 3);
  });

  test('a preset, a kind, a stage and a field name holding one are refused, not garbled', () => {
    assert.equal(
      messageOf(() => engine.run({ preset: 'lesson\uD800' })),
      'preset: holds a lone surrogate (U+D800 at index 6); give well-formed text',
    );
    assert.equal(
      messageOf(() => engine.run({ kind: '\uDC00', seqLen: 2, dModel: 4 })),
      'kind: holds a lone surrogate (U+DC00 at index 0); give well-formed text',
    );
    assert.equal(
      messageOf(() => engine.explain(LESSON, { ...CELL, stage: 'q\uD800' })),
      'stage: holds a lone surrogate (U+D800 at index 1); give well-formed text',
    );
    assert.ok(
      messageOf(() => engine.run({ seqLen: 2, dModel: 4, '\uDBFFx': 1 })).startsWith(
        'spec: unknown field holding a lone surrogate (U+DBFF at index 0) for self-attention (known: ',
      ),
    );
  });
});
