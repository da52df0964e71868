// The chapter's lead: its first sentence, the rest behind "More about this chapter", a disclosure
// that stays as the reader left it from chapter to chapter. It keeps the stage near the top of
// the screen, a phone's above all.
//   createChapterLead(host) → { update([key, rest]), destroy() } (model/key-sentence.js splits it)

import { el, setText } from './dom.js';

export function createChapterLead(host) {
  const key = el('p', 'lead-key');
  const more = el('details', 'lead-more');
  const rest = el('p');
  more.append(el('summary', null, 'More about this chapter'), rest);
  host.append(key, more);
  let shown = null;
  return {
    update([first, others]) {
      if (first + others === shown) return;
      shown = first + others;
      setText(key, first);
      setText(rest, others);
      more.hidden = !others;
    },
    destroy() {
      key.remove();
      more.remove();
    },
  };
}
