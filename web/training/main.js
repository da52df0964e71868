// The training page (training.html): a tiny attention-only model trained in the learner's
// browser. The shipped run (web/checkpoints/induction.json) shows at once; Train retrains it in
// a worker (trainer.js), chunk by chunk, with a progress line, pause, resume and reset; the
// charts follow each checkpoint; and each head's attention on a held-out sequence is drawn with
// the engine's numbers (engine.run of that layer's explicit causal pass). Wiring only: the
// engine computes, model/training-view.js lays out, the views draw.
import { saveFile } from '../app/downloads.js';
import { createEngine } from '../engine.js';
import katex from 'katex';

import { explainView } from '../model/explain-view.js';
import { matrixView } from '../model/matrix-view.js';
import { MODEL_FILE, forwardScript, modelJson, npyFiles } from '../model/training-export.js';
import {
  headSummary,
  historyTable,
  inductionFormed,
  predictionTable,
  progressText,
  trainingCharts,
  typedTokens,
} from '../model/training-view.js';
import { el } from '../views/dom.js';
import { createExplainPanel } from '../app/later-views.js'; // the real view: this bundle has no swap
import { createHeatmap } from '../views/heatmap.js';
import { chartFigure, historyDetails, historyTableEl } from '../views/training-chart.js';
import { readCheckpoint } from './checkpoint.js';
import { createTrainer } from './trainer.js';

const TASKS = {
  induction: {
    title: 'Induction: copy a repeated block',
    about:
      'Each sequence holds a random block of 4\u20138 tokens twice, at a random place. ' +
      'The loss counts the copy\u2019s ' +
      'tokens after its first: to predict them a head must find where the current token occurred before and read ' +
      'the token that followed it \u2014 an induction head, which needs a previous-token head in the layer below.',
    runs: [{ label: '2 heads', spec: {} }],
  },
  'previous-token': {
    title: 'Previous token: one position back',
    about:
      'Triples (a, b, a) of random tokens. At b the next token is the one before b: one layer with one head must ' +
      'learn to attend one position back.',
    runs: [{ label: '1 head', spec: {} }],
  },
  'two-relations': {
    title: 'Two relations: one head or two',
    about:
      'A first symbol s\u2080, then triples (s, r, \u27e8s\u2080, s\u27e9): at r the answer is the pair of the first ' +
      'symbol and the one before r, so it needs key 0 and key t \u2212 1 at once. One head of width 32 and two heads ' +
      'of width 16 (the same number of weights) train on the same batches; the charts show both.',
    runs: [
      { label: '2 heads', spec: { numHeads: 2 } },
      { label: '1 head', spec: { numHeads: 1 } },
    ],
  },
};

const theme = () => (window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
const status = document.getElementById('training-status');
const progress = document.getElementById('training-progress');
const charts = document.getElementById('training-charts');
const heads = document.getElementById('trained-heads');
const [taskField, seedField] = ['training-task', 'training-seed'].map((id) => document.getElementById(id));
const [trainButton, pauseButton, resetButton] = ['train', 'pause', 'reset'].map((id) =>
  document.getElementById(`training-${id}`),
);

const explain = createExplainPanel(document.getElementById('trained-explain'), {
  render: katex.render,
  onClose: () => explain.update(null),
});

let engine;
let shipped; // the build's run: { spec, history, model }
let runs = []; // [{ label, spec, history, model }]
let queue = []; // runs still to train after the current one

function drawCharts() {
  // The tables the reader opened stay open across redraws (summaries name them).
  const wasOpen = new Set([...charts.querySelectorAll('details[open] > summary')].map((s) => s.textContent));
  charts.textContent = '';
  const shown = runs.filter((r) => r.history.length);
  if (!shown.length) return;
  const last = Math.max(...shown.map((r) => r.spec.steps ?? r.history.at(-1).step));
  const vocab = shown[0].spec.vocab ?? shown[0].models[0].model.config.vocab; // the shipped spec is { task, seed }
  const { loss, scores } = trainingCharts(shown, last, vocab);
  charts.append(chartFigure(loss.title, loss.chart));
  for (const s of scores) {
    charts.append(chartFigure(s.title, s.chart));
    if (s.key !== 'induction') continue;
    for (const r of shown) {
      const formed = inductionFormed(r.history);
      const text = formed
        ? `${r.label}: an induction head has formed by step ${formed.step} ` +
          `(${formed.head}, ${formed.value.toFixed(2)}).`
        : `${r.label}: no head of layer 1 or above scores 0.5 as an induction head yet.`;
      charts.append(el('p', 'panel-note formed', text));
    }
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

// Each head of the first run's model at the chosen checkpoint, on held-out sequence `index`: its
// weights, as the engine computes them in that layer's explicit causal pass (or typed token
// numbers, which the engine checks: a refusal is shown and the heads drawn before stay). A click
// (or Enter) on a cell asks the engine to explain that number.
function drawHeads(index) {
  const run = runs.find((r) => r.models.length);
  if (!run) return;
  const field = checkpointField();
  field.max = String(run.models.length - 1);
  const at = Math.min(Number(field.value), run.models.length - 1);
  const { step, model } = run.models[at];
  document.getElementById('training-checkpoint-step').textContent = `step ${step}`;
  field.setAttribute('aria-valuetext', `step ${step}`);
  const typed = typedTokens(document.getElementById('training-tokens').value);
  const tokens = typed ?? engine.taskBatch(run.spec, { count: index + 1 }).tokens[index].slice(0, model.config.seqLen);
  const error = document.getElementById('training-tokens-error');
  let pass;
  try {
    pass = engine.modelForward(model, tokens);
    error.textContent = '';
  } catch (refused) {
    const { vocab, seqLen } = model.config;
    error.textContent = `${refused.message} (the vocabulary is 0\u2013${vocab - 1}, at most ${seqLen} tokens)`;
    return; // the heads shown before stay
  }
  heads.textContent = '';
  explain.update(null);
  [shownModel, shownTokens] = [model, tokens];
  drawTakeAway();
  const labels = tokens.map(String);
  const what = typed ? 'The typed sequence' : `Held-out sequence ${index}`;
  const predictions = el('details', 'training-table');
  predictions.append(el('summary', null, 'What the model predicts at each position'));
  predictions.append(historyTableEl(predictionTable(tokens, pass), 'What the model predicts at each position'));
  heads.append(
    el('p', 'panel-note', `${what} (token numbers): ${tokens.join(' ')}`),
    el('p', 'panel-note', summaryText(run, step)),
    predictions,
  );
  model.params.layers.forEach((layer, l) => {
    const spec = { X: pass.residual[l], ...layer, causal: true };
    const trace = engine.run(spec);
    for (const stage of trace.stages.filter((s) => s.id === 'weights')) {
      const box = el('div', 'trained-head');
      heads.append(box);
      const onActivate = ({ row, col }) => {
        const explained = engine.explain(spec, { stage: 'weights', head: stage.head, row, col });
        explain.update(
          explainView(explained, {
            stageId: 'weights',
            head: stage.head,
            row,
            col,
            config: trace.config,
            keyTokens: labels,
            label: `layer ${l}: A`,
            stage,
          }),
        );
        document.querySelector('.explain-panel')?.scrollIntoView({ block: 'nearest' });
      };
      createHeatmap(box, { onActivate }).update(
        matrixView({
          key: `L${l}H${stage.head}`,
          name: `layer ${l} weights`,
          label: `Layer ${l}, head ${stage.head}: weights`,
          shape: stage.shape,
          axes: stage.axes,
          values: stage.values,
          tokens: { T: labels },
          theme: theme(),
          config: trace.config,
          head: stage.head,
          sequential: true,
          maskedZero: true,
          interactive: true,
        }),
      );
    }
  });
}

function summaryText(run, step) {
  const last = run.history.find((c) => c.step === step);
  const strongest = headSummary(last)
    .map((h) => `${h.name}: ${h.score} ${h.value.toFixed(2)}`)
    .join('; ');
  return `At step ${last.step} each head\u2019s strongest score on the 64 held-out sequences: ${strongest}.`;
}

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
      ...checkpoints.map(({ step, loss, trainLoss, headScores }) => ({ step, loss, trainLoss, headScores })),
    );
    run.models.push(...checkpoints.map(({ step, model }) => ({ step, model })));
    const last = run.history.at(-1);
    progress.max = spec.steps;
    progress.value = last.step;
    const line = progressText({ step: last.step, steps: spec.steps, stepsPerSecond, loss: last.loss });
    status.textContent = `${run.label}: ${line}`;
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
    `${last.loss.toFixed(3)}. Train reproduces it here, number for number.`;
  progress.max = last.step;
  progress.value = last.step;
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
  for (const [id, t] of Object.entries(TASKS)) taskField.append(new Option(t.title, id));
  const sequence = document.getElementById('training-sequence');
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
    if (trainer.paused) status.textContent += ' (paused)';
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
