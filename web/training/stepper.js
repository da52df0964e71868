// The checkpoint the reader picked, stepped stage by stage: the stepper of the Trained heads
// chapter (app/mount-stepper.js), whose weights are the run's model at that checkpoint instead of
// a shipped one (catalog.checkpoints, model/validate.js), on the sequence the heads show. Its
// explain, quiz and export are the chapter's. Every number is the engine's.
import { mountStepper } from '../app/mount-stepper.js';
import { catalogFrom } from '../model/presets.js';
import { presetForm } from '../state/form.js';

/** → { show({ model, step, tokens, scored }), setTheme(theme) }: scored lists the positions whose
 *  loss counts ([] for every position); root carries data-stage, data-head and data-step. */
export function createCheckpointStepper(root, { engine, katex, theme }) {
  const held = new Map(); // name → model: only the one shown
  const catalog = Object.freeze({ ...catalogFrom(engine), checkpoints: held });
  const stepper = mountStepper(root, {
    engine,
    catalog,
    katex,
    controls: 'compact',
    landmark: false, // the page has its main
    theme,
    marker: root,
    keyTarget: root,
  });
  let serial = 0; // a new model gets a new name: the form changes, so the stepper runs again
  let shown = null;
  return {
    show({ model, step, tokens, scored }) {
      if (model !== shown) [shown, serial] = [model, serial + 1];
      const name = `step ${step} (model ${serial})`;
      held.clear();
      held.set(name, model);
      const s = stepper.state();
      const at = s.steps[s.step]; // the stage read before: kept when the new trace has it
      stepper.update({
        form: {
          ...presetForm(catalog, null, 'trained-heads'),
          preset: 'custom',
          tokens: tokens.join(' '),
          checkpoint: name,
          scored: scored.join(', '),
        },
        stage: at?.id ?? null,
        head: s.head,
        time: at?.step ?? null,
      });
    },
    setTheme: stepper.setTheme,
  };
}
