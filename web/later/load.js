// The later script (attention-stepper-later.js, one classic script for every page and both
// element bundles, built by scripts/bundle.mjs from web/later-script.js): what no first stage
// needs (app/later-views.js), held back so that the first paint fetches less: the export menu's
// data and files, the chapter panels, the KV-cache calculator, head pruning, explain-a-number and
// the other stages' typeset formulas. The page and the element load it after the first paint,
// with the engine's rest and KaTeX (main.js, element/assets.js); the first bundles' stand-ins
// (./stand-ins.js) wait for it. A classic script, so it also loads from file:// and under
// script-src 'self'.
//   loadLater() → a promise of its exports (once); laterNow() → them, or null before they are in;
//   whenLater() → a promise of them that does not start the load.

import { assetUrl } from '../asset-url.js';

const LATER_FILE = 'attention-stepper-later.js';
const GLOBAL = 'attentionStepperLater';

let loading = null;
let arrive;
const arrived = new Promise((resolve) => {
  arrive = resolve;
});

export const laterNow = () => globalThis[GLOBAL] ?? null;
export const whenLater = () => arrived;
if (laterNow()) arrive(laterNow()); // a page that loaded the script itself

export function loadLater() {
  if (laterNow()) return Promise.resolve(laterNow());
  loading ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = assetUrl(LATER_FILE); // beside the bundle that holds this module
    script.addEventListener('load', () => {
      if (!laterNow()) return reject(new Error(`${script.src} defined nothing`));
      arrive(laterNow());
      return resolve(laterNow());
    });
    script.addEventListener('error', () => {
      loading = null; // a later call tries again
      reject(new Error(`${script.src} could not be loaded`));
    });
    document.head.append(script);
  });
  return loading;
}
