// The trained heads of one model on one sequence: a table of what the model predicts at each
// position, then each layer's heads' weights, drawn by the stepper's heatmap from engine.run of
// that layer's explicit causal pass; a click (or Enter) on a cell shows the engine's explanation
// of that number in `explain`. Every number is the engine's.
import { explainView } from '../model/explain-view.js';
import { matrixView } from '../model/matrix-view.js';
import { NAMED_ABOVE, headSummary, predictionTable } from '../model/training-view.js';
import { el } from '../views/dom.js';
import { createHeatmap } from '../views/heatmap.js';
import { historyTableEl } from '../views/training-chart.js';

const theme = () => (window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');

// "At step 1000 …" for the checkpoint at `step` of the run: each head named by the score it holds
// farthest above uniform attention's, once that is at least NAMED_ABOVE times as much.
function summaryText(run, step) {
  const last = run.history.find((c) => c.step === step);
  const heads = headSummary(last)
    .map((h) =>
      h.named
        ? `${h.name}: ${h.score} ${h.value.toFixed(2)}`
        : `${h.name}: no pattern yet (${h.score} ${h.value.toFixed(2)}, under ${NAMED_ABOVE}\u00d7 uniform)`,
    )
    .join('; ');
  const u = last.uniformScores;
  return (
    `At step ${last.step}, on the 64 held-out sequences, against what a head attending uniformly scores ` +
    `(previous token ${u.previousToken.toFixed(2)}, first token ${u.firstToken.toFixed(2)}, induction ` +
    `${u.induction.toFixed(2)}): ${heads}.`
  );
}

function predictions(tokens, pass, counted) {
  const title = 'What the model predicts at each position';
  const details = el('details', 'training-table');
  details.append(el('summary', null, title), historyTableEl(predictionTable(tokens, pass, counted), title));
  return details;
}

// One head's weights as a heatmap whose cells the engine explains.
function headMap(host, { engine, explain, spec, trace, stage, layer, labels }) {
  const box = el('div', 'trained-head');
  host.append(box);
  const onActivate = ({ row, col }) => {
    const explained = engine.explain(trace, { stage: 'weights', head: stage.head, row, col });
    const where = { stageId: 'weights', head: stage.head, row, col, config: trace.config, stage };
    explain.update(explainView(explained, { ...where, keyTokens: labels, label: `layer ${layer}: A` }));
    document.querySelector('.explain-panel')?.scrollIntoView({ block: 'nearest' });
  };
  createHeatmap(box, { onActivate }).update(
    matrixView({
      key: `L${layer}H${stage.head}`,
      name: `layer ${layer} weights`,
      label: `Layer ${layer}, head ${stage.head}: weights`,
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

/**
 * Draws into host the model of checkpoint { step, model } of `run` on `tokens` (what: how the
 * page names the sequence; counted: the task's mask row of a held-out sequence, or null). Throws
 * the engine's refusal of the tokens before it changes anything.
 */
export function drawTrainedHeads(host, { engine, explain, run, checkpoint, tokens, counted, what }) {
  const { step, model } = checkpoint;
  const pass = engine.modelForward(model, tokens);
  host.textContent = '';
  explain.update(null);
  const labels = tokens.map(String);
  host.append(
    el('p', 'panel-note', `${what} (token numbers): ${tokens.join(' ')}`),
    el('p', 'panel-note', summaryText(run, step)),
    predictions(tokens, pass, counted),
  );
  model.params.layers.forEach((layer, l) => {
    const spec = { X: pass.residual[l], ...layer, causal: true };
    const trace = engine.run(spec);
    for (const stage of trace.stages.filter((s) => s.id === 'weights'))
      headMap(host, { engine, explain, spec, trace, stage, layer: l, labels });
  });
}
