// The Backpropagation chapter's panel: the chain rule's arrows for this head (what each gradient
// was computed from, read from the trace's operands), the softmax backward's two facts checked on
// the trace's numbers, and the √d_k study the engine ran (config.gradientScaling). Every number
// is the engine's; this only arranges and compares them.

import { formatCell, formatSci } from './format.js';
import { operandCaption, stageById } from './stage-table.js';

const isGradient = (id) => stageById(id)?.group.startsWith('gradient');

// What a gradient was computed from: each operand's caption, or for an operand given once per
// head (d_v's weights, d_x's parts), its name once with the count.
function sourcesOf(entry, stage) {
  const names = [...new Set(stage.operands.map((o) => o.name))];
  return names.map((name) => {
    const all = stage.operands.filter((o) => o.name === name);
    if (all.length === 1) return operandCaption(entry, all[0]);
    const label = stageById(name)?.result ?? name.replace(/^d_([a-z])/, (_, l) => `d${l.toUpperCase()}`);
    return `${label} \u00d7 ${all.length}`;
  });
}

// This head's gradients in the order they were computed (its K/V head's among them), each with
// the operands it was computed from.
function chainOf(steps, head, index) {
  const kvHead = steps.find((s) => s.head === head)?.kvHead ?? head;
  const mine = steps.filter(
    (s) =>
      isGradient(s.id) &&
      (s.head === null || s.head === head || (stageById(s.id).sharedByGroup && s.kvHead === kvHead)),
  );
  return mine.map((s) => {
    const entry = stageById(s.id);
    return { index: s.index, result: entry.result, from: sourcesOf(entry, s.stage), current: s.index === index };
  });
}

// Each row of dS̃ sums to 0, and the keys the mask hid get exactly 0: checked on this head.
function factsOf(steps, head) {
  const stepOf = (id) => steps.find((s) => s.id === id && s.head === head);
  const dScaled = stepOf('d_scaled')?.stage;
  if (!dScaled) return null;
  const sums = Array.from(dScaled.totals, Math.abs);
  const entries = Array.from(dScaled.values, Math.abs);
  const facts = { largestRowSum: formatSci(Math.max(...sums)), largestEntry: formatCell(Math.max(...entries)) };
  const mask = stepOf('masked')?.stage.operands.find((o) => o.name === 'M');
  if (mask) {
    const hidden = [...mask.values.keys()].filter((k) => mask.values[k] === -Infinity);
    facts.masked = { count: hidden.length, zero: hidden.filter((k) => dScaled.values[k] === 0).length };
  }
  return facts;
}

const SERIES = [
  { scale: 'one', scaled: true, label: 'weights × 1, ÷√d_k' },
  { scale: 'one', scaled: false, label: 'weights × 1, no ÷√d_k' },
  { scale: 'premise', scaled: true, label: 'unit-variance q, k; ÷√d_k' },
  { scale: 'premise', scaled: false, label: 'unit-variance q, k; no ÷√d_k' },
];

const range = (values, format) => {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return lo === hi ? format(lo) : `${format(lo)}\u2013${format(hi)}`;
};

// What the measurement shows, in words, from its own rows (whatever they show).
function findings(points) {
  const pick = (scale, scaled) =>
    points.filter((p) => (p.weightScale === 1) === (scale === 'one') && p.scaled === scaled);
  const num = (v) => formatCell(v);
  const big = (v) => (v >= 1000 ? Math.round(v).toLocaleString('en-US') : formatCell(v));
  const [oneOn, oneOff, preOn, preOff] = [
    pick('one', true),
    pick('one', false),
    pick('premise', true),
    pick('premise', false),
  ];
  const last = (list) => list[list.length - 1];
  const dK = last(preOn).dK;
  const leaving = last(preOn).meanAbsDScaled > last(preOff).meanAbsDScaled;
  const reaching = last(preOn).meanAbsDScores > last(preOff).meanAbsDScores;
  return [
    'With unit-variance q and k components (the premise of \u00f7\u221ad_k, ' +
      `weights \u00d7 ${num(preOn[0].weightScale)}), ` +
      `the scaled scores keep a variance of ${range(
        preOn.map((p) => p.variance),
        num,
      )} at every d_k, while without ` +
      `the division it grows with d_k, to ${big(last(preOff).variance)} at d_k = ${dK}; the largest weight of a row ` +
      `stays at ${range(
        preOn.map((p) => p.maxWeight),
        num,
      )} with it and climbs to ${num(last(preOff).maxWeight)} ` +
      'without it: the unscaled softmax heads for one-hot.',
    `At d_k = ${dK} the gradient leaving the softmax, mean |dS\u0303|, is ` +
      `${formatSci(last(preOn).meanAbsDScaled)} with ` +
      `the division and ${formatSci(last(preOff).meanAbsDScaled)} without: ` +
      (leaving
        ? 'the saturated softmax passes less back. '
        : 'here the unscaled softmax passes as much back or more. ') +
      'What reaches Q\u00b7K\u1d40, mean |dS|, also carries the 1/\u221ad_k factor: ' +
      `${formatSci(last(preOn).meanAbsDScores)} ` +
      `against ${formatSci(last(preOff).meanAbsDScores)}` +
      (reaching
        ? '.'
        : ', so the division makes this gradient smaller, not larger; its gain is the unsaturated weights.'),
    `At weights \u00d7 1 the premise fails (each q and k component has a variance of about d_model = 16): even with ` +
      `\u00f7\u221ad_k the scaled scores have a variance of ${range(
        oneOn.map((p) => p.variance),
        big,
      )} and the largest ` +
      `weight is ${range(
        oneOn.map((p) => p.maxWeight),
        num,
      )}, against ${range(
        oneOff.map((p) => p.maxWeight),
        num,
      )} ` +
      'without: the division fixes how the variance grows with d_k, not a bad scale of the weights.',
  ];
}

/** The panel's data, or null when the trace carries no study. */
export function backwardPanel(config, steps, head, index) {
  const points = config.gradientScaling ?? [];
  if (!points.length) return null;
  const series = SERIES.map((s) => ({
    ...s,
    points: points
      .filter((p) => (p.weightScale === 1) === (s.scale === 'one') && p.scaled === s.scaled)
      .map((p) => ({ dK: p.dK, maxWeight: p.maxWeight, meanAbsDScores: p.meanAbsDScores })),
  }));
  return {
    kind: 'backward',
    chain: chainOf(steps, head, index),
    facts: factsOf(steps, head),
    head: config.numHeads > 1 ? head : null,
    scaling: {
      table: {
        headers: [
          'd_k',
          'weights',
          '\u00f7\u221ad_k',
          'var(S\u0303)',
          'largest weight',
          'mean |dS\u0303|',
          'mean |dS|',
        ],
        rows: points.map((p) => [
          String(p.dK),
          p.weightScale === 1 ? '\u00d7 1' : `\u00d7 ${formatCell(p.weightScale)}`,
          p.scaled ? 'yes' : 'no',
          formatCell(p.variance),
          formatCell(p.maxWeight),
          formatSci(p.meanAbsDScaled),
          formatSci(p.meanAbsDScores),
        ]),
      },
      series,
      findings: findings(points),
    },
  };
}
