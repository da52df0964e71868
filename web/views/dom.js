// Tiny helpers shared by the views: elements with a class and text (never HTML), and the
// skeleton of a view that redraws from scratch.

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

// A view over root (appended to host) that empties and redraws it on every update (but not
// for the very data it drew last), and hides it when given nothing to show:
// { update(data), destroy() }.
export function redrawingView(host, root, draw) {
  host.append(root);
  let drawn;
  return {
    update(data) {
      if (data && data === drawn) return;
      drawn = data;
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
