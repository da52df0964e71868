// Steps through a trace: the order Prev/Next follow, the grouped stage list and the progress
// indicator all come from the trace's stages and the stage table. Pure.

import { GROUPS, STAGES, stageById } from './stage-table.js';

// One step per traced stage, in the engine's order: x; q … head for each head; concat; output.
export function buildSteps(trace) {
  return trace.stages.map((stage, index) => ({ index, id: stage.id, head: stage.head, stage }));
}

// Only the stages listed (ids; null keeps all), renumbered so a step's index is its position.
export function filterSteps(steps, ids) {
  if (!ids) return steps;
  return steps.filter((s) => ids.includes(s.id)).map((s, index) => ({ ...s, index }));
}

// The step for (id, head). A stage this trace lacks (masked without the causal mask, output
// without W_O) falls back to the next stage of the same head in table order, else the last step.
export function findStepIndex(steps, id, head) {
  const at = (sid) => steps.findIndex((s) => s.id === sid && (s.head === null || s.head === head));
  const exact = at(id);
  if (exact >= 0) return exact;
  const order = STAGES.map((s) => s.id);
  for (const next of order.slice(order.indexOf(id) + 1)) {
    const found = at(next);
    if (found >= 0) return found;
  }
  return order.includes(id) ? steps.length - 1 : 0;
}

export function clampStep(steps, index) {
  return Math.max(0, Math.min(steps.length - 1, index));
}

// The head the per-head list shows: the current step's, else the one picked.
export function currentHead(steps, index, pickedHead) {
  const step = steps[index];
  return step && step.head !== null ? step.head : pickedHead;
}

function groupTitle(groupId, head, numHeads) {
  if (groupId !== 'head') return GROUPS.find((g) => g.id === groupId).title;
  return numHeads > 1 ? `Head ${head} of ${numHeads}` : 'Attention';
}

// → { groups: [{ id, title, items: [{ index, label, current, done }] }] }
export function stageListView(steps, index, pickedHead, numHeads) {
  const head = currentHead(steps, index, pickedHead);
  const groups = GROUPS.map((g) => ({
    id: g.id,
    title: groupTitle(g.id, head, numHeads),
    items: steps
      .filter((s) => stageById(s.id)?.group === g.id && (g.id !== 'head' || s.head === head))
      .map((s) => ({ index: s.index, label: stageById(s.id).title, current: s.index === index, done: s.index < index })),
  }));
  return { groups: groups.filter((g) => g.items.length > 0) };
}

export function progressView(steps, index) {
  const step = steps[index];
  const entry = stageById(step.id);
  return {
    index,
    total: steps.length,
    text: `Step ${index + 1} of ${steps.length}`,
    atStart: index === 0,
    atEnd: index === steps.length - 1,
    title: entry ? entry.title : step.id,
  };
}

// Head picker: one button per head; null when there is a single head.
export function headPickerView(numHeads, head) {
  if (numHeads < 2) return null;
  return { heads: Array.from({ length: numHeads }, (_, h) => ({ head: h, label: String(h), current: h === head })) };
}
