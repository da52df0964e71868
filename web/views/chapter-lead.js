// The chapter's lead. At the chapter's first stage: its key sentence, the rest behind "More about
// this chapter"; at the stages after it, all of it folded behind "About this chapter", since the
// reader has met it. The disclosure stays as the reader left it from stage to stage. It keeps
// the stage near the top of the screen, a phone's above all.
//   createChapterLead(host) → { update({ key, rest, folded }), destroy() } (model/key-sentence.js
//   splits the lead)

import { el, setText } from './dom.js';

export function createChapterLead(host) {
  const key = el('p', 'lead-key');
  const more = el('details', 'lead-more');
  const summary = el('summary');
  const keyAgain = el('p'); // the key sentence inside the fold, when it is folded too
  const rest = el('p');
  more.append(summary, keyAgain, rest);
  host.append(key, more);
  let shown = null;
  return {
    update({ key: first, rest: others, folded }) {
      const view = JSON.stringify([first, others, folded]);
      if (view === shown) return;
      shown = view;
      setText(key, folded ? '' : first);
      key.hidden = folded;
      setText(keyAgain, folded ? first : '');
      keyAgain.hidden = !folded;
      setText(rest, others);
      rest.hidden = !others;
      setText(summary, folded ? 'About this chapter' : 'More about this chapter');
      more.hidden = !folded && !others;
    },
    destroy() {
      key.remove();
      more.remove();
    },
  };
}
