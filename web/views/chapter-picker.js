// The chapter tabs: one button per chapter, the current one pressed. One Tab stop for them all,
// the current chapter's button (a roving tabindex); ←/→, Home and End move between them. In a
// narrow stepper they are one row that scrolls sideways (chapters.css), the current one in view.
// update({ chapters: [{ id, title, current }] }); onPick(id).

import { el, redrawingView, scrollCue } from './dom.js';

// Scrolls the row (only the row, never the page) so that the current chapter's button is in it.
function showCurrent(list, button) {
  if (list.scrollWidth <= list.clientWidth) return;
  const [box, b] = [list.getBoundingClientRect(), button.getBoundingClientRect()];
  if (b.left < box.left || b.right > box.right) list.scrollLeft += b.left - box.left - (box.width - b.width) / 2;
}

export function createChapterPicker(host, { onPick }) {
  const root = el('nav', 'chapter-picker');
  root.setAttribute('aria-label', 'Chapters');
  root.addEventListener('keydown', (event) => {
    const buttons = [...root.querySelectorAll('.chapter-button')];
    const at = buttons.indexOf(event.target);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: buttons.length - 1 }[event.key];
    if (at < 0 || to === undefined) return;
    event.preventDefault(); // the stepper's ←/→ step only where no tab took them
    buttons[(to + buttons.length) % buttons.length].focus();
  });
  return redrawingView(host, root, (view) => {
    const list = el('ul', 'chapter-list');
    for (const c of view.chapters) {
      const b = el('button', 'chapter-button', c.title);
      b.type = 'button';
      b.dataset.chapter = c.id;
      b.setAttribute('aria-pressed', String(c.current));
      b.tabIndex = c.current ? 0 : -1;
      b.addEventListener('click', () => onPick(c.id));
      const li = el('li');
      li.append(b);
      list.append(li);
    }
    root.append(list);
    const mark = scrollCue(list);
    const current = list.querySelector('[aria-pressed="true"]');
    if (current) showCurrent(list, current);
    mark();
  });
}
