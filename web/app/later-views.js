// What no first view needs, as mount-stepper.js imports it: through this one file, because the
// bundles that paint the first stage swap it (scripts/bundle.mjs, LATER_SWAP) for
// web/later/stand-ins.js, which exports the same names and waits for the later script
// (web/later-script.js), the bundle that carries these real modules. Served from web/ sources,
// or in the later script, this file is what runs. A name added here needs its stand-in there
// (tests/model/later-views.test.mjs checks both export the same names).
export { exportMenuData } from './export-data.js';
export { createExportMenu } from '../views/export-menu.js';
export { createChapterPanel } from '../views/chapter-panel.js';
export { createExplainPanel } from '../views/explain-panel.js';
export { createKvCalculator } from '../views/kv-calculator.js';
export { createPruning } from '../views/pruning.js';
export { createNotation } from '../views/notation.js';
