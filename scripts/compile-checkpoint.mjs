// Writes the shipped run's last model (web/checkpoints/induction.json) as C++ source the engine
// compiles in: every weight's float64 bits, in matrices_of's order (W_E, W_P, then per layer each
// head's W_Q, W_K, W_V and W_O, then W_U), so that the stepper's trained chapter needs no download.
// scripts/train-checkpoint.mjs runs it after each run; tests/model/checkpoint-source.test.mjs
// holds the two files equal.
//     node scripts/compile-checkpoint.mjs
import { readFileSync, writeFileSync } from 'node:fs';

import { namedParams } from '../web/model/model-params.js';

export const JSON_FILE = new URL('../web/checkpoints/induction.json', import.meta.url);
export const SOURCE_FILE = new URL('../cpp/src/checkpoint_induction.inc', import.meta.url);

// Each matrix's base64 text as its float64 values' bits, 16 hex digits each.
function bitsOf(base64) {
  const bytes = Buffer.from(base64, 'base64');
  const words = [];
  for (let at = 0; at < bytes.length; at += 8) words.push(bytes.readBigUInt64LE(at).toString(16).padStart(16, '0'));
  return words;
}

/** The source text for a checkpoint file's model. */
export function checkpointSource(file) {
  const { config, params } = file.model;
  const words = namedParams(params).flatMap(([, m]) => bitsOf(m.values));
  const lines = [];
  for (let at = 0; at < words.length; at += 4)
    lines.push(
      words
        .slice(at, at + 4)
        .map((w) => `0x${w}u`)
        .join(', ') + ',',
    );
  const sizes =
    `vocab ${config.vocab}, seqLen ${config.seqLen}, dModel ${config.dModel}, ` +
    `${config.numLayers} layers of ${config.numHeads} heads`;
  return (
    `// Written by scripts/compile-checkpoint.mjs from web/checkpoints/induction.json: the default\n` +
    `// induction run's last model (${sizes}),\n` +
    `// ${words.length} float64 weights as bits, in matrices_of's order.\n` +
    `${lines.join('\n')}\n`
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = checkpointSource(JSON.parse(readFileSync(JSON_FILE, 'utf8')));
  writeFileSync(SOURCE_FILE, text);
  console.log(`compile-checkpoint: ${text.length} bytes`);
}
