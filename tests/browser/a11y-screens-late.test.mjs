// axe-core at every stage of the walks after the first six (light, 1280 px), with a screenshot of
// each (a11y-walk.mjs: the walk; a11y-screens.test.mjs: the first six).
import { CHAPTER_WALKS, walkTest } from './a11y-walk.mjs';

const LATER =
  'axe finds no serious or critical violation at every stage of the later walks (light); screenshots at 1280 px';
walkTest(LATER, [
  { width: 1280, colorScheme: 'light', axe: 'all', shots: 'all', walks: CHAPTER_WALKS.slice(6), extras: false },
]);
