// The page: wiring only. The stepper with full controls, its view kept in the URL hash.
// Bundled as a classic script (scripts/bundle.mjs) so the page also opens from file://.

import katex from 'katex';
import { createEngine } from './engine.js';
import { mountStepper } from './app/mount-stepper.js';
import { currentHead } from './model/navigation.js';
import { catalogFrom } from './model/presets.js';
import { stateFromHash, hashFromState } from './state/url-hash.js';

const darkQuery = window.matchMedia('(prefers-color-scheme: dark)');
const themeNow = () => (darkQuery.matches ? 'dark' : 'light');

function writeHash(catalog, s) {
  const step = s.steps[s.step];
  const hash = hashFromState(catalog, { form: s.form, stage: step.id, head: currentHead(s.steps, s.step, s.head), time: step.step, selection: s.selection, showContributions: s.showContributions, quiz: s.quiz?.on });
  if (hash !== window.location.hash) window.history.replaceState(null, '', hash);
}

async function start() {
  const app = document.getElementById('app');
  let engine;
  try {
    engine = await createEngine();
  } catch (error) {
    app.querySelector('.status').textContent = `The attention engine could not be loaded: ${error.message}`;
    throw error;
  }
  const catalog = catalogFrom(engine);
  const stepper = mountStepper(app, { engine, catalog, katex, controls: 'full', theme: themeNow(), marker: document.body, keyTarget: document, onChange: (s) => writeHash(catalog, s) });
  stepper.update(stateFromHash(catalog, window.location.hash));
  window.addEventListener('hashchange', () => stepper.update(stateFromHash(catalog, window.location.hash)));
  darkQuery.addEventListener('change', () => stepper.setTheme(themeNow()));
  document.body.dataset.ready = 'true';
}

start();
