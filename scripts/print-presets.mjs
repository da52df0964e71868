// Prints the engine's presets as JSON (engine.presets() from dist/engine.js), so that
// scripts/make-reference.py reads the sizes from the one place they are defined.
// Usage: node scripts/print-presets.mjs   (after the engine is built)
import { createEngine } from '../dist/engine.js';

const engine = await createEngine();
process.stdout.write(`${JSON.stringify(engine.presets())}\n`);
