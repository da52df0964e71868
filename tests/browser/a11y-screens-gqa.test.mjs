// axe-core at every stage of grouped-query attention's and the encoder layer's walks (light,
// 1280 px), with a screenshot of each (a11y-walk.mjs: the walk; a11y-screens.test.mjs: its parts).
import { CHAPTER_WALKS, walkTest } from './a11y-walk.mjs';

walkTest(
  'axe finds no serious or critical violation at every stage of the GQA and encoder-layer walks (light); ' +
    'screenshots at 1280 px',
  [{ width: 1280, colorScheme: 'light', axe: 'all', shots: 'all', walks: CHAPTER_WALKS.slice(3, 5), extras: false }],
);
