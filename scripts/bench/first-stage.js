// The bench's "first stage painted" (scripts/measure-page.mjs), also checked by the browser tests
// (tests/browser/load.test.mjs): an init script that stamps window.firstStagePaintMs at the second
// frame in a row that shows a heatmap cell (in the document or a shadow root), every font asked
// for being in. The first of those frames paints the stage; the second begins once it has.
// Self-contained: Playwright sends it to the page as source text.
export function watchFirstStage() {
  const hasCell = (root) =>
    root.querySelector('td[data-r]') ||
    [...root.querySelectorAll('*')].some((el) => el.shadowRoot && hasCell(el.shadowRoot));
  let frames = 0;
  const poll = () => {
    frames = document.body && hasCell(document) ? frames + 1 : 0;
    if (frames >= 2 && document.fonts.status === 'loaded') window.firstStagePaintMs = performance.now();
    else requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
}
