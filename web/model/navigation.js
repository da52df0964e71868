// Steps through a trace: the order Prev/Next follow, the grouped stage list and the progress
// indicator all come from the trace's stages and the stage table. Pure.

import { rowsText } from './format.js';
import { GROUPS, STAGES, stageById, titleOf } from './stage-table.js';

// One step per traced stage, in the engine's order: inputs; q … head for each head; concat;
// output; the encoder layer's stages. With several heads, one step more at each decode step or
// layer, after its heads: all heads' weights side by side (all_heads), composed of the trace's
// own weights stages (nothing computed).
export function buildSteps(trace) {
  const traced = trace.stages.map((stage) => ({
    id: stage.id,
    head: stage.head,
    kvHead: stage.kvHead,
    step: stage.step ?? null,
    stage,
  }));
  const steps = trace.config.numHeads > 1 ? withAllHeads(traced) : traced;
  return steps.map((s, index) => ({ index, ...s }));
}

// After the last per-head stage of each time (or of the pass), the all_heads step of its weights.
function withAllHeads(traced) {
  const out = [];
  traced.forEach((s, i) => {
    out.push(s);
    const inHeads = (x) => x && stageById(x.id)?.group === 'head' && x.step === s.step;
    if (!inHeads(s) || inHeads(traced[i + 1])) return;
    const weights = traced.filter((x) => x.id === 'weights' && x.step === s.step);
    if (weights.length > 1)
      out.push({ id: 'all_heads', head: null, kvHead: null, step: s.step, stage: allHeads(weights) });
  });
  return out;
}

// The heads' weights as one stage's operands: h matrices of one shape, no result of its own.
function allHeads(weights) {
  const { shape, axes, step } = weights[0].stage;
  return {
    id: 'all_heads',
    head: null,
    kvHead: null,
    step,
    shape,
    axes,
    equation: `${weights.length} \u00d7 (${shape[0]}, ${shape[1]})`,
    symbolic: `h \u00d7 (${axes[0]}, ${axes[1]})`,
    values: null,
    operands: weights.map(({ stage: w }) => ({ name: 'weights', head: w.head, shape, axes, values: w.values })),
    read: weights[0].stage, // the first head's weights stage: what its softmax read
    terms: [],
  };
}

// Only the stages listed (ids; null keeps all), renumbered so a step's index is its position.
export function filterSteps(steps, ids) {
  if (!ids) return steps;
  return steps.filter((s) => ids.includes(s.id)).map((s, index) => ({ ...s, index }));
}

// The K/V head query head `head` reads (every step of that head carries it).
function kvHeadOf(steps, head) {
  return steps.find((s) => s.head === head)?.kvHead ?? head;
}

// Does step s belong to query head `head`? Its own stages, and the K and V of its group.
function ofHead(steps, s, head) {
  if (s.head === head) return true;
  return Boolean(stageById(s.id)?.sharedByGroup) && s.kvHead === kvHeadOf(steps, head);
}

// The step for (id, head). A stage this trace lacks (masked without a mask, output without
// W_O) falls back to the next stage of the same head in table order, else the last step; an
// unknown or missing id, or an input another chapter has (x_q for x), gives the first step.
export function findStepIndex(steps, id, head, time = null) {
  const at = (sid) =>
    steps.findIndex(
      (s) => s.id === sid && (s.head === null || ofHead(steps, s, head)) && (time === null || s.step === time),
    );
  const exact = at(id);
  if (exact >= 0) return exact;
  const order = STAGES.map((s) => s.id);
  if (!order.includes(id) || stageById(id).group === 'inputs') return 0;
  for (const next of order.slice(order.indexOf(id) + 1)) {
    const found = at(next);
    if (found >= 0) return found;
  }
  return steps.length - 1;
}

// The second axis (decode steps, tiles, the model's layers): the values it takes in this trace, in order.
export function timeline(steps) {
  return [...new Set(steps.map((s) => s.step).filter((t) => t !== null))];
}

// The decode step (or tile) the stage list shows at index: its own, else the first one before
// the steps begin and the last one after they end (null without a second axis).
export function nearestTime(steps, index) {
  const own = steps[index]?.step ?? null;
  if (own !== null) return own;
  const times = timeline(steps);
  if (!times.length) return null;
  const first = steps.findIndex((s) => s.step !== null);
  return index < first ? times[0] : times.at(-1);
}

// The same stage and head one decode step (or tile) later or earlier, else that step's first
// stage; index unchanged at either end, or when the trace has no second axis.
export function moveInTime(steps, index, delta, head) {
  const times = timeline(steps);
  const now = steps[index]?.step;
  if (now === null || now === undefined) return index;
  const next = times[times.indexOf(now) + delta];
  if (next === undefined) return index;
  const same = findStepIndex(steps, steps[index].id, head, next);
  return steps[same]?.step === next ? same : steps.findIndex((s) => s.step === next);
}

export function clampStep(steps, index) {
  return Math.max(0, Math.min(steps.length - 1, index));
}

// The head the per-head list shows: the current step's, else the one picked. A shared K/V step
// keeps the picked head when that head is in its group.
export function currentHead(steps, index, pickedHead) {
  const step = steps[index];
  if (!step || step.head === null) return pickedHead;
  return ofHead(steps, step, pickedHead) ? pickedHead : step.head;
}

function groupTitle(groupId, head, config, now) {
  if (groupId === 'inputs' && now !== null && config.kind === 'kv-cache') return `Step t = ${now}`;
  if (groupId === 'tile' && now !== null) return `Tile ${now}`;
  const layer = config.kind === 'model' && now !== null ? `Layer ${now}` : null; // the model's time axis
  if (layer && groupId === 'layer') return `${layer}: the residual stream`;
  if (layer && groupId === 'combine') return `${layer}: combine heads`;
  const of = config.numHeads > 1 ? `head ${head} (of 0\u2013${config.numHeads - 1})` : null;
  if (groupId === 'gradient-head') return of ? `Backward, ${of}` : 'Backward through attention';
  if (groupId !== 'head') return GROUPS.find((g) => g.id === groupId).title;
  if (layer) return of ? `${layer}, ${of}` : `${layer}, attention`;
  return of ? `H${of.slice(1)}` : 'Attention';
}

function itemLabel(step, config) {
  const entry = stageById(step.id);
  const shared = entry.sharedByGroup && config.numKvHeads < config.numHeads ? ` (K/V head ${step.kvHead}, shared)` : '';
  return `${titleOf(entry, config, step.stage)}${shared}`;
}

const TABLE_ORDER = new Map(STAGES.map((s, i) => [s.id, i]));

// Stages a checkbox of the form adds: { id, flag, after } from the stage table's `optional`.
const OPTIONAL_STAGES = STAGES.filter((s) => s.optional).map((s) => ({ id: s.id, ...s.optional }));

/** The optional stages a chapter's form offers (fields: its field names) and the chosen stages (null: all) keep. */
export function offeredStages(fields, stages = null) {
  return OPTIONAL_STAGES.filter((o) => fields.includes(o.flag) && (!stages || stages.includes(o.id))).map((o) => o.id);
}

// The places of the offered stages this configuration leaves out, as steps without an index:
// listed, a checkbox's stage coming or going changes one item's label and moves nothing below
// it (the form, whose checkbox was just clicked).
function offPlaces(steps, head, config, offered) {
  const shown = (s) => s.head === null || s.head === head; // this head's, or no head's
  return OPTIONAL_STAGES.filter(
    (o) =>
      offered.includes(o.id) &&
      !config[o.flag] &&
      steps.some((s) => s.id === o.after && shown(s)) &&
      !steps.some((s) => s.id === o.id && shown(s)),
  ).map((o) => ({ id: o.id, index: null, head: stageById(o.id).group === 'head' ? head : null, step: null }));
}

function itemOf(step, index, path, config) {
  if (step.index === null) {
    const { flag } = OPTIONAL_STAGES.find((o) => o.id === step.id);
    const label = `${titleOf(stageById(step.id), { ...config, [flag]: true })} (off)`;
    return { index: null, label, current: false, done: false };
  }
  const done = path.indexOf(step.index) < path.indexOf(index); // before this stage on the path
  return { index: step.index, label: itemLabel(step, config), current: step.index === index, done };
}

// The steps the stage list shows for this head at this time (decode step, tile or layer; null
// without one), by group in the stage table's order (a shared K/V step comes after its head's Q,
// as the engine computes them).
function listedGroups(steps, head, now, extra = []) {
  return GROUPS.map((g) => ({
    group: g,
    steps: [...steps, ...extra]
      .filter((s) => s.step === null || s.step === now)
      .filter((s) => stageById(s.id)?.group === g.id && (!g.perHead || ofHead(steps, s, head)))
      .sort((a, b) => TABLE_ORDER.get(a.id) - TABLE_ORDER.get(b.id) || a.index - b.index),
  }));
}

// The reader's path through the trace at a time: what the stage list shows, in its order (one
// head walked through, all heads side by side, then the heads combined). Indices into steps.
function pathAt(steps, head, now) {
  return listedGroups(steps, head, now).flatMap((g) => g.steps.map((s) => s.index));
}

/** The path the step at index lies on (its head, or the one picked, at its time). */
export function pathOf(steps, index, pickedHead) {
  return pathAt(steps, currentHead(steps, index, pickedHead), nearestTime(steps, index));
}

/** Where Prev (delta −1) or Next (+1) goes: the neighbour on the path; from the last stage of a
 * decode step (tile, layer), the first stage of the next one, and back. index at either end. */
export function stepAlong(steps, index, pickedHead, delta) {
  const head = currentHead(steps, index, pickedHead);
  const path = pathOf(steps, index, pickedHead);
  const at = path.indexOf(index);
  if (at < 0) return clampStep(steps, index + delta); // not listed: a chosen stage of another head
  const next = path[at + delta];
  const now = steps[index].step;
  if (now !== null && (next === undefined || steps[next].step === null)) {
    const times = timeline(steps);
    const then = times[times.indexOf(now) + delta];
    const timed = then === undefined ? [] : pathAt(steps, head, then).filter((i) => steps[i].step === then);
    if (timed.length) return delta > 0 ? timed[0] : timed.at(-1);
  }
  return next ?? index;
}

/** Home and End: the path's first stage at the first time, its last at the last time. */
export function pathEnd(steps, index, pickedHead, which) {
  const times = timeline(steps);
  const now = which === 'first' ? (times[0] ?? null) : (times.at(-1) ?? null);
  const path = pathAt(steps, currentHead(steps, index, pickedHead), now);
  return which === 'first' ? path[0] : path.at(-1);
}

// → { groups: [{ id, title, items: [{ index, label, current, done }] }] }: the path's groups.
// offered (offeredStages): optional stages the form can add; one it leaves out is listed in its
// place, as "Causal mask (off)", with index null.
export function stageListView(steps, index, pickedHead, config, { offered = [] } = {}) {
  const head = currentHead(steps, index, pickedHead);
  const nowOrLast = nearestTime(steps, index);
  const off = offPlaces(steps, head, config, offered);
  const path = pathAt(steps, head, nowOrLast);
  const shown = listedGroups(steps, head, nowOrLast, off)
    .filter((g) => g.steps.length > 0)
    .map(({ group, steps: listed }) => ({
      id: group.id,
      title: groupTitle(group.id, head, config, nowOrLast),
      items: listed.map((s) => itemOf(s, index, path, config)),
    }));
  return { groups: config.kind === 'backward' ? withForwardFolded(shown, head, config) : shown };
}

// The backward chapter's outline: every forward group as one "Forward pass" group, folded
// unless the current stage is in it (the list's toggle opens it), then the gradients.
function withForwardFolded(groups, head, config) {
  const forward = groups.filter((g) => !g.id.startsWith('gradient'));
  const items = forward.flatMap((g) => g.items);
  const count = items.filter((i) => i.index !== null).length; // not the stages a checkbox leaves out
  const title = `Forward pass${config.numHeads > 1 ? ` (head ${head})` : ''}, ${count} stages`;
  const folded = { id: 'forward', title, items, collapsible: true, open: items.some((i) => i.current) };
  return [folded, ...groups.filter((g) => g.id.startsWith('gradient'))];
}

/** The step's place on its path: { index (from 0), total }. */
export function placeOnPath(steps, index, pickedHead) {
  const path = pathOf(steps, index, pickedHead);
  return { index: Math.max(0, path.indexOf(index)), total: path.length };
}

/** The counter and Prev/Next: the place on the path (one head's stages at one time). */
export function progressView(steps, index, pickedHead, config, nextChapter = null) {
  const step = steps[index];
  const entry = stageById(step.id);
  const { index: at, total } = placeOnPath(steps, index, pickedHead);
  const atEnd = stepAlong(steps, index, pickedHead, 1) === index;
  return {
    index: at,
    total,
    text: `Stage ${at + 1} of ${total}`,
    atStart: stepAlong(steps, index, pickedHead, -1) === index,
    atEnd,
    title: entry ? titleOf(entry, config, step.stage) : step.id,
    // At the last stage, the chapter after this one ({ id, title }), where the page offers it.
    nextChapter: atEnd ? nextChapter : null,
  };
}

// Head picker: one button per head; null when there is a single head.
export function headPickerView(numHeads, head) {
  if (numHeads < 2) return null;
  return { heads: Array.from({ length: numHeads }, (_, h) => ({ head: h, label: String(h), current: h === head })) };
}

const subscript = (k) => String(k).replace(/\d/g, (d) => String.fromCharCode(0x2080 + Number(d)));

// The slider over the second axis: its position and what it names (null without one).
export function timeView(steps, index, config, tokens) {
  const times = timeline(steps);
  if (!times.length) return null;
  const now = nearestTime(steps, index);
  const value = times.indexOf(now);
  if (config.kind === 'kv-cache') {
    return {
      max: times.length - 1,
      value,
      label: `Decode step t = ${now} (steps 0\u2013${times.length - 1}): token \u201c${tokens.T?.[now] ?? now}\u201d`,
    };
  }
  if (config.kind === 'model') {
    const range = `(layers 0\u2013${times.length - 1})`;
    const what =
      now === 0 ? 'reads R\u2080, the embeddings' : `reads R${subscript(now)}, layer ${now - 1}\u2019s stream`;
    // The embeddings and the prediction sit before and after the layers: the slider says so.
    const label =
      steps[index].step !== null
        ? `Layer ${now} ${range}: ${what}`
        : now === 0
          ? `Before the layers ${range}: the embeddings R\u2080 that layer 0 reads`
          : `After the layers ${range}: the prediction reads R${subscript(now + 1)}, layer ${now}\u2019s stream`;
    return { max: times.length - 1, value, label };
  }
  const { queryRows, keyRows } = steps.find((s) => s.step === now && s.stage.tile).stage.tile;
  return {
    max: times.length - 1,
    value,
    label:
      `Tile ${now} (tiles 0\u2013${times.length - 1}): ` +
      `${rowsText('query', queryRows)}, ${rowsText('key', keyRows)}`,
  };
}
