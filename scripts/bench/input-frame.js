// One input's time to the frame after it: the bench's repaint figures (scripts/measure-page.mjs)
// and training.html's responsiveness while it trains (scripts/measure-training.mjs).
// Self-contained: Playwright sends it to the page as source text.

/**
 * In the page: edits field `id` (a checkbox toggled, any other field's value set to `value`; no
 * input at all for value null) and resolves [next, work] in ms: next, from the input to a task
 * after the frame that shows its result; work, the same less the wait for the frame slot (from
 * the end of the handlers that drew the result to the start of that frame). When the result is
 * computed off the main thread (the stepper's .is-pending on `pending`, a selector), the handlers
 * that drew it are those that took the class away.
 */
export function timeInput({ id, value, pending = null }) {
  return new Promise((resolve) => {
    const field = document.getElementById(id);
    let handled;
    const frameAfter = () =>
      requestAnimationFrame(() => {
        const frame = performance.now();
        setTimeout(() => {
          const end = performance.now();
          resolve([end - t0, end - t0 - (frame - handled)]);
        }, 0);
      });
    // Asked before the input: it runs first in the next frame, before the page's own callbacks.
    if (!pending) frameAfter();
    const t0 = performance.now();
    if (value !== null && field.type === 'checkbox') {
      field.checked = !field.checked;
      field.dispatchEvent(new Event('change', { bubbles: true }));
    } else if (value !== null) {
      field.value = value;
      field.dispatchEvent(new Event('input', { bubbles: true }));
    }
    queueMicrotask(() => {
      handled = performance.now(); // after the handlers' own microtasks
      if (!pending) return;
      const waiting = document.querySelector(pending);
      if (!waiting) return frameAfter();
      const drawn = new MutationObserver(() => {
        if (document.querySelector(pending)) return;
        drawn.disconnect();
        handled = performance.now();
        frameAfter();
      });
      drawn.observe(waiting, { attributes: true, attributeFilter: ['class'] });
    });
  });
}
