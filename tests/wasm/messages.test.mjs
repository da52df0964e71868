// The bindings' messages, asserted here once from their tables (messages.mjs): the wrong JS type,
// a missing field, a lone surrogate refused by index. And what the engine echoes of a caller's
// text, through the engine: unknown cell fields refused like unknown spec fields; echoed names
// cut at 40 code points (never half a character: no U+FFFD) with hidden and direction-changing
// characters written as \uXXXX (their wording: tests/native/test_message_text.cpp). After each
// refusal the engine still serves the next preset exactly as before.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { BINDING_MESSAGES, LONE_SURROGATES, LONE_SURROGATE_NAMES, TRAINING_MESSAGES } from './messages.mjs';
import { assertRefused } from './support.mjs';

let engine;
before(async () => {
  engine = await createEngine();
});

// The field a message names: its text before the first ": ".
const fieldOf = (message) => message.slice(0, message.indexOf(': '));

// call() is refused with exactly this message (a prefix when it ends in …), the engine serving on.
function assertMessage(call, want) {
  const got = assertRefused(engine, call, fieldOf(want));
  if (want.endsWith('…')) assert.ok(got.startsWith(want.slice(0, -1)), got);
  else assert.equal(got, want);
}

// The message of the Error call() throws, naming field; the engine serves on.
const messageOf = (call, field) => assertRefused(engine, call, field);

describe("the bindings' messages", () => {
  for (const [title, run, message, forward] of BINDING_MESSAGES) {
    test(title, () => {
      assertMessage(() => run(engine), message);
      if (forward) assertMessage(() => forward(engine), message);
    });
  }
});

describe("the training bindings' messages", () => {
  for (const [title, call, message] of TRAINING_MESSAGES) test(title, () => assertMessage(() => call(engine), message));
});

// What the engine must never put raw into a message.
const HIDDEN = /[\u0000-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF\uFFFD]|\p{Cs}/u;
const CELL = { stage: 'scores', head: 0, row: 0, col: 0 };
const LESSON = { preset: 'lesson-multi-head' };

describe("explain: the cell's fields", () => {
  test('the unknown-field check comes before any other: a typo beside a bad stage names the typo', () => {
    const message = messageOf(() => engine.explain(LESSON, { stage: 'nope', rows: 0, col: 0 }), 'cell');
    assert.ok(message.includes('"rows"'), message);
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
      const message = messageOf(() => engine.run({ preset: `x${ch.repeat(60)}` }), 'preset');
      assert.ok(message.includes(`"x${ch.repeat(39)}"`), message);
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
        messageOf(() => engine.run({ seqLen: 2, dModel: 4, [`a${c}b`]: 1 }), 'spec'),
        messageOf(() => engine.run({ preset: `a${c}b` }), 'preset'),
        messageOf(() => engine.forward({ kind: `a${c}b`, seqLen: 2, dModel: 4 }), 'kind'),
        messageOf(() => engine.explain(LESSON, { ...CELL, stage: `a${c}b` }), 'stage'),
        messageOf(() => engine.explain(LESSON, { ...CELL, [`a${c}b`]: 1 }), 'cell'),
      ];
      for (const m of messages) {
        assert.ok(m.includes(shown), m);
        assert.doesNotMatch(m, HIDDEN);
      }
    });
  }

  test('plain ASCII is echoed unchanged', () => {
    assert.ok(messageOf(() => engine.run({ preset: 'lesson-nope' }), 'preset').includes('"lesson-nope"'));
    const message = messageOf(() => engine.run({ seqLen: 2, dModel: 4, 'a"b\\c': 1 }), 'spec');
    assert.ok(message.includes('"a"b\\c"'), message);
  });

  test('a long name full of hidden characters: 40 of them, each escaped', () => {
    const message = messageOf(() => engine.run({ preset: '\u202E'.repeat(1000) }), 'preset');
    assert.ok(message.includes(`"${'\\u202E'.repeat(40)}"`), message.slice(0, 80));
    assert.ok(!message.includes('\\u202E'.repeat(41)), message.slice(0, 80));
  });
});

describe('lone surrogates', () => {
  for (const [name, tokens, message] of LONE_SURROGATES) {
    test(`designed tokens: ${name} is refused by index`, () => {
      assertMessage(() => engine.run({ kind: 'designed', tokens }), message);
      assertMessage(() => engine.forward({ kind: 'designed', tokens }), message);
      assertMessage(() => engine.pruneEach({ kind: 'designed', tokens }), message);
    });
  }

  test('a surrogate pair (one character) is a word like any other', () => {
    const trace = engine.run({ kind: 'designed', tokens: ['😀', 'cat', '😀'] });
    assert.ok(trace.stages.length > 0);
    assert.equal(trace.config.seqLen, 3);
  });

  for (const [name, call, message] of LONE_SURROGATE_NAMES)
    test(`${name} holding one is refused, not garbled`, () => assertMessage(() => call(engine), message));
});
