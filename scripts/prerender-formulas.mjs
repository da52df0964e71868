// Typesets the stage table's formulas at build time, so the page shows them typeset without
// KaTeX's runtime before its first paint (web/typeset.js). A formula depends on the config's
// shape only (kind, heads, grouping, mask, scaling, W_O), not on its numbers: the presets of the
// chapters the engine's core serves (CORE_CHAPTERS, whose first view does not wait for KaTeX)
// and a few variants of each meet all of theirs. KaTeX's inline styles become data-s attributes
// (typeset.js sets them through the CSSOM, which the strict CSP allows).
//   prerenderFormulas(engine) → { tex: html } with the options createFormula passes to render;
//   firstFormulas(engine) → the TeX of the formulas a first view may show (FIRST_STAGES);
//   prerenderedModule(first, faces, fonts), laterModule(later) → the bundles' modules (scripts/bundle.mjs).
import katex from 'katex';
import { CORE_CHAPTERS, CORE_PRESETS } from '../web/engine-split.js';
import { FIRST_STAGES } from '../web/later/first-view.js';
import { STAGES } from '../web/model/stage-table.js';

const OPTIONS = { displayMode: true, throwOnError: true, output: 'htmlAndMathml' };
const VARIANTS = [
  {},
  { causal: true },
  { causal: false },
  { scaleScores: false },
  { outputProjection: false },
  { prunedHeads: [0] },
  { numHeads: 1, numKvHeads: 1 },
];

// Every config the variants give, and the stages their traces hold.
function traces(engine) {
  const out = [];
  for (const preset of engine.presets().filter((p) => CORE_CHAPTERS.includes(p.chapter))) {
    for (const variant of VARIANTS) {
      try {
        out.push(engine.run({ ...preset.spec, ...variant }));
      } catch {
        // a variant this kind refuses (a mask in cross-attention, heads in flash): nothing to meet
      }
    }
  }
  return out;
}

// The formulas of the lesson's opening stages (FIRST_STAGES: web/later/first-view.js): the first
// bundles hold them, and their fonts' glyphs come before the first paint (scripts/subset-fonts.mjs).
export function firstFormulas(engine) {
  const byId = new Map(STAGES.map((s) => [s.id, s]));
  const texs = new Set();
  for (const id of CORE_PRESETS) {
    const trace = engine.run({ preset: id });
    for (const stage of trace.stages.filter((st) => FIRST_STAGES.includes(st.id)))
      texs.add(byId.get(stage.id).formula(trace.config, stage));
  }
  return [...texs];
}

const STYLE = /\sstyle=(?:"([^"]*)"|'([^']*)')/g;

export function prerenderFormulas(engine) {
  const formulas = {};
  const byId = new Map(STAGES.map((s) => [s.id, s]));
  for (const trace of traces(engine)) {
    for (const stage of trace.stages) {
      const tex = byId.get(stage.id)?.formula(trace.config, stage);
      if (tex === undefined || tex in formulas) continue;
      formulas[tex] = katex.renderToString(tex, OPTIONS).replace(STYLE, (_, a, b) => ` data-s="${a ?? b}"`);
    }
  }
  return formulas;
}

/** The module the bundles import as attention-stepper:prerendered-formulas; faces: the font
 * files (dist/ paths) of the first stages' formulas, fonts: those faces' descriptors and characters
 * (scripts/subset-fonts.mjs). */
export function prerenderedModule(formulas, faces = [], fonts = []) {
  return (
    '// Made by scripts/prerender-formulas.mjs.\n' +
    `export const PRERENDERED = ${JSON.stringify(formulas)};\n` +
    `export const FIRST_FACES = ${JSON.stringify(faces)};\n` +
    `export const FIRST_FONTS = ${JSON.stringify(fonts)};\n`
  );
}

/** The later script's module (web/later-script.js): the formulas the first bundles leave out. */
export function laterModule(formulas) {
  return `// Made by scripts/prerender-formulas.mjs.\nexport const LATER_FORMULAS = ${JSON.stringify(formulas)};\n`;
}
