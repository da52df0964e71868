// The page: wiring only. Engine → store → model → views; events → store.

import { createEngine } from './engine.js';
import katex from './vendor/katex/katex.mjs';
import { explainView } from './model/explain-view.js';
import { buildSteps, findStepIndex, clampStep, currentHead, stageListView, progressView, headPickerView } from './model/navigation.js';
import { DEFAULT_PRESET, PRESETS } from './model/presets.js';
import { stageById } from './model/stage-table.js';
import { stageView } from './model/stage-view.js';
import { validateForm, splitTokens } from './model/validate.js';
import { changeField, presetForm } from './state/form.js';
import { createStore } from './state/store.js';
import { stateFromHash, hashFromState } from './state/url-hash.js';
import { createArcView } from './views/arc-view.js';
import { createControls } from './views/controls.js';
import { createExplainPanel } from './views/explain-panel.js';
import { createExplanation } from './views/explanation.js';
import { createFigure } from './views/figure.js';
import { createFormula } from './views/formula.js';
import { createHeadOverview } from './views/head-overview.js';
import { createHeadPicker } from './views/head-picker.js';
import { createShapeEquation } from './views/shape-equation.js';
import { createStageList } from './views/stage-list.js';
import { createStepper } from './views/stepper.js';
import { createToggle } from './views/toggle.js';

const $ = (id) => document.getElementById(id);
const darkQuery = window.matchMedia('(prefers-color-scheme: dark)');
const themeNow = () => (darkQuery.matches ? 'dark' : 'light');

let engine = null;
const store = createStore({ form: null, errors: {}, engineError: null, trace: null, steps: [], tokens: [], spec: null, step: 0, head: 0, selection: null, explained: null, explainError: null, showContributions: false, theme: themeNow() });

// ---- actions -------------------------------------------------------------------------------

// Validates and runs a form; the last good trace stays when either step rejects it.
function runForm(form) {
  const checked = validateForm(form);
  if (!checked.ok) return { form, errors: checked.errors, engineError: null };
  try {
    const trace = engine.run(checked.spec);
    return { form, errors: {}, engineError: null, trace, steps: buildSteps(trace), tokens: checked.tokens, spec: checked.spec };
  } catch (error) {
    return { form, errors: {}, engineError: error.message };
  }
}

// Asks the engine about one cell of the current stage (only stages the table marks explainable).
function explainCell(s, selection) {
  const step = s.steps[s.step];
  if (!selection || !stageById(step.id)?.explainable) return { selection: null, explained: null, explainError: null };
  try {
    const explained = engine.explain(s.spec, { stage: step.id, head: step.head, row: selection.row, col: selection.col });
    return { selection, explained, explainError: null };
  } catch (error) {
    return { selection: null, explained: null, explainError: error.message };
  }
}

function goToStep(index) {
  const s = store.get();
  const step = clampStep(s.steps, index);
  if (step === s.step) return;
  const head = currentHead(s.steps, step, s.head);
  store.set({ step, head, selection: null, explained: null, explainError: null });
}

function pickHead(head) {
  const s = store.get();
  const step = s.steps[s.step];
  const next = step.head === null ? s.step : findStepIndex(s.steps, step.id, head);
  store.set({ head, step: next, selection: null, explained: null });
}

function editField(field, value) {
  const s = store.get();
  const result = runForm(changeField(s.form, field, value));
  if (!result.trace) return store.set(result);
  const old = s.steps[s.step];
  const step = old ? findStepIndex(result.steps, old.id, old.head ?? s.head) : 0;
  const head = Math.min(s.head, result.trace.config.numHeads - 1);
  store.set({ ...result, step, head: currentHead(result.steps, step, head), selection: null, explained: null });
}

function selectCell({ row, col }) {
  const s = store.get();
  const same = s.selection && s.selection.row === row && s.selection.col === col;
  store.set(explainCell(s, same ? null : { row, col }));
}

// A first load whose link does not run: show its messages over the default example.
function showFallback(result) {
  const fallback = runForm(presetForm(DEFAULT_PRESET));
  store.set({ ...fallback, form: result.form, errors: result.errors, engineError: result.engineError, step: 0, head: 0 });
}

// Applies a hash (first load, a pasted link, back/forward).
function applyHash(hash) {
  const wanted = stateFromHash(hash);
  const s = store.get();
  const result = JSON.stringify(wanted.form) === JSON.stringify(s.form) ? {} : runForm(wanted.form);
  const steps = result.steps ?? s.steps;
  if (!steps.length) return showFallback(result);
  const step = findStepIndex(steps, wanted.stage, wanted.head);
  const head = currentHead(steps, step, wanted.head);
  const next = { ...s, ...result, step, head, showContributions: wanted.showContributions };
  store.set({ ...result, step, head, showContributions: wanted.showContributions, ...explainCell(next, wanted.selection) });
}

// ---- views ---------------------------------------------------------------------------------

const views = {
  controls: createControls($('controls'), { presets: PRESETS, onChange: editField }),
  stepper: createStepper($('stepper'), { onPrev: () => goToStep(store.get().step - 1), onNext: () => goToStep(store.get().step + 1) }),
  headPicker: createHeadPicker($('head-picker'), { onPick: pickHead }),
  stageList: createStageList($('stage-nav'), { onSelect: goToStep }),
  shapeEq: createShapeEquation($('shape-eq')),
  formula: createFormula($('formula'), { render: katex.render }),
  explanation: createExplanation($('explanation')),
  figure: createFigure($('figure'), { onActivate: selectCell, asides: { arcs: createArcView } }),
  sumToggle: createToggle($('sum-toggle'), { label: 'Show the output as a sum over heads: \u03a3 of head h \u00b7 W_O[rows of h]', onChange: (on) => store.set({ showContributions: on }) }),
  sumFigure: createFigure($('sum-figure'), { onActivate: selectCell, className: 'figure sum-figure' }),
  explain: createExplainPanel($('explain'), { render: katex.render, onClose: () => store.set({ selection: null, explained: null }) }),
  overview: createHeadOverview($('overview'), { onPick: pickHead, title: 'Weights of every head' }),
};

function renderHeading(view) {
  $('stage-title').textContent = view.title;
  $('stage-head').hidden = !view.headLabel;
  $('stage-head').textContent = view.headLabel ?? '';
  $('stage-head').className = `stage-head-badge head-${(view.head ?? 0) % 8}`;
  document.body.dataset.stage = view.id;
  document.body.dataset.head = view.head ?? '';
}

function renderStage(s) {
  const config = s.trace.config;
  const ctx = { trace: s.trace, tokens: s.tokens, theme: s.theme, selection: s.selection, explained: s.explained, showContributions: s.showContributions };
  const view = stageView(s.steps, s.step, ctx);
  renderHeading(view);
  views.stepper.update(progressView(s.steps, s.step));
  views.headPicker.update(headPickerView(config.numHeads, currentHead(s.steps, s.step, s.head)));
  views.stageList.update(stageListView(s.steps, s.step, s.head, config.numHeads));
  views.shapeEq.update(view.equation);
  views.formula.update({ tex: view.formula });
  views.explanation.update({ text: view.explanation });
  views.figure.update({ items: view.figure });
  views.sumToggle.update({ visible: view.hasSumToggle, checked: s.showContributions });
  views.sumFigure.update({ items: view.sumFigure ?? [] });
  views.overview.update(view.overview);
  const step = s.steps[s.step];
  const label = view.figure.find((i) => i.result)?.data.label ?? step.id;
  views.explain.update(s.explained ? explainView(s.explained, { stageId: step.id, head: step.head, row: s.selection.row, col: s.selection.col, config, tokens: s.tokens, label }) : null);
}

function writeHash(s) {
  const step = s.steps[s.step];
  const hash = hashFromState({ form: s.form, stage: step.id, head: currentHead(s.steps, s.step, s.head), selection: s.selection, showContributions: s.showContributions });
  if (hash !== window.location.hash) window.history.replaceState(null, '', hash);
}

function render(s) {
  views.controls.update({ form: s.form, errors: s.errors, engineError: s.engineError, tokenCount: splitTokens(s.form.tokens).length });
  $('status').textContent = s.explainError ? `Could not explain that cell: ${s.explainError}` : '';
  $('status').hidden = !s.explainError;
  if (!s.trace) return;
  renderStage(s);
  writeHash(s);
}

// ---- events --------------------------------------------------------------------------------

const STEP_KEYS = {
  ArrowLeft: (s) => s.step - 1,
  ArrowRight: (s) => s.step + 1,
  Home: () => 0,
  End: (s) => s.steps.length - 1,
};

function onKeyDown(event) {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  if (!STEP_KEYS[event.key] || !store.get().trace) return;
  if (event.target.closest('input, select, textarea, [role="grid"], [contenteditable="true"], summary')) return;
  event.preventDefault();
  goToStep(STEP_KEYS[event.key](store.get()));
}

async function start() {
  try {
    engine = await createEngine();
  } catch (error) {
    $('status').textContent = `The attention engine could not be loaded: ${error.message}`;
    throw error;
  }
  $('status').hidden = true;
  store.subscribe(render);
  applyHash(window.location.hash);
  window.addEventListener('hashchange', () => applyHash(window.location.hash));
  document.addEventListener('keydown', onKeyDown);
  darkQuery.addEventListener('change', () => store.set({ theme: themeNow() }));
  document.body.dataset.ready = 'true';
}

start();
