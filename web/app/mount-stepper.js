// The stepper's composition root, shared by the full page and the <attention-stepper> element:
// builds the layout in root, wires engine → store → model → views, and events → store.
// mountStepper(root, { engine, catalog, katex, controls, landmark, stages, chapters, theme, marker, keyTarget,
//   worker, onChange }); chapters: the chapter ids whose tabs show, in that order (null: every chapter);
//   worker: the URL of app/run-worker.js's bundle (null: every engine call on this thread)
//   → { update(wanted), next(), prev(), goTo(id, head), setTheme(theme), state(), destroy() }
// wanted: { form, stage, head, selection, showContributions }; onChange(state, previous) after
// every render but those of a configuration still computing (state.pending); marker (e.g.
// document.body or the host) gets data-chapter, data-stage, data-head.

import * as act from './actions.js';
import { buildLayout, concealResult } from './layout.js';
import * as quiz from './quiz-actions.js';
import { createOffThread } from './off-thread.js';
import { restoreQuiz } from './quiz-snapshot.js';
import { CHAPTERS, chapterById } from '../model/chapters.js';
import { keySentence } from '../model/key-sentence.js';
import { explainView } from '../model/explain-view.js';
import { fieldsOf } from '../model/fields.js';
import {
  currentHead,
  findStepIndex,
  offeredStages,
  stageListView,
  progressView,
  headPickerView,
  timeView,
  timeline,
} from '../model/navigation.js';
import { DEFAULT_CALCULATOR } from '../model/kv-calculator.js';
import { pruningView } from '../model/pruning.js';
import { stageById } from '../model/stage-table.js';
import { notationView } from '../model/notation.js';
import { panelView } from '../model/panels.js';
import { presetsOf } from '../model/presets.js';
import { stageView } from '../model/stage-view.js';
import { splitTokens } from '../model/tokens.js';
import { modelForm } from '../state/form.js';
import { createStore } from '../state/store.js';
import { createArcView } from '../views/arc-view.js';
import { createChapterLead } from '../views/chapter-lead.js';
import { createChapterPicker } from '../views/chapter-picker.js';
import { createControls } from '../views/controls.js';
import { createExplanation } from '../views/explanation.js';
import { createFigure } from '../views/figure.js';
import { createFormula } from '../views/formula.js';
import { createHeadOverview } from '../views/head-overview.js';
import { createHeadPicker } from '../views/head-picker.js';
import { createShapeEquation } from '../views/shape-equation.js';
import { createStageDrawer } from '../views/stage-drawer.js';
import { onSwipe } from '../views/swipe.js';
import { createStageList } from '../views/stage-list.js';
import { createStepper as createStepBar } from '../views/stepper.js';
import { createTimeSlider } from '../views/time-slider.js';
import { createToggle } from '../views/toggle.js';
// Swapped for stand-ins in the bundles that paint the first stage (see later-views.js).
import {
  createChapterPanel,
  createExplainPanel,
  createExportMenu,
  createKvCalculator,
  createNotation,
  createPruning,
  exportMenuData,
} from './later-views.js';
import { afterPaint, setText } from '../views/dom.js';
import { createQuiz } from '../views/quiz.js';

const STEP_KEYS = {
  ArrowLeft: (s) => act.stepBy(s, -1),
  ArrowRight: (s) => act.stepBy(s, 1),
  Home: (s) => act.stepToEnd(s, 'first'),
  End: (s) => act.stepToEnd(s, 'last'),
};
const TIME_KEYS = { ArrowUp: -1, ArrowDown: 1 }; // earlier and later decode steps (or tiles)
const noView = { update() {}, destroy() {} };
const SLOW_MS = 300; // a configuration still computing after this long says so

function createViews(parts, katex, on) {
  const optional = (p, make) => (p ? make(p) : noView);
  const drawer = parts.stagesToggle
    ? createStageDrawer(parts.stagesToggle, parts.stageNav)
    : { close() {}, destroy() {} };
  const pickStage = (index) => {
    on.goToIndex(index);
    drawer.close({ focus: true });
  };
  return {
    drawer,
    chapterLead: createChapterLead(parts.chapterLead),
    chapterPicker: optional(parts.chapterPicker, (p) => createChapterPicker(p, { onPick: on.pickChapter })),
    controls: optional(parts.controls, (p) => createControls(p, { onChange: on.edit })),
    stepper: optional(parts.stepper, (p) =>
      createStepBar(p, { onPrev: on.prev, onNext: on.next, onNextChapter: on.pickChapter }),
    ),
    headPicker: optional(parts.headPicker, (p) => createHeadPicker(p, { onPick: on.pickHead })),
    stageList: optional(parts.stageNav, (p) => createStageList(p, { onSelect: pickStage })),
    chapterPanel: createChapterPanel(parts.chapterPanel, {
      onPickHead: on.pickHead,
      onLoadModel: on.loadModel,
      onPickTile: on.pickTime,
      onPickStage: on.goToIndex,
    }),
    timeSlider: createTimeSlider(parts.timeSlider, { onChange: on.slideTime }),
    calculator: createKvCalculator(parts.calculator, { onChange: on.editCalculator }),
    pruning: createPruning(parts.pruning, { onToggle: on.togglePrune }),
    shapeEq: createShapeEquation(parts.shapeEq),
    formula: createFormula(parts.formula, { render: katex.render, steady: true, cue: true }),
    notation: optional(parts.notation, (p) => createNotation(p)),
    explanation: createExplanation(parts.explanation, { steady: true }),
    figure: createFigure(parts.figure, { onActivate: on.selectCell, asides: { arcs: createArcView } }),
    sumToggle: createToggle(parts.sumToggle, { label: '', onChange: on.toggleSum }),
    sumFigure: createFigure(parts.sumFigure, { onActivate: on.selectCell, className: 'figure sum-figure' }),
    explain: createExplainPanel(parts.explain, { render: katex.render, onClose: on.closeExplain }),
    overview: createHeadOverview(parts.overview, { onPick: on.pickHead, title: 'Weights of every head' }),
    exportMenu: createExportMenu(parts.exportMenu),
    quiz: createQuiz(parts.quiz, { onAnswer: on.answerQuiz, onReveal: on.revealQuiz, onToggle: on.toggleQuiz }),
  };
}

function renderHeading(parts, marker, view, chapter) {
  setText(parts.stageTitle, view.title);
  parts.stageHead.hidden = !view.headLabel;
  setText(parts.stageHead, view.headLabel ?? '');
  parts.stageHead.className = `stage-head-badge head-${(view.head ?? 0) % 8}`;
  if (!marker) return;
  marker.dataset.chapter = chapter;
  marker.dataset.stage = view.id;
  marker.dataset.head = view.head ?? '';
  marker.dataset.step = view.step ?? '';
}

// The panels' engine figures (each head pruned alone, the KV calculator's sizes), asked for
// only when their panel is shown, once per trace and calculator input: a config change whose
// stage shows neither panel costs no engine call for them. A trace the worker ran has its heads
// pruned there too: the panel shows once that answer is in (undefined until then), and onAnswer
// draws it.
function createPanelFigures(engine, catalog, offThread, onAnswer) {
  let key = [];
  let memo = {};
  const once = (s, name, make) => {
    if (key[0] !== s.trace || key[1] !== s.calc) [key, memo] = [[s.trace, s.calc], {}];
    if (!(name in memo)) memo[name] = make();
    if (memo[name] === undefined) delete memo[name]; // not in yet
    return memo[name];
  };
  const prunes = (s) =>
    offThread.ranOffThread(s.trace) ? { pruneEach: (spec) => offThread.pruneEach(spec, onAnswer) } : engine;
  return {
    pruneEach: (s) => once(s, 'pruneEach', () => act.pruneEachOf(prunes(s), s.spec, s.trace.config)),
    calculator: (s) => once(s, 'calculator', () => act.sizeTable(engine, catalog, s.calc, s.trace.config)),
  };
}

function renderChapter(parts, views, catalog, s, head, figures) {
  const chapter = chapterById(s.form.chapter);
  const config = s.trace.config;
  views.chapterPicker.update({
    chapters: s.chapterList.map((c) => ({ id: c.id, title: c.title, current: c.id === chapter.id })),
  });
  const [key, rest] = keySentence(chapter.lead);
  views.chapterLead.update({ key, rest, folded: s.step > 0 });
  const step = s.steps[s.step];
  views.chapterPanel.update(
    panelView({
      chapterId: chapter.id,
      config,
      tokens: s.tokens,
      head,
      stageId: step.id,
      models: catalog.models,
      loadedModel: s.loadedModel,
      steps: s.steps,
      index: s.step,
    }),
  );
  views.timeSlider.update(timeView(s.steps, s.step, config, s.tokens));
  views.calculator.update(chapter.panel === 'decode' ? figures.calculator(s) : null);
  const entry = stageById(step.id);
  views.pruning.update(pruningView(config, entry, entry.view?.pruning ? figures.pruneEach(s) : null));
}

function renderStage(parts, views, catalog, marker, s, figures, stages) {
  const config = s.trace.config;
  const head = currentHead(s.steps, s.step, s.head);
  const ctx = {
    trace: s.trace,
    tokens: s.tokens,
    theme: s.theme,
    selection: s.selection,
    explained: s.explained,
    showContributions: s.showContributions,
    preset: s.preset,
    models: catalog.models,
  };
  const view = stageView(s.steps, s.step, ctx);
  renderHeading(parts, marker, view, s.form.chapter);
  renderChapter(parts, views, catalog, s, head, figures);
  // Where the page offers chapters, the last stage leads on to the next one.
  const list = s.chapterList;
  const next = parts.chapterPicker ? list[list.findIndex((c) => c.id === s.form.chapter) + 1] : null;
  views.stepper.update(progressView(s.steps, s.step, s.head, config, next ? { id: next.id, title: next.title } : null));
  views.headPicker.update(headPickerView(config.numHeads, head));
  const offered = offeredStages(chapterById(s.form.chapter).fields, stages);
  views.stageList.update(stageListView(s.steps, s.step, s.head, config, { offered }));
  views.shapeEq.update(view.equation);
  views.formula.update({ tex: view.formula, stage: view.id });
  views.notation.update(notationView(view.formula, s.steps, head));
  const [key, rest] = keySentence(view.explanation);
  views.explanation.update({ key, rest, stage: view.id });
  views.figure.update({ items: view.figure });
  views.sumToggle.update({ visible: view.hasSumToggle, checked: s.showContributions, label: view.sumLabel });
  views.sumFigure.update({ items: view.sumFigure ?? [] });
  // below the figure: drawn after it
  afterPaint(views.overview, () => views.overview.update(view.overview?.() ?? null));
  views.exportMenu.update(exportMenuData(s, view, catalog, parts.exportMenu));
  const step = s.steps[s.step];
  const label = view.figure.find((i) => i.result)?.data.label ?? step.id;
  views.explain.update(
    s.explained
      ? explainView(s.explained, {
          stageId: step.id,
          head: step.head,
          row: s.selection.row,
          col: s.selection.col,
          config,
          keyTokens: config.kind === 'cross' ? s.tokens.T_kv : s.tokens.T,
          label,
          stage: step.stage,
        })
      : null,
  );
}

function renderControls(views, catalog, s) {
  if (!s.form) return;
  const chapter = chapterById(s.form.chapter);
  const counts = {
    tokens: { symbol: chapter.kind === 'cross' ? 'T_q' : 'T', n: splitTokens(s.form.tokens).length },
    keyTokens: { symbol: 'T_kv', n: splitTokens(s.form.keyTokens).length },
  };
  views.controls.update({
    chapter: chapter.id,
    fields: fieldsOf(chapter),
    presets: presetsOf(catalog, chapter.id),
    form: s.form,
    errors: s.errors,
    engineError: s.engineError,
    computing: s.computing,
    counts,
  });
}

// Quiz mode: the card for this step, and the result hidden while its questions are open.
function renderQuiz(parts, views, s) {
  const view = quiz.quizViewOf(s);
  views.quiz.update(view);
  concealResult(parts, view.asking);
}

// What only the controls and the status show: while a configuration computes, a change of these
// alone leaves the stage (still the last trace's) as it is drawn.
const CONTROLS_ONLY = new Set(['form', 'errors', 'engineError', 'pending', 'computing']);
const pick = (patch, keys) => Object.fromEntries(Object.entries(patch).filter(([key]) => keys.has(key)));
const sameStage = (s, previous) =>
  s.form.chapter === previous.form?.chapter &&
  Object.keys(s).every((key) => CONTROLS_ONLY.has(key) || s[key] === previous[key]);

function statusText(s) {
  if (s.computing) return 'Computing the new configuration\u2026 The stage below is still the previous one.';
  if (s.quizNotice) return s.quizNotice;
  if (s.explainError) return `Could not explain that cell: ${s.explainError}`;
  if (s.trace && !s.steps.length) return 'None of the chosen stages is part of this configuration.';
  return '';
}

export function mountStepper(
  root,
  {
    engine,
    catalog,
    katex,
    controls = 'full',
    landmark = true,
    stages = null,
    chapters = null,
    theme = 'light',
    marker = null,
    keyTarget = root,
    worker = null,
    onChange = () => {},
  },
) {
  // Stages chosen by id belong to one chapter's walk: no chapter tabs then, nor a next chapter.
  const parts = buildLayout(root, { controls, landmark, chapters: !stages });
  const store = createStore({
    form: null,
    errors: {},
    engineError: null,
    trace: null,
    steps: [],
    tokens: {},
    spec: null,
    preset: null,
    loadedModel: null,
    calc: DEFAULT_CALCULATOR,
    places: {}, // chapter id → { id, head, time, form }: where and how this reader left it
    step: 0,
    head: 0,
    selection: null,
    explained: null,
    explainError: null,
    showContributions: false,
    large: false, // large type, for a projector (base.css)
    pending: false, // a new configuration computing off the main thread: the form ahead of the trace
    computing: false, // … for longer than SLOW_MS: the status says so
    theme,
    chapterList: chapters ? chapters.map(chapterById) : CHAPTERS, // the tabs shown, in their order
    controls,
  });
  const set = (patch) => store.set(quiz.heldBack(store.get(), patch)); // a required quiz holds Next
  const offThread = createOffThread(engine, worker);
  const figures = createPanelFigures(engine, catalog, offThread, () => store.set({}));
  const goToIndex = (index) => set(act.goToStep(store.get(), index));

  // A new configuration, make(engine, state) → patch. The first trace runs on this thread, in the
  // task that mounts (it replaces a prerendered stage with no frame between); every later one in
  // the worker, while the page keeps answering: the form goes ahead of its trace at once (within
  // its chapter; the place, the selection and the rest wait for the trace), the status says so
  // when it takes longer than SLOW_MS, and an earlier configuration still computing is dropped.
  // onChange waits for it.
  let latest = 0;
  let slow = null;
  const settled = () => {
    clearTimeout(slow);
    slow = null;
  };
  function reconfigure(make) {
    const s0 = store.get();
    if (!s0.trace) return set(make(engine, s0));
    const id = ++latest;
    const wanted = () => id === latest;
    settled();
    // Run again with the answers in: from the form it was taken from, at the place now shown (the
    // reader may have stepped through the last trace meanwhile).
    const from = () => ({ ...store.get(), form: s0.form, errors: s0.errors, engineError: s0.engineError });
    offThread.attempt((e) => make(e, from()), {
      wanted,
      interim(patch) {
        const ahead = patch.form?.chapter === s0.form.chapter; // the panels follow the form's chapter
        set(ahead ? { ...pick(patch, CONTROLS_ONLY), pending: true } : { pending: true });
        slow ??= setTimeout(() => wanted() && set({ computing: true }), SLOW_MS);
      },
      final(patch) {
        settled();
        set({ ...patch, pending: false, computing: false });
      },
    });
  }
  // An action on the trace shown (a cell explained, a quiz answer), dropped if a new trace comes first.
  function inspect(make) {
    const s0 = store.get();
    offThread.attempt((e) => make(e, s0), { wanted: () => store.get().trace === s0.trace, interim() {}, final: set });
  }
  // controls="locked": the course's configuration, shown; nothing of the reader's changes it.
  const configure =
    controls === 'locked' ? () => {} : (make) => reconfigure((e, s) => ({ loadedModel: null, ...make(e, s) }));
  const views = createViews(parts, katex, {
    pickChapter: (id) => configure((e, s) => act.switchChapter(e, catalog, s, id, stages)),
    edit: (field, value) => configure((e, s) => act.editField(e, catalog, s, field, value, stages)),
    loadModel: (id) =>
      configure((e, s) => {
        const model = catalog.models.find((m) => m.id === id);
        const patch = act.loadForm(e, catalog, s, modelForm(catalog, model), stages);
        return { ...patch, loadedModel: patch.trace ? model : null };
      }),
    prev: () => set(act.stepBy(store.get(), -1)),
    next: () => set(act.stepBy(store.get(), 1)),
    pickHead: (head) => set(act.pickHead(store.get(), head)),
    pickTime: (time) => set(act.goToTime(store.get(), timeline(store.get().steps).indexOf(time))),
    slideTime: (position) => set(act.goToTime(store.get(), position)),
    editCalculator: (field, value) => set({ calc: { ...store.get().calc, [field]: value } }),
    togglePrune: (head) => configure((e, s) => act.togglePrune(e, catalog, s, head, stages)),
    goToIndex,
    selectCell: (cell) => inspect((e, s) => act.selectCell(e, s, cell)),
    toggleSum: (on) => set({ showContributions: on }),
    closeExplain: () => set({ selection: null, explained: null }),
    answerQuiz: (text) => inspect((e, s) => quiz.answerQuiz(e, s, text)),
    revealQuiz: () => set(quiz.revealQuiz(store.get())),
    toggleQuiz: (on) => set(quiz.toggleQuiz(store.get(), on)),
  });

  // A cell just explained stays in view above the explanation when that is a sheet over the
  // stage (a narrow stepper, panels.css): the page scrolls it up if the sheet covers it.
  function keepCellAboveSheet() {
    const cell = parts.figure.querySelector('td.is-selected');
    const sheet = parts.explain.querySelector('.explain-panel');
    if (!cell || !sheet || getComputedStyle(sheet).position !== 'fixed') return;
    const over = cell.getBoundingClientRect().bottom - sheet.getBoundingClientRect().top;
    if (over > 0) window.scrollBy(0, over + 16);
  }

  function render(s, previous) {
    parts.layout.classList.toggle('is-large', Boolean(s.large));
    parts.layout.classList.toggle('is-pending', Boolean(s.pending));
    parts.layout.classList.toggle('is-computing', Boolean(s.computing));
    renderControls(views, catalog, s);
    setText(parts.status, statusText(s));
    parts.status.hidden = !parts.status.textContent;
    if (!s.trace || !s.steps.length || (s.pending && sameStage(s, previous))) return;
    renderStage(parts, views, catalog, marker, s, figures, stages);
    renderQuiz(parts, views, s);
    if (s.selection && s.selection !== previous.selection) afterPaint(keepCellAboveSheet, keepCellAboveSheet);
    if (!s.pending) onChange(s, previous); // what the page keeps (its URL) follows what it shows
  }

  function onKeyDown(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const s = store.get();
    const timed = TIME_KEYS[event.key] && timeline(s.steps).length > 0; // else ↑/↓ scroll the page
    if ((!STEP_KEYS[event.key] && !timed) || !s.trace) return;
    if (event.target.closest?.('input, select, textarea, [role="grid"], [contenteditable="true"], summary')) return;
    event.preventDefault();
    event.stopPropagation(); // the stepper used this key: a slide deck around it must not
    if (timed) set(act.moveTime(s, TIME_KEYS[event.key]));
    else set(STEP_KEYS[event.key](s));
  }

  store.subscribe(render);
  keyTarget.addEventListener('keydown', onKeyDown);
  // The worker's engine loads once the reader reaches for the stepper, before their first change.
  root.addEventListener('focusin', offThread.warm);
  root.addEventListener('pointerdown', offThread.warm);
  onSwipe(parts.stage, { next: () => set(act.stepBy(store.get(), 1)), prev: () => set(act.stepBy(store.get(), -1)) });
  return {
    update: (wanted) =>
      reconfigure((e, s) => ({
        ...act.applyWanted(e, catalog, s, wanted, stages),
        loadedModel: null,
        ...quiz.quizFromWanted(s, wanted),
        ...(wanted.large === undefined ? {} : { large: Boolean(wanted.large) }),
      })),
    next: () => set(act.stepBy(store.get(), 1)),
    prev: () => set(act.stepBy(store.get(), -1)),
    goTo(id, head = store.get().head, time = null) {
      const s = store.get();
      goToIndex(findStepIndex(s.steps, id, head, time));
    },
    setTheme: (next) => set({ theme: next }),
    restoreQuiz: (text) => set(restoreQuiz(store.get(), text)),
    state: () => store.get(),
    destroy() {
      settled();
      offThread.destroy();
      root.removeEventListener('focusin', offThread.warm);
      root.removeEventListener('pointerdown', offThread.warm);
      keyTarget.removeEventListener('keydown', onKeyDown);
      for (const view of Object.values(views)) view.destroy();
      root.textContent = '';
    },
  };
}
