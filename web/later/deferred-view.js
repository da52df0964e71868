// A view whose code comes with the later script (./load.js): deferredView(name) → a function
// with the view's signature, createX(host, options) → { update(data), destroy() }, that keeps
// the newest data and hands it to the real view (later.views[name]) once the script is in. Only
// for views a first view does not show (web/later/first-view.js): they draw nothing until then.
import { laterNow, whenLater } from './load.js';

export function deferredView(name) {
  return (host, options) => {
    let real = null;
    let gone = false;
    let newest;
    let given = false;
    const make = (later) => {
      if (gone || real) return;
      real = later.views[name](host, options);
      if (given) real.update(newest);
    };
    if (laterNow()) make(laterNow());
    else whenLater().then(make);
    return {
      update(data) {
        if (real) return real.update(data);
        newest = data;
        given = true;
        return undefined;
      },
      destroy() {
        gone = true;
        real?.destroy();
      },
    };
  };
}
