// The stage's explanation: its key sentence, then the rest behind a More button that stays as
// the reader left it from stage to stage (the paragraph's text is whole either way; the rest is
// hidden, from screen readers too, while folded). update({ key, rest, stage }) (model/
// key-sentence.js splits the text). steady: within one
// stage (update's stage), the paragraph never grows shorter, so a config change that rewords it
// (W_O off: the concat is the output) moves nothing below it.

import { el, setText, steadyHeight } from './dom.js';

export function createExplanation(host, { steady = false } = {}) {
  const root = el('p', 'explanation');
  const key = document.createTextNode('');
  const rest = el('span', 'explanation-rest');
  rest.id = 'explanation-rest';
  root.append(key, rest);
  const more = el('button', 'more-toggle');
  more.type = 'button';
  more.setAttribute('aria-controls', rest.id);
  let open = false;
  const show = () => {
    rest.hidden = !open;
    more.setAttribute('aria-expanded', String(open));
    setText(more, open ? 'Less' : 'More');
  };
  more.addEventListener('click', () => {
    open = !open;
    show();
  });
  host.append(root, more);
  const height = steady ? steadyHeight(root) : null;
  return {
    update({ key: first, rest: others, stage = null }) {
      height?.hold(stage);
      key.data = first;
      setText(rest, others ? ` ${others}` : '');
      more.hidden = !others;
      show();
    },
    destroy() {
      height?.stop();
      root.remove();
      more.remove();
    },
  };
}
