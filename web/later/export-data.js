// Stands in for app/export-data.js in the first bundles (exported by ./stand-ins.js, which they
// take for app/later-views.js): the export menu's files (JSON, CSV, .npy, SVG, PNG, the numpy script) come
// with the later script (./load.js). Until it is in, the data is only the arguments, which the
// menu's stand-in (./export-menu.js) hands to the real exportMenuData when it arrives.
//   exportMenuData(s, view, catalog, within) → the real data, or { later: [s, view, catalog, within] }

import { laterNow } from './load.js';

export function exportMenuData(...args) {
  return laterNow()?.exportMenuData(...args) ?? { later: args };
}
