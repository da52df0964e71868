// What a first view paints from the first bundles alone: one of the three seed-42 examples
// (their runs are in the engine's core: CORE_PRESETS) at one of its opening stages (their
// formulas are typeset in the first bundles, and none of the views that come with the later
// script shows there), with no cell explained. Any other first view waits for the engine's rest
// and the later script, so that it is whole when it is painted.
//   paintsFirst(wanted) with wanted: { form: { preset }, stage, selection } (state/url-hash.js,
//   state/attributes.js); FIRST_STAGES, the stage entries that say firstView, which
//   scripts/prerender-formulas.mjs reads too.
import { CORE_PRESETS } from '../engine-split.js';
import { STAGES } from '../model/stage-table.js';

export const FIRST_STAGES = STAGES.filter((s) => s.firstView).map((s) => s.id);

export function paintsFirst(wanted) {
  return CORE_PRESETS.includes(wanted.form?.preset) && FIRST_STAGES.includes(wanted.stage ?? 'x') && !wanted.selection;
}
