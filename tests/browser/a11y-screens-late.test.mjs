// axe-core at every stage of the FlashAttention, designed-heads and RoPE walks (light, 1280 px),
// with a screenshot of each (a11y-walk.mjs: the walk; a11y-screens.test.mjs: its parts).
import { CHAPTER_WALKS, walkTest } from './a11y-walk.mjs';

walkTest(
  'axe finds no serious or critical violation at every stage of the flash, designed-heads and RoPE walks ' +
    '(light); screenshots at 1280 px',
  [{ width: 1280, colorScheme: 'light', axe: 'all', shots: 'all', walks: CHAPTER_WALKS.slice(6, 9), extras: false }],
);
