// POS-1: what the masked stage and the softmax say they read is what the engine read. Under ALiBi
// the mask is added to S̃ + B (the masked stage's operand `biased`), and without a mask the
// softmax reads S̃ + B itself (the weights' operand `biased`); otherwise S̃ and L as before.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { stageById } from '../../web/model/stage-table.js';

let engine;
before(async () => {
  engine = await createEngine();
});

const SPECS = [
  { preset: 'positions-alibi' },
  { preset: 'backward-window-alibi' },
  { preset: 'lesson-causal' },
  { preset: 'lesson-multi-head' },
  { seed: 13, seqLen: 4, dModel: 8, numHeads: 2, alibi: true },
  { seed: 13, seqLen: 4, dModel: 8, numHeads: 2, alibi: true, causal: true },
];

for (const spec of SPECS)
  test(`POS-1: ${JSON.stringify(spec)}: the mask and the softmax name the logits the engine read`, () => {
    const { config, stages } = engine.run(spec);
    const reads = (id) => stages.find((s) => s.id === id)?.operands[0].name;
    const weights = stageById('weights').formula(config);
    if (reads('masked')) {
      const masked = stageById('masked').formula(config);
      assert.equal(masked.startsWith('L = \\tilde S + B + M'), reads('masked') === 'biased', masked);
      assert.equal(masked.startsWith('L = \\tilde S + M'), reads('masked') === 'scaled', masked);
      assert.match(weights, /e\^\{L_\{ij\}/);
    } else {
      const biased = reads('weights') === 'biased';
      assert.equal(/e\^\{\(\\tilde S \+ B\)_\{ij\}/.test(weights), biased, weights);
      assert.equal(/e\^\{\\tilde S_\{ij\}/.test(weights), !biased, weights);
    }
  });
