// The training page (training.html): a tiny attention-only model trained in the learner's
// browser. The shipped run (web/checkpoints/induction.json) shows at once; Train retrains it in
// a worker (trainer.js), chunk by chunk, with a progress line, pause, resume and reset; the
// charts follow each checkpoint; and each head's attention on a held-out or typed sequence is
// drawn with the engine's numbers (heads.js). Wiring only: the engine computes,
// model/training-view.js lays out, the views draw.
import { saveFile } from '../app/downloads.js';
import { createEngine } from '../engine.js';
import katex from 'katex';

import { MODEL_FILE, forwardScript, modelJson, npyFiles } from '../model/training-export.js';
import { formedSentence, historyTable, progressText, trainingCharts, typedTokens } from '../model/training-view.js';
import { el } from '../views/dom.js';
import { createExplainPanel } from '../app/later-views.js'; // the real view: this bundle has no swap
import { chartFigure, historyDetails, updateChart } from '../views/training-chart.js';
import { readCheckpoint } from './checkpoint.js';
import { drawTrainedHeads } from './heads.js';
import { createCheckpointStepper } from './stepper.js';
import { TASKS } from './tasks.js';
import { createTrainer } from './trainer.js';

const status = document.getElementById('training-status');
const progress = document.getElementById('training-progress');
const charts = document.getElementById('training-charts');
const heads = document.getElementById('trained-heads');
const [taskField, seedField] = ['training-task', 'training-seed'].map((id) => document.getElementById(id));
const [trainButton, pauseButton, resetButton] = ['train', 'pause', 'reset'].map((id) =>
  document.getElementById(`training-${id}`),
);

// The build's drawing of this page (scripts/prerender-page.mjs) holds what start() draws: each
// part is emptied as it is drawn again, in the task that draws it, so that no frame shows neither.
function emptied(id) {
  const node = document.getElementById(id);
  node.replaceChildren();
  return node;
}

const explain = createExplainPanel(emptied('trained-explain'), {
  render: katex.render,
  onClose: () => explain.update(null),
});

let engine;
let stepper; // the chosen checkpoint, stage by stage (stepper.js)
let shipped; // the build's run: { spec, history, model }
let runs = []; // [{ label, spec, history, model }]
let queue = []; // runs still to train after the current one

const formedText = (r) => formedSentence(r.label, r.history);

// What the drawn charts hold besides their points: while it stays the same (a run under way, no
// table open), each checkpoint only moves the lines' points and rewrites the notes, in place,
// instead of building the charts again: less work on the main thread while the worker trains.
let drawnLayout = null;

function drawCharts() {
  // The tables the reader opened stay open across redraws (summaries name them).
  const wasOpen = new Set([...charts.querySelectorAll('details[open] > summary')].map((s) => s.textContent));
  const shown = runs.filter((r) => r.history.length);
  if (!shown.length) {
    charts.textContent = '';
    drawnLayout = null;
    return;
  }
  const last = Math.max(...shown.map((r) => r.spec.steps ?? r.history.at(-1).step));
  const vocab = shown[0].spec.vocab ?? shown[0].models[0].model.config.vocab; // the shipped spec is { task, seed }
  const { loss, scores } = trainingCharts(shown, last, vocab);
  const all = [loss, ...scores];
  const layout = JSON.stringify([last, all.map((c) => [c.title, c.chart.lines.map((l) => l.name)])]);
  if (layout === drawnLayout && wasOpen.size === 0) {
    charts.querySelectorAll('figure.training-chart').forEach((figure, i) => updateChart(figure, all[i].chart));
    charts.querySelectorAll('p.formed').forEach((p, i) => (p.textContent = formedText(shown[i])));
    return;
  }
  drawnLayout = layout;
  charts.textContent = '';
  charts.append(chartFigure(loss.title, loss.chart));
  for (const s of scores) {
    charts.append(chartFigure(s.title, s.chart));
    if (s.key !== 'induction') continue;
    for (const r of shown) charts.append(el('p', 'panel-note formed', formedText(r)));
  }
  for (const r of shown) {
    const summary = `${r.label}: every checkpoint as a table`;
    charts.append(historyDetails(summary, () => historyTable(r.history), wasOpen.has(summary)));
  }
}

// The model and sequence the heads show, for the take-away files.
let shownModel = null;
let shownTokens = [];

function drawTakeAway() {
  const box = document.getElementById('training-npy');
  box.textContent = '';
  for (const file of npyFiles(shownModel)) {
    const b = el('button', null, file.filename);
    b.type = 'button';
    b.addEventListener('click', () => saveFile({ ...file, mime: 'application/octet-stream' }, document.body));
    box.append(b);
  }
}

// The checkpoint whose model the heads show: an index into the run's models (its last by default).
const checkpointField = () => document.getElementById('training-checkpoint');

// The heads of the first run's model at the chosen checkpoint, on held-out sequence `index` or on
// typed token numbers (which the engine checks: its refusal is shown, and the heads drawn before
// stay).
function drawHeads(index) {
  const run = runs.find((r) => r.models.length);
  if (!run) return;
  const field = checkpointField();
  field.max = String(run.models.length - 1);
  const checkpoint = run.models[Math.min(Number(field.value), run.models.length - 1)];
  const { step, model } = checkpoint;
  document.getElementById('training-checkpoint-step').textContent = `step ${step}`;
  field.setAttribute('aria-valuetext', `step ${step}`);
  const typed = typedTokens(document.getElementById('training-tokens').value);
  const heldOut = typed ? null : engine.taskBatch(run.spec, { count: index + 1 });
  const tokens = typed ?? heldOut.tokens[index].slice(0, model.config.seqLen);
  const counted = heldOut?.mask[index] ?? null; // which positions the task's loss counts
  const error = document.getElementById('training-tokens-error');
  try {
    const what = typed ? 'The typed sequence' : `Held-out sequence ${index}`;
    drawTrainedHeads(heads, { engine, explain, run, checkpoint, tokens, counted, what });
    error.textContent = '';
    // The loss counts what the task counts; a position's loss needs the token after it.
    const scored = counted ? tokens.slice(0, -1).flatMap((_, t) => (counted[t] ? [t] : [])) : [];
    stepper.show({ model, step, tokens, scored });
    const loss = typed ? 'every position' : 'the positions the task scores';
    document.getElementById('training-stepper-what').textContent =
      `${what}, through the model at step ${step}; the loss counts ${loss}.`;
  } catch (refused) {
    const { vocab, seqLen } = model.config;
    error.textContent = `${refused.message} (the vocabulary is 0\u2013${vocab - 1}, at most ${seqLen} tokens)`;
    return;
  }
  [shownModel, shownTokens] = [model, tokens];
  drawTakeAway();
}

// After Pause, the chunk under way still lands; the status says so until it has.
const PAUSING = ' (pausing: the chunk under way finishes first)';
const PAUSED = ' (paused)';

function setButtons({ training, paused }) {
  trainButton.disabled = training;
  pauseButton.disabled = !training;
  pauseButton.textContent = paused ? 'Resume' : 'Pause';
  resetButton.disabled = !training && !paused;
}

const trainer = createTrainer(new URL('./attention-stepper-training-worker.js', document.baseURI), {
  onChunk(checkpoints, { stepsPerSecond }, spec) {
    const run = runs.find((r) => !r.done);
    run.spec = spec;
    run.history.push(
      ...checkpoints.map(({ step, loss, trainLoss, headScores, uniformScores }) => ({
        ...{ step, loss, trainLoss, headScores, uniformScores },
      })),
    );
    run.models.push(...checkpoints.map(({ step, model }) => ({ step, model })));
    const last = run.history.at(-1);
    progress.max = spec.steps;
    progress.value = last.step;
    const line = progressText({ step: last.step, steps: spec.steps, stepsPerSecond, loss: last.loss });
    status.textContent = `${run.label}: ${line}${trainer.paused ? PAUSED : ''}`;
    drawCharts();
  },
  onDone() {
    runs.find((r) => !r.done).done = true;
    const next = queue.shift();
    if (next) trainer.start(next.spec);
    else {
      setButtons({ training: false, paused: false });
      const field = checkpointField();
      field.max = String(runs[0].models.length - 1); // before the value, which the range clamps to max
      field.value = field.max;
      drawHeads(Number(document.getElementById('training-sequence').value));
    }
  },
  onError(message) {
    status.textContent = `The engine refused to train: ${message}`;
    setButtons({ training: false, paused: false });
  },
});

function startTraining() {
  const task = TASKS[taskField.value];
  const given = seedField.value.trim();
  const seed = given === '' ? {} : { seed: Number(given) }; // blank: the engine's default seed, 0
  const specs = task.runs.map((r) => ({
    label: r.label,
    spec: { task: taskField.value, ...seed, checkpointEvery: 25, ...r.spec },
  }));
  runs = specs.map((s) => ({ ...s, history: [], models: [], done: false }));
  queue = specs.slice(1);
  trainer.start(specs[0].spec);
  progress.value = 0;
  setButtons({ training: true, paused: false });
  status.textContent = `${specs[0].label}: starting\u2026`;
  drawCharts();
  // The reader pressed Train to watch the heads form: the charts come into view, under the bar.
  const reduced = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  document.getElementById('charts-title').scrollIntoView({ block: 'start', behavior: reduced ? 'auto' : 'smooth' });
}

function showShipped() {
  taskField.value = 'induction';
  seedField.value = String(shipped.spec.seed);
  const models = [{ step: shipped.history.at(-1).step, model: shipped.model }]; // only the last ships
  runs = [{ label: '2 heads (shipped)', spec: shipped.spec, history: shipped.history, models, done: true }];
  checkpointField().value = '0';
  const last = shipped.history.at(-1);
  status.textContent =
    `The shipped run: trained by this engine at build time, ${last.step} steps, held-out loss ` +
    `${last.loss.toFixed(3)}. Train retrains it here to watch its heads form, number for number.`;
  progress.max = last.step;
  progress.value = 0; // nothing has trained on this page yet
  drawCharts();
  drawHeads(0);
}

function describeTask() {
  const task = TASKS[taskField.value];
  document.getElementById('training-about').textContent = task.about;
}

async function start() {
  const [e, file] = await Promise.all([
    createEngine(),
    fetch(new URL('./checkpoints/induction.json', document.baseURI)).then((r) => r.json()),
  ]);
  engine = e;
  shipped = readCheckpoint(file);
  const dark = window.matchMedia('(prefers-color-scheme: dark)');
  const theme = () => (dark.matches ? 'dark' : 'light');
  for (const span of document.querySelectorAll('.tex[data-tex]')) katex.render(span.dataset.tex, span);
  stepper = createCheckpointStepper(emptied('training-stepper'), { engine, katex, theme: theme() });
  dark.addEventListener('change', () => stepper.setTheme(theme()));
  emptied('training-task');
  for (const [id, t] of Object.entries(TASKS)) taskField.append(new Option(t.title, id));
  const sequence = emptied('training-sequence');
  for (let i = 0; i < 64; i++) sequence.append(new Option(`held-out sequence ${i}`, String(i)));
  showShipped();
  describeTask();
  taskField.addEventListener('change', describeTask);
  sequence.addEventListener('change', () => drawHeads(Number(sequence.value)));
  checkpointField().addEventListener('input', () => drawHeads(Number(sequence.value)));
  document.getElementById('training-tokens').addEventListener('change', () => drawHeads(Number(sequence.value)));
  trainButton.addEventListener('click', startTraining);
  pauseButton.addEventListener('click', () => {
    if (trainer.paused) trainer.resume();
    else trainer.pause();
    setButtons({ training: true, paused: trainer.paused });
    if (trainer.paused) status.textContent += trainer.inFlight ? PAUSING : PAUSED;
  });
  resetButton.addEventListener('click', () => {
    trainer.reset();
    queue = [];
    setButtons({ training: false, paused: false });
    showShipped();
  });
  document
    .getElementById('training-json')
    .addEventListener('click', () =>
      saveFile({ filename: MODEL_FILE, mime: 'application/json', data: modelJson(shownModel) }, document.body),
    );
  document
    .getElementById('training-script')
    .addEventListener('click', () =>
      saveFile(
        { filename: 'trained-forward.py', mime: 'text/x-python', data: forwardScript(shownTokens) },
        document.body,
      ),
    );
  setButtons({ training: false, paused: false });
  document.body.dataset.ready = 'true';
}

start().catch((error) => {
  status.textContent = `The training page could not start: ${error.message}`;
  throw error;
});
