// The SCORM 1.2 runtime's API object, found as the run-time environment specifies (SCORM 1.2 RTE
// §3.3.6.1, ADL's findAPI): a window named API in this window's parent chain, then in the chain of
// the window that opened it. A frame of another origin is passed over, not fatal.

const MAX_HOPS = 500; // the depth ADL's sample code gives up at

function apiIn(win) {
  try {
    const api = win.API;
    return api && typeof api.LMSInitialize === 'function' ? api : null;
  } catch {
    return null; // another origin's window: not ours to read
  }
}

function searchUp(win) {
  for (let hops = 0; win && hops < MAX_HOPS; hops += 1) {
    const api = apiIn(win);
    if (api) return api;
    if (win.parent === win) return null;
    win = win.parent;
  }
  return null;
}

/** The LMS's API for this window, or null when the page runs outside an LMS. */
export function findApi(win = window) {
  return searchUp(win) ?? (win.opener ? searchUp(win.opener) : null);
}
