// Prev / Next buttons and the progress indicator. update({ index, total, text, atStart, atEnd }).

import { el, setText } from './dom.js';

export function createStepper(host, { onPrev, onNext }) {
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
  next.addEventListener('click', onNext);
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
      if (view.atEnd && focused === next) prev.focus();
      prev.disabled = view.atStart;
      next.disabled = view.atEnd;
    },
    destroy() {
      root.remove();
    },
  };
}
