// On a touch screen a horizontal swipe over the stage steps like ← and →: a swipe to the left
// shows the next stage, to the right the one before. Not where a touch scrolls something
// sideways itself (a matrix, a formula, the chapter row) or edits a field.
//   onSwipe(area, { next, prev })

const MIN_PX = 60; // shorter moves are taps and scrolls
const IGNORED = '.hm-scroll, .formula-area, .chapter-list, input, select, textarea';

export function onSwipe(area, { next, prev }) {
  let start = null;
  area.addEventListener(
    'touchstart',
    (event) => {
      const [touch] = event.touches;
      const one = event.touches.length === 1 && !event.target.closest(IGNORED);
      start = one ? { x: touch.clientX, y: touch.clientY } : null;
    },
    { passive: true },
  );
  area.addEventListener(
    'touchend',
    (event) => {
      if (!start) return;
      const touch = event.changedTouches[0];
      const [dx, dy] = [touch.clientX - start.x, touch.clientY - start.y];
      start = null;
      if (Math.abs(dx) < MIN_PX || Math.abs(dx) < 2 * Math.abs(dy)) return; // mostly vertical: a scroll
      if (dx < 0) next();
      else prev();
    },
    { passive: true },
  );
}
