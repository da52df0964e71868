// The stepper's markup, built in JS so the page and the element share it: the same parts, ids
// and classes (ids are unique per document or per shadow root). controls: 'full' adds the stage
// list, the chapter tabs and the configuration form; 'locked' the same but the chapter tabs, the
// form shown and disabled (the course's configuration); 'compact' keeps Prev/Next and the head
// picker; 'none' neither.

import { el } from '../views/dom.js';

const HINT = [
  'Step with ',
  ['kbd', '\u2190'],
  ' ',
  ['kbd', '\u2192'],
  ', jump with ',
  ['kbd', 'Home'],
  ' ',
  ['kbd', 'End'],
  '; in the KV-cache and FlashAttention chapters ',
  ['kbd', '\u2191'],
  ' ',
  ['kbd', '\u2193'],
  ' move one decode step or tile. Click a number in the result (or focus it and press ',
  ['kbd', 'Enter'],
  ') to see how it was computed; hover or focus any cell for its full precision.',
];

function part(tag, id, className) {
  const node = el(tag, className);
  if (id) node.id = id;
  return node;
}

// How to step and explore, folded: the same on every stage.
function hint() {
  const details = el('details', 'hint');
  const p = el('p');
  for (const piece of HINT) p.append(typeof piece === 'string' ? piece : el(piece[0], null, piece[1]));
  details.append(el('summary', null, 'Keys and clicks'), p);
  return details;
}

// Full and locked lay the stepper out alike.
const fullOf = (controls) => controls === 'full' || controls === 'locked';

function buildStage(parts, controls, landmark, chapters) {
  const full = fullOf(controls);
  const main = part(landmark ? 'main' : 'div', 'stage', 'stage');
  main.tabIndex = -1;
  parts.stage = main;
  if (controls === 'full' && chapters) {
    parts.chapterPicker = part('div', 'chapter-picker-area');
    main.append(parts.chapterPicker);
  }
  parts.status = part('p', 'status', 'status');
  parts.status.setAttribute('role', 'status');
  parts.status.textContent = 'Loading the attention engine\u2026';
  main.append(parts.status);
  if (controls !== 'none') {
    const bar = el('div', 'stage-bar');
    parts.stepper = part('div', 'stepper');
    parts.headPicker = part('div', 'head-picker');
    bar.append(parts.stepper, parts.headPicker);
    if (full) {
      parts.stagesToggle = part('button', 'stages-toggle', 'stages-toggle'); // views/stage-drawer.js
      parts.stagesToggle.type = 'button';
      parts.stagesToggle.textContent = 'Stages';
      bar.append(parts.stagesToggle);
    }
    main.append(bar);
  }
  parts.chapterLead = part('div', 'chapter-lead', 'chapter-lead'); // views/chapter-lead.js
  parts.chapterPanel = part('div', 'chapter-panel-area');
  parts.timeSlider = part('div', 'time-slider-area');
  main.append(parts.chapterLead, parts.chapterPanel, parts.timeSlider);
  const heading = el('div', 'stage-heading');
  heading.setAttribute('aria-live', 'polite');
  parts.stageTitle = part('h2', 'stage-title', null);
  parts.stageTitle.textContent = 'Attention stepper';
  parts.stageHead = part('span', 'stage-head', 'stage-head-badge');
  parts.stageHead.hidden = true;
  parts.exportMenu = part('div', 'export-menu', 'export-menu-area'); // web/views/export-menu.js
  heading.append(parts.stageTitle, parts.stageHead, parts.exportMenu);
  parts.shapeEq = part('div', 'shape-eq', 'shape-eq-area');
  parts.formula = part('div', 'formula', 'formula-area');
  parts.formula.tabIndex = 0;
  parts.formula.setAttribute('role', 'group');
  parts.formula.setAttribute('aria-label', 'Formula');
  main.append(heading, parts.shapeEq, parts.formula);
  if (full) {
    parts.notation = part('div', 'notation', 'notation-area'); // web/views/notation.js; embeds keep their height
    main.append(parts.notation);
  }
  for (const [key, id, className] of [
    ['explanation', 'explanation'],
    ['quiz', 'quiz', 'quiz-area'],
    ['figure', 'figure', 'figure-area'],
    ['explain', 'explain'],
    ['sumToggle', 'sum-toggle'],
    ['sumFigure', 'sum-figure'],
    ['overview', 'overview'],
    ['pruning', 'pruning'],
    ['calculator', 'calculator'],
  ]) {
    parts[key] = part('div', id, className);
    main.append(parts[key]);
  }
  if (full) main.append(hint());
  return main;
}

function buildSidebar(parts, locked) {
  const aside = el('aside', 'sidebar');
  parts.stageNav = part('nav', 'stage-nav', 'panel stage-nav');
  parts.stageNav.setAttribute('aria-label', 'Stages');
  const details = el('details', 'panel controls');
  details.open = true;
  parts.controls = part('div', 'controls');
  const summary = el('summary', null, locked ? 'Configuration, set by the course' : 'Configuration');
  if (locked) {
    const fixed = el('fieldset', 'controls-locked'); // every field inside shown, none editable
    fixed.disabled = true;
    fixed.append(parts.controls);
    details.append(summary, fixed);
  } else details.append(summary, parts.controls);
  aside.append(parts.stageNav, details);
  return aside;
}

/** Fills root; → the parts by name (stepper, headPicker, stageNav and controls only when shown).
 *  landmark: the stage is the page's <main> (false inside a page that has its own); chapters: the
 *  chapter tabs, with full controls. */
export function buildLayout(root, { controls = 'full', landmark = true, chapters = true } = {}) {
  const parts = {};
  const locked = controls === 'locked';
  const layout = el('div', `layout controls-${fullOf(controls) ? 'full' : controls}${locked ? ' is-locked' : ''}`);
  parts.layout = layout;
  layout.append(buildStage(parts, controls, landmark, chapters && !locked));
  if (fullOf(controls)) layout.append(buildSidebar(parts, locked));
  root.textContent = '';
  root.append(layout);
  return parts;
}

/** Quiz mode: while a stage's questions are open, hides what would give its answers away (the
 *  result, its shape, the asides that show it; styles/quiz.css) from sight and from screen readers. */
export function concealResult(parts, asking) {
  parts.figure.parentElement.toggleAttribute('data-quiz-asking', Boolean(asking));
}
