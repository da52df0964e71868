// The later script's entry (see ./load.js): its exports as one global. formulas: the stage
// formulas typeset at build time that the first bundles do not hold (web/typeset.js).
import { exportMenuData } from '../app/export-data.js';
import { createChapterPanel } from '../views/chapter-panel.js';
import { createExplainPanel } from '../views/explain-panel.js';
import { createKvCalculator } from '../views/kv-calculator.js';
import { createPruning } from '../views/pruning.js';
import { LATER_FORMULAS } from 'attention-stepper:later-formulas';

globalThis.attentionStepperLater = Object.freeze({
  exportMenuData,
  views: { createChapterPanel, createExplainPanel, createKvCalculator, createPruning },
  formulas: LATER_FORMULAS,
});
