// The page: wiring only. The stepper with full controls, its view kept in the URL hash.
// Bundled as a classic script (scripts/bundle.mjs) so the page also opens from file://; added by
// index.html's first script after the prerendered first stage is painted (web/preload.js).
// index.html holds its first stage as markup (scripts/prerender-page.mjs); the page mounts over it
// once the engine (core and rest) and the later script are in, with the build's typeset formulas
// (typeset.js); KaTeX loads after that paint, and body[data-ready] says all are in.

import { loadEngine } from './engine.js';
import { mountStepper } from './app/mount-stepper.js';
import { quizSetting } from './app/quiz-actions.js';
import { CHAPTERS } from './model/chapters.js';
import { currentHead } from './model/navigation.js';
import { catalogFrom } from './model/presets.js';
import { stateFromHash, hashFromState } from './state/url-hash.js';
import { loadLater } from './later/load.js';
import { createTypesetter, preloadFirstFaces } from './typeset.js';
import { whenPainted } from './views/dom.js';

const darkQuery = window.matchMedia('(prefers-color-scheme: dark)');
const themeNow = () => (darkQuery.matches ? 'dark' : 'light');
const SCRIPT_URL = document.currentScript?.src ?? window.location.href;
// Where the first paint's time goes, for scripts/measure-page.mjs (performance.mark is cheap).
const mark = (name) => performance.mark(`attention-stepper:${name}`);

function hashOf(catalog, s) {
  const step = s.steps[s.step];
  return hashFromState(catalog, {
    form: s.form,
    stage: step.id,
    head: currentHead(s.steps, s.step, s.head),
    time: step.step,
    selection: s.selection,
    showContributions: s.showContributions,
    quiz: quizSetting(s),
    large: s.large,
    chapters: s.chapterList.length < CHAPTERS.length ? s.chapterList.map((c) => c.id) : null,
    controls: s.controls,
  });
}

// The URL follows the view after the frame that shows it, and at most once every QUIET_MS: a
// burst of steps or edits (a held key, typing) writes its first view at once, then its latest
// when QUIET_MS have passed since. Each write is a same-document navigation, after which Chromium
// fetches and decodes the page's icon again (3–6 ms of this thread), and replaceState costs about
// 2 ms more: written at every step, they took a sixth of a step's time on the thread the next key
// waits for. A hidden or departing page writes at once. A navigation (a new hash) since the write
// was asked for wins: the page is about to show that hash, and writing the older view would undo
// it.
const QUIET_MS = 300;
let pending = null; // { state, from: the URL's hash when the write was asked for, timer }
let lastWrite = -Infinity;
function writeHash(catalog, asked = pending) {
  if (!asked || asked !== pending) return; // written, or cancelled by a navigation
  clearTimeout(asked.timer);
  pending = null;
  lastWrite = performance.now();
  if (window.location.hash !== asked.from) return; // its hashchange has yet to be shown
  const hash = hashOf(catalog, asked.state);
  if (hash !== window.location.hash) window.history.replaceState(null, '', hash);
}

function writeHashSoon(catalog, s) {
  if (pending) {
    pending.state = s;
    return;
  }
  const asked = (pending = { state: s, from: window.location.hash, timer: null });
  const wait = lastWrite + QUIET_MS - performance.now();
  const write = () => writeHash(catalog, asked);
  if (document.hidden) write();
  else if (wait > 0) asked.timer = setTimeout(write, wait);
  else requestAnimationFrame(() => (asked.timer = setTimeout(write, 0)));
}

function showHash(stepper, catalog) {
  clearTimeout(pending?.timer);
  pending = null; // the view written next is the one this hash asks for
  stepper.update(stateFromHash(catalog, window.location.hash));
}

async function start() {
  mark('script');
  preloadFirstFaces(SCRIPT_URL);
  const app = document.getElementById('app');
  let loaded;
  try {
    loaded = await loadEngine();
  } catch (error) {
    const status = app.querySelector('.status'); // the prerendered stage's, hidden
    status.hidden = false;
    status.textContent = `The attention engine could not be loaded: ${error.message}`;
    throw error;
  }
  const { engine, rest } = loaded;
  mark('engine');
  const catalog = catalogFrom(engine);
  const wanted = stateFromHash(catalog, window.location.hash);
  // The prerendered stage is whole (its chapter panel and notation came with the later script):
  // the live one replaces it once it is whole too, so that nothing moves.
  await Promise.all([rest(), loadLater()]);
  const typesetter = createTypesetter(SCRIPT_URL);
  // The prerendered stage (scripts/prerender-page.mjs) gives way to the live one in this task: no
  // frame shows neither, and the live first frame draws the same markup.
  app.replaceChildren();
  const stepper = mountStepper(app, {
    engine,
    catalog,
    katex: typesetter,
    controls: wanted.controls, // a lecturer's link: locked, or full
    chapters: wanted.chapters, // and the tabs it names, for the whole visit
    theme: themeNow(),
    marker: document.body,
    keyTarget: document,
    worker: new URL('attention-stepper-run-worker.js', SCRIPT_URL).href, // beside this bundle in dist/
    onChange: (s) => writeHashSoon(catalog, s),
  });
  mark('mounted');
  stepper.update(wanted);
  mark('rendered');
  window.addEventListener('hashchange', () => showHash(stepper, catalog));
  window.addEventListener('pagehide', () => writeHash(catalog));
  darkQuery.addEventListener('change', () => stepper.setTheme(themeNow()));
  await whenPainted();
  await Promise.all([rest(), typesetter.load(), loadLater()]);
  document.body.dataset.ready = 'true';
}

start();
