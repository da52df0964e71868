// At 375 px (light) no stage of the later walks scrolls sideways; a screenshot of each
// (a11y-walk.mjs: the walk; a11y-screens.test.mjs: its parts).
import { CHAPTER_WALKS, walkTest } from './a11y-walk.mjs';

walkTest('no stage of the later walks scrolls sideways at 375 px; screenshots', [
  { width: 375, colorScheme: 'light', axe: false, shots: 'all', walks: CHAPTER_WALKS.slice(6), extras: false },
]);
