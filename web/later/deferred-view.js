// A view whose code comes with the later script (./load.js): deferredView(name) → a function
// with the view's signature, createX(host, options) → { update(data), destroy() }, that keeps
// the newest data and hands it to the real view (later.views[name]) once the script is in. Only
// for views a first view does not show (web/later/first-view.js): they draw nothing until then.
// It forwards the view contract, VIEW_METHODS, and nothing else; so the later script hands over
// only views that keep it (checkedView, applied in web/later-script.js): a view that gains a
// method, or loses one, is refused by name when it is made, not left half-working in the first
// bundles alone.
import { laterNow, whenLater } from './load.js';

export const VIEW_METHODS = ['update', 'destroy'];

/** The view, when it is exactly { update(), destroy() }; else an Error naming it and its keys. */
export function checkedView(name, view) {
  const keys = Object.keys(view ?? {});
  if (keys.length !== VIEW_METHODS.length || VIEW_METHODS.some((m) => typeof view[m] !== 'function'))
    throw new Error(`${name}: a later view must be { update, destroy } (later/deferred-view.js), not { ${keys} }`);
  return view;
}

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
