// At 375 px (light) no stage of the first six walks scrolls sideways, nor the explain panel's
// views; a screenshot of each (a11y-walk.mjs: the walk; a11y-screens.test.mjs: its parts).
import { CHAPTER_WALKS, walkTest } from './a11y-walk.mjs';

walkTest('no stage of the first six walks scrolls sideways at 375 px, nor the explain views; screenshots', [
  { width: 375, colorScheme: 'light', axe: false, shots: 'all', walks: CHAPTER_WALKS.slice(0, 6) },
]);
