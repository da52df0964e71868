// At 375 px (light) no stage of any walk scrolls sideways, nor the explain panel's views; a
// screenshot of the sample, of every stage under `npm run screenshots` (a11y-walk.mjs: the walk;
// a11y-screens.test.mjs: its parts).
import { walkTest } from './a11y-walk.mjs';

walkTest('no stage of any walk scrolls sideways at 375 px, each starts on the first screen; screenshots', [
  { width: 375, colorScheme: 'light', axe: false, shots: 'all' },
]);
