// Tiny helpers shared by the views: elements with a class and text (never HTML), and the
// skeleton of a view that redraws from scratch.

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

/** Sets node's text only when it differs: the same text written again is a new text node to
 *  lay out (a config change rewrote every title, label and count on the page). */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// A view over root (appended to host) that empties and redraws it on every update (but not
// for data equal to what it drew last: JSON-equal), and hides it when given nothing to show:
// { update(data), destroy() }.
export function redrawingView(host, root, draw) {
  host.append(root);
  let drawn;
  let drawnJson = null;
  return {
    update(data) {
      if (data && data === drawn) return;
      const json = data ? JSON.stringify(data) : null;
      if (data && json === drawnJson) return;
      [drawn, drawnJson] = [data, json];
      root.textContent = '';
      root.hidden = !data;
      if (data) draw(data);
    },
    destroy() {
      root.remove();
    },
  };
}

// Jobs run after the next frame has painted (a task after its animation frame), the newest per
// key: what is not the stage's figure (the arcs, the head overview) is drawn after the frame that
// shows the figure, not before it.
const jobs = new Map();
let pending = false;

function runJobs() {
  pending = false;
  const now = [...jobs.values()];
  jobs.clear();
  for (const job of now) job();
}

export function afterPaint(key, job) {
  jobs.set(key, job);
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => setTimeout(runJobs, 0));
}

const afterFrame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

/** A promise resolved once the next frame has painted and the frame after it has begun; if the
 *  fonts the first asked for came in later, the same for the frame that paints them. What loads
 *  then (the engine's rest, KaTeX, the later script) neither competes with the first paint nor
 *  can arrive before it, as the bench counts it (scripts/bench/first-stage.js). */
export async function whenPainted() {
  await afterFrame();
  if (document.fonts.status !== 'loaded') {
    await document.fonts.ready;
    await afterFrame();
  }
  await afterFrame();
}

/**
 * Keeps root at least as tall as it has been since the stage (any key given to hold) last
 * changed: a config change that swaps its content (the causal mask on or off) then moves nothing
 * below it. The height comes from a ResizeObserver, after layout (reading it in an update would
 * force one), as a border box, which min-height then measures too. A new width (the window
 * resized) lets go: the text wraps anew. → { hold(stage), stop() }
 */
export function steadyHeight(root) {
  let height = 0;
  let width = 0;
  let stage = null;
  root.style.boxSizing = 'border-box';
  const sizes = new ResizeObserver(([entry]) => {
    const box = entry.borderBoxSize[0];
    if (box.inlineSize !== width && root.style.minHeight) root.style.minHeight = '';
    [width, height] = [box.inlineSize, box.blockSize];
  });
  sizes.observe(root);
  return {
    hold(next) {
      const minHeight = next === stage && height > 0 ? `${height}px` : '';
      if (root.style.minHeight !== minHeight) root.style.minHeight = minHeight;
      stage = next;
    },
    stop: () => sizes.disconnect(),
  };
}

// The live cues' marks, run again when a face finishes loading (its text may widen a box's
// content without resizing the box). One listener for every box: reading document.fonts.ready
// for each new box, and marking it in the microtask after, forced a style and a layout in the
// middle of every render (a third of a stage change's time).
const cues = new Map(); // box → mark
function markCues() {
  for (const [box, mark] of cues) if (box.isConnected) mark();
}
function keepCue(box, mark) {
  if (!cues.size) document.fonts?.addEventListener('loadingdone', markCues);
  if (cues.size >= 64) for (const old of cues.keys()) if (!old.isConnected) cues.delete(old);
  cues.set(box, mark);
}

/** Keeps box's data-more naming the sides ("left", "right" or both) it has more content beyond,
 * for an edge shadow or a fade (panels.css): at each scroll, when it is resized (and once laid
 * out), when a font finishes loading, and in the frame after each call of the function it returns
 * (made after its content changed): read then, the render that changed it is not made to lay the
 * page out halfway. */
export function scrollCue(box) {
  const mark = () => {
    const more = [];
    if (box.scrollLeft > 0) more.push('left');
    if (box.scrollLeft + box.clientWidth < box.scrollWidth - 1) more.push('right');
    if ((box.dataset.more ?? '') !== more.join(' ')) box.dataset.more = more.join(' ');
  };
  box.addEventListener('scroll', mark, { passive: true });
  new ResizeObserver(mark).observe(box);
  keepCue(box, mark);
  let asked = false;
  return () => {
    if (asked) return;
    asked = true;
    requestAnimationFrame(() => {
      asked = false;
      mark();
    });
  };
}

// Which "More about this" disclosures the reader has left open, by name: a panel is redrawn for
// every chapter and configuration, and the disclosure stays as it was left.
const openFolds = new Set();

/** Moves root's own notes (its children p.panel-note: asides, history, real-model arithmetic)
 * into one "More about this" disclosure at its end, so that its tables, diagrams and controls
 * stay in view with less prose around them. name: which disclosure, for its remembered state. */
export function foldNotes(root, name) {
  const notes = [...root.children].filter((n) => n.matches('p.panel-note'));
  if (!notes.length) return;
  const more = el('details', 'notes-more');
  more.open = openFolds.has(name);
  more.addEventListener('toggle', () => (more.open ? openFolds.add(name) : openFolds.delete(name)));
  more.append(el('summary', null, 'More about this'), ...notes);
  root.append(more);
}
