// What the export menu offers for one stage, and each file's name, type and contents, from the
// trace's stage and the stage's view data. Pure: the PNG's pixels are drawn by the canvas view
// (views/scene-canvas.js) from the same scene the SVG is written from.

import { stageCsv } from './csv.js';
import { stageJson } from './json.js';
import { npyBytes } from './npy.js';
import { numpyScript } from './numpy-script.js';
import { figureScene } from './scene.js';
import { sceneSvg } from './svg.js';

export const FORMATS = [
  {
    id: 'json',
    label: 'JSON',
    ext: 'json',
    mime: 'application/json',
    hint: 'the values at full precision, with shape and equation',
  },
  {
    id: 'csv',
    label: 'CSV',
    ext: 'csv',
    mime: 'text/csv',
    hint: 'the values with the heatmap\u2019s row and column labels',
  },
  {
    id: 'npy',
    label: '.npy',
    ext: 'npy',
    mime: 'application/octet-stream',
    hint: 'numpy.load reads the float64 values bit for bit',
  },
  {
    id: 'py',
    label: 'numpy script',
    ext: 'py',
    mime: 'text/x-python',
    hint: 'rebuilds this configuration in numpy and prints this stage',
  },
  { id: 'svg', label: 'SVG', ext: 'svg', mime: 'image/svg+xml', hint: 'the figure, self-contained' },
  { id: 'png', label: 'PNG', ext: 'png', mime: 'image/png', hint: 'the figure at twice its size' },
];

const slug = (s) => String(s).replace(/[^A-Za-z0-9_.-]+/g, '-');

/** lesson-multi-head-scores-h2, kv-cache-gqa-k_cache-h0-t3, custom-gqa-weights-h1 */
export function fileBase({ preset, chapter, stage }) {
  const head = stage.head === null || stage.head === undefined ? '' : `-h${stage.head}`;
  const step = stage.step === null || stage.step === undefined ? '' : `-t${stage.step}`;
  return slug(`${preset ?? `custom-${chapter}`}-${stage.id}${head}${step}`);
}

// The result matrix as the page shows it: its labels and axes.
function resultOf(view) {
  const item = view.figure.find((i) => i.result);
  if (!item) throw new Error(`export: stage ${view.id} has no result matrix`);
  return item.data;
}

/** The figure's scene (for the SVG and the PNG). ctx: see stageFile. */
export function stageScene(ctx) {
  const { view, preset, chapter, config } = ctx;
  const seed = config.seed === null || config.seed === undefined ? 'given matrices' : `seed ${config.seed}`;
  return figureScene({
    title: view.title,
    headLabel: view.headLabel,
    head: view.head,
    equation: view.equation,
    items: view.figure,
    theme: ctx.theme,
    footer:
      `attention-stepper \u00b7 ${preset ?? 'custom configuration'} (${chapter}, ${seed}) \u00b7 ` +
      `numbers to 3 decimals as on the page; the JSON, CSV and .npy exports hold them in full`,
  });
}

export const sceneTitle = (view) => `${view.title}${view.headLabel ? ` (${view.headLabel})` : ''}`;

/**
 * format: an id of FORMATS except 'png'; ctx: { stage (the trace's), view (stageView), config,
 * spec (what ran, a preset resolved), trace, preset (id | null), chapter, theme }
 * → { filename, mime, data: string | Uint8Array }
 */
export function stageFile(format, ctx) {
  const f = FORMATS.find((x) => x.id === format);
  if (!f || format === 'png') throw new Error(`export: ${format} is not a text or byte format`);
  const { stage, view, preset, chapter } = ctx;
  const filename = `${fileBase({ preset, chapter, stage })}.${f.ext}`;
  const make = {
    json: () => stageJson(stage, { preset, chapter }),
    csv: () => {
      const r = resultOf(view);
      return stageCsv(stage, r.rowLabels, r.colLabels, `${r.axes[0]} \\ ${r.axes[1]}`);
    },
    npy: () => npyBytes(stage.shape, stage.values),
    py: () =>
      numpyScript({
        config: ctx.config,
        spec: ctx.spec,
        trace: ctx.trace,
        stage,
        title: sceneTitle(view),
        preset,
        chapter,
      }),
    svg: () => sceneSvg(stageScene(ctx), { title: sceneTitle(view) }),
  };
  return { filename, mime: f.mime, data: make[format]() };
}
