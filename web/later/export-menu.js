// Stands in for views/export-menu.js in the first bundles (exported by ./stand-ins.js, which they
// take for app/later-views.js): the same menu, drawn at once (its button is part of the first paint), whose
// data may still wait for the later script (./export-data.js). Such data is kept, and the menu
// filled when the script is in. Until then the menu must not open (it has nothing to show): a
// press of its button or of its key is held, the script asked for at once, and the press
// replayed when the menu is filled.

import { createExportMenu as createMenu, EXPORT_KEY } from '../views/export-menu.js';
import { loadLater, whenLater } from './load.js';

const TYPING = 'input, select, textarea, [contenteditable="true"]'; // as the menu's own key

export function createExportMenu(host) {
  const keys = host.getRootNode(); // where the menu listens for its key
  let waiting = null; // the arguments of the newest data not yet made
  let filled = false;
  let asked = false;
  let gone = false;
  const hurry = () => loadLater().then(fill, () => {});
  const hold = (event) => {
    event.preventDefault(); // the menu's own key listener skips a prevented event
    asked = true;
    hurry();
  };
  const onClick = (event) => {
    if (filled || !event.target.closest?.('.export-toggle')) return;
    event.stopPropagation(); // the button never sees it
    hold(event);
  };
  const onKey = (event) => {
    if (
      filled ||
      event.key !== EXPORT_KEY ||
      event.altKey ||
      event.ctrlKey ||
      event.metaKey ||
      event.target.closest?.(TYPING)
    )
      return;
    hold(event);
  };
  host.addEventListener('click', onClick, true);
  keys.addEventListener('keydown', onKey); // before the menu's own listener: it runs first
  host.addEventListener('pointerdown', hurry, { once: true });
  host.addEventListener('focusin', hurry, { once: true });
  const menu = createMenu(host);
  const show = (data) => {
    menu.update(data);
    filled = true;
    if (asked) host.querySelector('.export-toggle')?.click();
    asked = false;
  };
  function fill(later) {
    if (gone || !waiting) return;
    const args = waiting;
    waiting = null;
    show(later.exportMenuData(...args));
  }
  return {
    update(data) {
      if (!data.later) {
        waiting = null;
        show(data);
        return;
      }
      const first = !waiting;
      waiting = data.later;
      if (first) whenLater().then(fill);
    },
    destroy() {
      gone = true;
      host.removeEventListener('click', onClick, true);
      keys.removeEventListener('keydown', onKey);
      host.removeEventListener('pointerdown', hurry);
      host.removeEventListener('focusin', hurry);
      menu.destroy();
    },
  };
}
