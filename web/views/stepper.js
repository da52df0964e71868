// Prev / Next buttons and the progress indicator. update({ index, total, text, atStart, atEnd,
// nextChapter }): at the last stage Next offers the next chapter, when there is one to offer.

import { el, setText } from './dom.js';

export function createStepper(host, { onPrev, onNext, onNextChapter = () => {} }) {
  const root = el('div', 'stepper');
  const prev = el('button', 'step-prev', '\u2190 Prev');
  const next = el('button', 'step-next', 'Next \u2192');
  prev.type = 'button';
  next.type = 'button';
  prev.setAttribute('aria-keyshortcuts', 'ArrowLeft');
  next.setAttribute('aria-keyshortcuts', 'ArrowRight');
  const progress = el('progress', 'step-progress');
  const text = el('span', 'step-text');
  text.id = 'step-text';
  progress.setAttribute('aria-labelledby', 'step-text');
  prev.addEventListener('click', onPrev);
  let nextChapter = null;
  next.addEventListener('click', () => (nextChapter ? onNextChapter(nextChapter.id) : onNext()));
  root.append(prev, next, text, progress);
  host.append(root);
  return {
    update(view) {
      progress.max = view.total;
      progress.value = view.index + 1;
      setText(text, view.text);
      // A focused button about to be disabled hands the focus to the other one: else it falls
      // to <body>, and the next arrow key would leave the stepper (a slide deck would move).
      const focused = root.getRootNode().activeElement;
      if (view.atStart && focused === prev) next.focus();
      nextChapter = view.nextChapter ?? null;
      if (view.atEnd && !nextChapter && focused === next) prev.focus();
      prev.disabled = view.atStart;
      next.disabled = view.atEnd && !nextChapter;
      setText(next, nextChapter ? `Next chapter: ${nextChapter.title} \u2192` : 'Next \u2192');
      next.classList.toggle('is-next-chapter', Boolean(nextChapter));
    },
    destroy() {
      root.remove();
    },
  };
}
