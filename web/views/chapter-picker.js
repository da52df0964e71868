// The chapter tabs: one button per chapter, the current one pressed.
// update({ chapters: [{ id, title, current }] }); onPick(id).

import { el, redrawingView } from './dom.js';

export function createChapterPicker(host, { onPick }) {
  const root = el('nav', 'chapter-picker');
  root.setAttribute('aria-label', 'Chapters');
  return redrawingView(host, root, (view) => {
    const list = el('ul', 'chapter-list');
    for (const c of view.chapters) {
      const b = el('button', 'chapter-button', c.title);
      b.type = 'button';
      b.dataset.chapter = c.id;
      b.setAttribute('aria-pressed', String(c.current));
      b.addEventListener('click', () => onPick(c.id));
      const li = el('li');
      li.append(b);
      list.append(li);
    }
    root.append(list);
  });
}
