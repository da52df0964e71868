// Dark differs only in its palette: axe on a sample of every chapter's views and on the explain
// panel's; then screenshots at 375 px of every stage (light) and of the sample (dark), none of
// which may scroll sideways (a11y-walk.mjs: the walk).
import { walkTest } from './a11y-walk.mjs';

const DARK_AND_NARROW =
  'axe finds no serious or critical violation on a sample of every chapter (dark); ' +
  'no stage scrolls sideways at 375 px; screenshots in both';
walkTest(DARK_AND_NARROW, [
  { width: 1280, colorScheme: 'dark', axe: 'some', shots: 'some' },
  { width: 375, colorScheme: 'light', axe: false, shots: 'all' },
  { width: 375, colorScheme: 'dark', axe: false, shots: 'some' },
]);
