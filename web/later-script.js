// The later script's entry (attention-stepper-later.js, see later/load.js): the real modules of
// app/later-views.js that the first bundles leave to it, as one global. Its views are made
// through checkedView: the first bundles' stand-ins (later/deferred-view.js) forward only the view
// contract. formulas: the stage formulas typeset at build time that the first bundles do not
// hold (typeset.js).
import {
  createChapterPanel,
  createExplainPanel,
  createKvCalculator,
  createNotation,
  createPruning,
  exportMenuData,
} from './app/later-views.js';
import { checkedView } from './later/deferred-view.js';
import { LATER_FORMULAS } from 'attention-stepper:later-formulas';

const VIEWS = { createChapterPanel, createExplainPanel, createKvCalculator, createNotation, createPruning };

globalThis.attentionStepperLater = Object.freeze({
  exportMenuData,
  views: Object.fromEntries(
    Object.entries(VIEWS).map(([name, create]) => [name, (host, options) => checkedView(name, create(host, options))]),
  ),
  formulas: LATER_FORMULAS,
});
