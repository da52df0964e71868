// Stands in for web/app/later-views.js in the bundles that paint the first stage: scripts/bundle.mjs
// swaps that one file for this one, so mount-stepper.js gets these names from here. The export
// menu is drawn at once, its data and files wait (./export-menu.js, ./export-data.js); the views
// no first view shows (the chapter panels, the KV-cache calculator, head pruning, explain-a-number,
// the notation table)
// draw nothing until the later script brings them (./deferred-view.js).
import { deferredView } from './deferred-view.js';

export { createExportMenu } from './export-menu.js';
export { exportMenuData } from './export-data.js';
export const createChapterPanel = deferredView('createChapterPanel');
export const createExplainPanel = deferredView('createExplainPanel');
export const createKvCalculator = deferredView('createKvCalculator');
export const createPruning = deferredView('createPruning');
export const createNotation = deferredView('createNotation');
