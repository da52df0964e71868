// The stepper's state changes as functions of (engine, catalog, state) that return a patch for
// the store. They hold no DOM and no math: the engine computes, the model shapes, these decide.

import { buildSteps, filterSteps, findStepIndex, clampStep, currentHead } from '../model/navigation.js';
import { stageById } from '../model/stage-table.js';
import { validateForm } from '../model/validate.js';
import { changeField, presetForm } from '../state/form.js';

const NO_SELECTION = { selection: null, explained: null, explainError: null };

// Row and column labels by axis symbol: queries' tokens on T and T_q, the source's on T_kv.
function tokenAxes(tokens, keyTokens) {
  return { T: tokens, T_q: tokens, T_kv: keyTokens };
}

/** Validates and runs a form; the last good trace stays when either step rejects it. */
export function runForm(engine, catalog, form, stages = null) {
  const checked = validateForm(catalog, form);
  if (!checked.ok) return { form, errors: checked.errors, engineError: null };
  try {
    const trace = engine.run(checked.spec);
    const steps = filterSteps(buildSteps(trace), stages);
    return { form, errors: {}, engineError: null, trace, steps, tokens: tokenAxes(checked.tokens, checked.keyTokens), spec: checked.spec, preset: checked.preset };
  } catch (error) {
    return { form, errors: {}, engineError: error.message };
  }
}

/** Asks the engine about one cell of the current stage (only stages the table can explain). */
export function explainCell(engine, s, selection) {
  const step = s.steps[s.step];
  if (!selection || !step || !stageById(step.id)?.explain) return NO_SELECTION;
  try {
    const explained = engine.explain(s.spec, { stage: step.id, head: step.head, row: selection.row, col: selection.col });
    return { selection, explained, explainError: null };
  } catch (error) {
    return { selection: null, explained: null, explainError: error.message };
  }
}

export function goToStep(s, index) {
  const step = clampStep(s.steps, index);
  if (step === s.step) return {};
  return { step, head: currentHead(s.steps, step, s.head), ...NO_SELECTION };
}

export function pickHead(s, head) {
  const step = s.steps[s.step];
  const next = step.head === null ? s.step : findStepIndex(s.steps, step.id, head);
  return { head, step: next, selection: null, explained: null };
}

// The view after a new run: the same stage and head where the new trace has them.
function keepPlace(s, result) {
  const old = s.steps[s.step];
  const step = old ? findStepIndex(result.steps, old.id, s.head) : 0;
  const head = Math.min(s.head, result.trace.config.numHeads - 1);
  return { ...result, step, head: currentHead(result.steps, step, head), ...NO_SELECTION };
}

export function editField(engine, catalog, s, field, value, stages) {
  const result = runForm(engine, catalog, changeField(catalog, s.form, field, value), stages);
  return result.trace ? keepPlace(s, result) : result;
}

/** Loads a whole form (a real model's geometry, say) and keeps the place. */
export function loadForm(engine, catalog, s, form, stages) {
  const result = runForm(engine, catalog, form, stages);
  return result.trace ? keepPlace(s, result) : result;
}

export function selectCell(engine, s, { row, col }) {
  const same = s.selection && s.selection.row === row && s.selection.col === col;
  return explainCell(engine, s, same ? null : { row, col });
}

/**
 * Applies a wanted view { form, stage, head, selection, showContributions } (a link, an
 * attribute): reruns only when the form changed. A first load that does not run shows its
 * messages over the chapter's first example.
 */
export function applyWanted(engine, catalog, s, wanted, stages) {
  const result = JSON.stringify(wanted.form) === JSON.stringify(s.form) ? {} : runForm(engine, catalog, wanted.form, stages);
  const steps = result.steps ?? s.steps;
  if (!steps.length) {
    const fallback = runForm(engine, catalog, presetForm(catalog, null, wanted.form.chapter), stages);
    return { ...fallback, form: result.form, errors: result.errors, engineError: result.engineError, step: 0, head: 0 };
  }
  const step = findStepIndex(steps, wanted.stage, wanted.head);
  const head = currentHead(steps, step, wanted.head);
  const next = { ...s, ...result, step, head, showContributions: Boolean(wanted.showContributions) };
  return { ...result, step, head, showContributions: next.showContributions, ...explainCell(engine, next, wanted.selection) };
}
