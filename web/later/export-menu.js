// Stands in for views/export-menu.js in the first bundles (scripts/bundle.mjs swaps the import in
// mount-stepper.js): the same menu, drawn at once (its button is part of the first paint), whose
// data may still wait for the later script (./export-data.js). Such data is kept, and the menu
// filled when the script is in; a reader reaching for the menu before then asks for it at once.

import { createExportMenu as createMenu } from '../views/export-menu.js';
import { loadLater, whenLater } from './load.js';

export function createExportMenu(host) {
  const menu = createMenu(host);
  let waiting = null; // the arguments of the newest data not yet made
  let gone = false;
  const fill = (later) => {
    if (gone || !waiting) return;
    const args = waiting;
    waiting = null;
    menu.update(later.exportMenuData(...args));
  };
  const hurry = () => loadLater().then(fill, () => {});
  host.addEventListener('pointerdown', hurry, { once: true });
  host.addEventListener('focusin', hurry, { once: true });
  return {
    update(data) {
      if (!data.later) {
        waiting = null;
        menu.update(data);
        return;
      }
      const first = !waiting;
      waiting = data.later;
      if (first) whenLater().then(fill);
    },
    destroy() {
      gone = true;
      host.removeEventListener('pointerdown', hurry);
      host.removeEventListener('focusin', hurry);
      menu.destroy();
    },
  };
}
