// Stands in, in the first bundles, for the views no first view shows (scripts/bundle.mjs swaps
// their imports in mount-stepper.js): the chapter panels, the KV-cache calculator, head pruning
// and explain-a-number. Their code comes with the later script (./deferred-view.js).
import { deferredView } from './deferred-view.js';

export const createChapterPanel = deferredView('createChapterPanel');
export const createKvCalculator = deferredView('createKvCalculator');
export const createPruning = deferredView('createPruning');
export const createExplainPanel = deferredView('createExplainPanel');
