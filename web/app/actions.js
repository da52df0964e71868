// The stepper's state changes as functions of (engine, catalog, state) that return a patch for
// the store. They hold no DOM and no math: the engine computes, the model shapes, these decide.

import {
  buildSteps,
  filterSteps,
  findStepIndex,
  clampStep,
  currentHead,
  moveInTime,
  pathEnd,
  stepAlong,
  timeline,
} from '../model/navigation.js';
import { calculatorRows, calculatorView, sizeQueries } from '../model/kv-calculator.js';
import { stageById } from '../model/stage-table.js';
import { fieldOfMessage, validateForm } from '../model/validate.js';
import { changeField, chapterForm, presetForm } from '../state/form.js';
import { Deferred } from './off-thread.js';

const NO_SELECTION = { selection: null, explained: null, explainError: null };

// Row and column labels by axis symbol: queries' tokens on T and T_q, the source's on T_kv, and
// on T − 1 (the model's positions that have a next token) all but the last.
function tokenAxes(tokens, keyTokens) {
  return { T: tokens, T_q: tokens, T_kv: keyTokens, 'T \u2212 1': tokens.slice(0, -1) };
}

/**
 * Validates and runs a form; the last good trace stays when either step rejects it. The engine's
 * refusal goes under the field it names, or above the form when it names none of its fields.
 * While the run is computed off the main thread (app/off-thread.js), the form goes ahead of its
 * trace.
 */
export function runForm(engine, catalog, form, stages = null) {
  const checked = validateForm(catalog, form);
  if (!checked.ok) return { form, errors: checked.errors, engineError: null };
  try {
    const trace = engine.run(checked.spec);
    const steps = filterSteps(buildSteps(trace), stages);
    return {
      form,
      errors: {},
      engineError: null,
      trace,
      steps,
      tokens: tokenAxes(checked.tokens, checked.keyTokens),
      spec: checked.spec,
      preset: checked.preset,
    };
  } catch (error) {
    if (error instanceof Deferred) return { form, errors: {}, engineError: null };
    const field = fieldOfMessage(form.chapter, error.message);
    if (field) return { form, errors: { [field]: error.message }, engineError: null };
    return { form, errors: {}, engineError: error.message };
  }
}

/** Asks the engine about one cell of the current stage (only stages the table can explain). */
export function explainCell(engine, s, selection) {
  const step = s.steps[s.step];
  if (!selection || !step || !stageById(step.id)?.explain) return NO_SELECTION;
  try {
    const explained = engine.explain(s.trace, {
      stage: step.id,
      head: step.head,
      step: step.step,
      row: selection.row,
      col: selection.col,
    });
    return { selection, explained, explainError: null };
  } catch (error) {
    if (error instanceof Deferred) throw error;
    return { selection: null, explained: null, explainError: error.message };
  }
}

export function goToStep(s, index) {
  const step = clampStep(s.steps, index);
  if (step === s.step) return {};
  return { step, head: currentHead(s.steps, step, s.head), ...NO_SELECTION };
}

/** Prev (delta −1) and Next (+1): along the reader's path (model/navigation.js). */
export function stepBy(s, delta) {
  return goToStep(s, stepAlong(s.steps, s.step, s.head, delta));
}

/** Home and End ('first', 'last'): the path's ends. */
export function stepToEnd(s, which) {
  return goToStep(s, pathEnd(s.steps, s.step, s.head, which));
}

/** One decode step (or tile) later or earlier, at the same stage where it exists. */
export function moveTime(s, delta) {
  return goToStep(s, moveInTime(s.steps, s.step, delta, s.head));
}

/** The decode step (or tile) at a position of the slider, at the same stage where it exists. */
export function goToTime(s, position) {
  const time = timeline(s.steps)[position];
  if (time === undefined) return {};
  const same = findStepIndex(s.steps, s.steps[s.step].id, s.head, time);
  return goToStep(s, s.steps[same]?.step === time ? same : s.steps.findIndex((x) => x.step === time));
}

export function pickHead(s, head) {
  const step = s.steps[s.step];
  const next = step.head === null ? s.step : findStepIndex(s.steps, step.id, head);
  return { head, step: next, selection: null, explained: null };
}

// The view after a new run: the same stage, head and decode step (or tile) where the new trace
// has them.
function keepPlace(s, result) {
  const old = s.steps[s.step];
  const time = old && timeline(result.steps).includes(old.step) ? old.step : null;
  const step = old ? findStepIndex(result.steps, old.id, s.head, time) : 0;
  const head = Math.min(s.head, result.trace.config.numHeads - 1);
  return { ...result, step, head: currentHead(result.steps, step, head), ...NO_SELECTION };
}

export function editField(engine, catalog, s, field, value, stages) {
  const result = runForm(engine, catalog, changeField(catalog, s.form, field, value), stages);
  return result.trace ? keepPlace(s, result) : result;
}

/** Opens another chapter as this reader left it (its form, stage, head and decode step or tile),
 * else at its first example's first stage: a stage of the same id in another chapter belongs to
 * another walk. What is left in this chapter is kept in `places` for the way back: its form as
 * it ran (a form still refused keeps the last one that ran). */
export function switchChapter(engine, catalog, s, id, stages) {
  const here = s.steps[s.step];
  const ran = !s.engineError && !Object.keys(s.errors ?? {}).length;
  const form = ran ? s.form : s.places?.[s.form.chapter]?.form;
  const places = here
    ? { ...s.places, [s.form.chapter]: { id: here.id, head: s.head, time: here.step, form } }
    : s.places;
  const left = places?.[id];
  const result = runForm(engine, catalog, chapterForm(catalog, id, left?.form), stages);
  if (!result.trace) return { ...result, places };
  const time = left && timeline(result.steps).includes(left.time) ? left.time : null;
  const step = left ? findStepIndex(result.steps, left.id, left.head, time) : 0;
  const head = currentHead(result.steps, step, left ? Math.min(left.head, result.trace.config.numHeads - 1) : 0);
  return { ...result, places, step, head, ...NO_SELECTION };
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
 * Applies a wanted view { form, stage, head, time, selection, showContributions } (a link, an
 * attribute): reruns only when the form changed. A first load that does not run shows its
 * messages over the chapter's first example.
 */
export function applyWanted(engine, catalog, s, wanted, stages) {
  const result =
    JSON.stringify(wanted.form) === JSON.stringify(s.form) ? {} : runForm(engine, catalog, wanted.form, stages);
  const steps = result.steps ?? s.steps;
  if (!steps.length) {
    const fallback = runForm(engine, catalog, presetForm(catalog, null, wanted.form.chapter), stages);
    return { ...fallback, form: result.form, errors: result.errors, engineError: result.engineError, step: 0, head: 0 };
  }
  const time = timeline(steps).includes(wanted.time) ? wanted.time : null;
  const step = findStepIndex(steps, wanted.stage, wanted.head, time);
  const head = currentHead(steps, step, wanted.head);
  const next = { ...s, ...result, step, head, showContributions: Boolean(wanted.showContributions) };
  return {
    ...result,
    step,
    head,
    showContributions: next.showContributions,
    ...explainCell(engine, next, wanted.selection),
  };
}

/** The KV-cache calculator's table for its inputs: every size asked of engine.kvCacheBytes. */
export function sizeTable(engine, catalog, calc, config) {
  const sized = calculatorRows(catalog, calc, config).map((row) => {
    const q = sizeQueries(row, calc);
    try {
      return {
        row,
        perToken: engine.kvCacheBytes(q.perToken),
        total: engine.kvCacheBytes(q.total),
        mha: engine.kvCacheBytes(q.mha),
      };
    } catch (error) {
      return { row, error: error.message };
    }
  });
  return calculatorView(calc, sized);
}

/** Each head pruned alone (engine.pruneEach), where the spec has a W_O to prune before. */
export function pruneEachOf(engine, spec, config) {
  if (!config.outputProjection || ['kv-cache', 'flash'].includes(config.kind)) return null;
  try {
    return engine.pruneEach(spec);
  } catch {
    return null; // the trace ran, so this cannot fail for a reason the page could show better
  }
}

/** Prunes a head, or restores it: the pruned heads field, edited and run. */
export function togglePrune(engine, catalog, s, head, stages) {
  const now = new Set(s.trace.config.prunedHeads ?? []);
  if (now.has(head)) now.delete(head);
  else now.add(head);
  const text = [...now].sort((a, b) => a - b).join(', ');
  return editField(engine, catalog, s, 'prunedHeads', text, stages);
}
