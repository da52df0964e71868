// Dark differs only in its palette: axe on a sample of every chapter's views and on the explain
// panel's, with screenshots at 1280 px; then screenshots of the sample at 375 px, which may not
// scroll sideways (a11y-walk.mjs: the walk; a11y-screens.test.mjs: its parts).
import { walkTest } from './a11y-walk.mjs';

const DARK =
  'axe finds no serious or critical violation on a sample of every chapter (dark); ' +
  'no sampled stage scrolls sideways at 375 px (dark); screenshots in both';
walkTest(DARK, [
  { width: 1280, colorScheme: 'dark', axe: 'some', shots: 'some' },
  { width: 375, colorScheme: 'dark', axe: false, shots: 'some' },
]);
