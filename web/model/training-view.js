// What the training page shows, as data: the progress line, the chart's lines and ticks, the
// table for screen readers, and each head's name. Pure: every number comes from the engine's
// checkpoints (engine.train); this file only lays them out (positions on the chart) and words
// them.

import { formatCell, formatFull } from './format.js';

/** Head scores plotted, each in its own small chart: [key, title, its name in a sentence]. */
export const SCORES = [
  ['induction', 'Induction score: weight on the token after the previous occurrence', 'induction'],
  ['previousToken', 'Previous-token score: weight on key t \u2212 1', 'previous token'],
  ['firstToken', 'First-token score: weight on key 0', 'first token'],
];

export const headName = (h) => `layer ${h.layer}, head ${h.head}`;

/** "step 350 of 1000 · 62 steps/s · 10 s left · held-out loss 2.140" (rate and time once known). */
export function progressText({ step, steps, stepsPerSecond, loss }) {
  const parts = [`step ${step} of ${steps}`];
  if (stepsPerSecond > 0) {
    parts.push(`${stepsPerSecond.toFixed(0)} steps/s`);
    if (step < steps) parts.push(`${Math.ceil((steps - step) / stepsPerSecond)} s left`);
  }
  if (Number.isFinite(loss)) parts.push(`held-out loss ${loss.toFixed(3)}`);
  return parts.join(' \u00b7 ');
}

// A chart's box in SVG units: the plot area inside margins for the axes' labels.
const BOX = { width: 560, height: 150, left: 44, right: 24, top: 10, bottom: 26 };

// Round steps for the x axis: 0, then every 100 / 250 / 500 … so that about five ticks show.
function stepTicks(last) {
  const every = [25, 50, 100, 250, 500, 1000, 2500, 5000].find((e) => last / e <= 5) ?? 10000;
  const ticks = [];
  for (let s = 0; s <= last; s += every) ticks.push(s);
  return ticks;
}

/**
 * One small chart: series [{ name, colour, points: [[step, value]] }] over steps 0 … lastStep,
 * values from 0 to top. → { box, x: ticks, y: ticks, lines: [{ name, colour, points: "x,y …" }] }.
 */
export function chartOf({ series, lastStep, top, yTicks }) {
  const w = BOX.width - BOX.left - BOX.right;
  const h = BOX.height - BOX.top - BOX.bottom;
  const px = (step) => BOX.left + (lastStep > 0 ? (step / lastStep) * w : 0);
  const py = (v) => BOX.top + h - (Math.min(Math.max(v, 0), top) / top) * h;
  return {
    box: BOX,
    x: stepTicks(lastStep).map((s) => ({ at: px(s), text: String(s) })),
    y: yTicks.map((v) => ({ at: py(v), text: String(v) })),
    lines: series.map((s) => ({
      name: s.name,
      colour: s.colour,
      dashed: Boolean(s.dashed),
      baseline: Boolean(s.baseline),
      points: s.points.map(([step, v]) => `${px(step).toFixed(1)},${py(v).toFixed(1)}`).join(' '),
    })),
  };
}

/** What a head attending uniformly scores (the engine's checkpoint.uniformScores): every score's
 * floor on these sequences, the same at every checkpoint. */
export const uniformOf = (history) => history[0]?.uniformScores ?? null;

/**
 * The charts of one or more runs (runs: [{ label, history: [{ step, loss, headScores,
 * uniformScores }] }], the first drawn solid, the second dashed), over steps 0 … lastStep: the
 * held-out loss against ln(vocab), then one chart per score of SCORES with a line per head and a
 * dotted line at what uniform attention scores (the first run's held-out sequences).
 */
export function trainingCharts(runs, lastStep, vocab) {
  const top = Math.log(vocab);
  const loss = chartOf({
    series: runs.map((r, i) => ({
      name: `${r.label}: held-out loss`,
      colour: 'var(--fg)',
      dashed: i > 0,
      points: r.history.map((c) => [c.step, c.loss]),
    })),
    lastStep,
    top,
    yTicks: [0, 1, 2, 3].filter((v) => v <= top),
  });
  const uniform = runs.length > 0 ? uniformOf(runs[0].history) : null;
  const floor = (key) =>
    uniform?.[key] == null
      ? []
      : [
          {
            name: `uniform attention: ${formatCell(uniform[key])}`,
            colour: 'var(--muted)',
            baseline: true,
            points: [
              [0, uniform[key]],
              [lastStep, uniform[key]],
            ],
          },
        ];
  const scores = SCORES.map(([key, title]) => ({
    key,
    title: uniform?.[key] == null ? title : `${title} (uniform attention scores ${formatCell(uniform[key])})`,
    chart: chartOf({
      series: [
        ...runs.flatMap((r, i) =>
          (r.history[0]?.headScores ?? []).map((h, k) => ({
            name: `${r.label}: ${headName(h)}`,
            colour: `var(--head-${k % 8})`,
            dashed: i > 0,
            points: r.history.map((c) => [c.step, c.headScores[k][key] ?? 0]),
          })),
        ),
        ...floor(key),
      ],
      lastStep,
      top: 1,
      yTicks: [0, 0.5, 1],
    }),
  }));
  return { loss: { title: `Held-out loss (ln ${vocab} = ${top.toFixed(2)} is a uniform guess)`, chart: loss }, scores };
}

// A number as the table shows it (three decimals) and in full (its title): { text, full }.
const shown = (v) => (v === null ? { text: '\u2014', full: 'none' } : { text: formatCell(v), full: formatFull(v) });

/** The table beside the charts: a row per checkpoint, its losses and every head's scores. */
export function historyTable(history) {
  const heads = history[0]?.headScores ?? [];
  const head = ['step', 'held-out loss', 'training loss'];
  for (const h of heads) for (const [key] of SCORES) head.push(`${headName(h)}: ${key}`);
  const rows = history.map((c) => [
    { text: String(c.step), full: String(c.step) },
    shown(c.loss),
    shown(c.trainLoss),
    ...c.headScores.flatMap((h) => SCORES.map(([key]) => shown(h[key]))),
  ]);
  return { head, rows };
}

/** The first checkpoint at which a head of layer ≥ 1 scores ≥ 0.5 as an induction head, or null. */
/** The induction score at which the page calls an induction head formed: at least half of a head's
 * attention lands on the token after the current token's previous occurrence. */
export const FORMED_AT = 0.5;

export function inductionFormed(history) {
  const c = history.find((k) => k.headScores.some((h) => h.layer >= 1 && (h.induction ?? 0) >= FORMED_AT));
  if (!c) return null;
  const best = c.headScores
    .filter((h) => h.layer >= 1)
    .reduce((a, b) => ((b.induction ?? 0) > (a.induction ?? 0) ? b : a));
  return { step: c.step, head: headName(best), value: best.induction };
}

/** The sentence under the induction chart for one run: when a head of layer 1 or above first
 * scored FORMED_AT, which head and how much, or that none has yet. */
export function formedSentence(label, history) {
  const formed = inductionFormed(history);
  const threshold = FORMED_AT.toFixed(1);
  return formed
    ? `${label}: an induction head has formed by step ${formed.step} (${formed.head} scores ` +
        `${formed.value.toFixed(2)}; formed means a score of at least ${threshold}).`
    : `${label}: no head of layer 1 or above has reached an induction score of ${threshold} yet.`;
}

/** How many times what uniform attention scores a head's score must reach before the page names
 * the head by it: below, its weights say nothing a uniform head's would not. */
export const NAMED_ABOVE = 2;

/** Each head's strongest score at a checkpoint, against what uniform attention scores (the engine's
 * uniformScores): { name: "layer 1, head 0", score: "induction", value, named }, named when the
 * value is at least NAMED_ABOVE times the floor. */
export function headSummary(checkpoint) {
  const floor = checkpoint.uniformScores;
  const over = (h, key) => (h[key] ?? 0) / floor[key];
  return checkpoint.headScores.map((h) => {
    const [key, , words] = SCORES.filter(([k]) => floor[k] != null).reduce((best, s) =>
      over(h, s[0]) > over(h, best[0]) ? s : best,
    );
    return { name: headName(h), score: words, value: h[key], named: over(h, key) >= NAMED_ABOVE };
  });
}

/**
 * What the model predicts at each position of a sequence, from engine.modelForward: the token,
 * the next token it gives the most probability (and that probability), the next token there is
 * and its probability, and −ln of it (the engine's loss; none at the last position), and whether
 * the task's loss counts that position (counted: the task's mask row, or null for a typed sequence).
 */
export function predictionTable(tokens, { probabilities, losses }, counted = null) {
  const v = probabilities.shape[1];
  const rows = tokens.map((token, t) => {
    const p = probabilities.values.subarray(t * v, (t + 1) * v);
    let best = 0;
    for (let j = 1; j < v; j += 1) if (p[j] > p[best]) best = j;
    const next = tokens[t + 1];
    const known = next !== undefined;
    return [
      { text: String(t), full: String(t) },
      { text: String(token), full: String(token) },
      { text: String(best), full: String(best) },
      { text: formatCell(p[best]), full: formatFull(p[best]) },
      known ? { text: String(next), full: String(next) } : { text: '\u2014', full: 'none' },
      known ? { text: formatCell(p[next]), full: formatFull(p[next]) } : { text: '\u2014', full: 'none' },
      known ? { text: formatCell(losses[t]), full: formatFull(losses[t]) } : { text: '\u2014', full: 'none' },
      ...(counted ? [counted[t] ? { text: 'counted', full: String(counted[t]) } : { text: '', full: '0' }] : []),
    ];
  });
  const head = [
    'position t',
    'token',
    'most likely next',
    'its probability',
    'next token',
    'its probability',
    '\u2212ln p',
  ];
  if (counted) head.push('in the loss');
  return { head, rows };
}

/** Typed token numbers ("3 17, 5") as numbers for the engine, which checks them; blank: null. */
export function typedTokens(text) {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  return parts.length ? parts.map(Number) : null;
}
