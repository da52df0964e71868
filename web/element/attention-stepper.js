// <attention-stepper>: the stepper in a shadow root, configured by attributes (state/attributes.js).
// Events (bubbling, composed): ready, stagechange ({ detail: { stage, head, step, index, total,
// chapter, preset } }), quizanswer ({ chapter, preset, stage, head, question, answer, expected,
// correct }), quizcomplete ({ chapter, preset, answered, correct, score }: every question of the
// path answered, score the share right first time). Methods: next(), prev(), goTo(id, head);
// for a learning platform (lms/scorm-session.js): quizProgress, snapshot() and restoreQuiz(text). A
// bad attribute, a browser without WebAssembly or an engine that fails to load shows a message
// inside the element.

import { assetUrl } from '../asset-url.js';
import { runForm } from '../app/actions.js';
import { pathProgress, quizSetting } from '../app/quiz-actions.js';
import { quizSnapshot } from '../app/quiz-snapshot.js';
import { mountStepper } from '../app/mount-stepper.js';
import { currentHead, placeOnPath } from '../model/navigation.js';
import { ATTRIBUTES, THEMES, readAttributes } from '../state/attributes.js';
import { elementAttributes } from '../state/snippet.js';
import { paintsFirst } from '../later/first-view.js';
import { el } from '../views/dom.js';
import { addDocumentFonts, sharedEngine, STYLESHEETS } from './assets.js';

const darkQuery = typeof window === 'object' ? window.matchMedia('(prefers-color-scheme: dark)') : null;
const themeOf = (theme) => (theme === 'auto' ? (darkQuery?.matches ? 'dark' : 'light') : theme);
// Attributes that move within the current configuration instead of rebuilding it.
const MOVES = new Set(['stage', 'head', 'step']);
const SETTLE_MS = 200; // how long a height must last before the element holds it

function message(title, lines) {
  const box = el('div', 'as-message');
  box.setAttribute('role', 'alert');
  box.append(el('p', 'as-message-title', title));
  const list = el('ul');
  for (const line of lines) list.append(el('li', null, line));
  box.append(list);
  return box;
}

export class AttentionStepper extends HTMLElement {
  static get observedAttributes() {
    return ATTRIBUTES;
  }

  constructor() {
    super();
    // A first stage prerendered in a declarative shadow root (embed.html: scripts/prerender-page.mjs;
    // a snippet's fallback: state/snippet.js) stays, as it is, until the live stage replaces it. A
    // fallback left hidden (its page refused its inline rules) is not shown at all.
    const drawn = this.shadowRoot?.querySelector('.as-root');
    this._prerendered = Boolean(drawn) && getComputedStyle(drawn).display !== 'none';
    if (drawn) {
      this._root = drawn;
      if (!this._prerendered) this._unfallback();
    } else {
      this.attachShadow({ mode: 'open' });
      for (const href of STYLESHEETS) {
        const link = document.createElement('link');
        link.rel = 'stylesheet';
        link.href = assetUrl(href);
        this.shadowRoot.append(link);
      }
      this._root = el('div', 'as-root');
      this.shadowRoot.append(this._root);
    }
    this._stepper = null;
    this._pending = false;
    this._onScheme = () => this._stepper?.setTheme(themeOf(this._theme));
  }

  connectedCallback() {
    addDocumentFonts();
    darkQuery?.addEventListener('change', this._onScheme);
    this._schedule();
  }

  disconnectedCallback() {
    darkQuery?.removeEventListener('change', this._onScheme);
    this._teardown();
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue || !this.isConnected) return;
    if (MOVES.has(name) && this._stepper && !this._pending) return this._move();
    this._schedule();
  }

  next() {
    this._stepper?.next();
  }

  prev() {
    this._stepper?.prev();
  }

  goTo(id, head, step) {
    this._stepper?.goTo(id, head === undefined ? undefined : Number(head), step === undefined ? null : Number(step));
  }

  /** { stage, head, step, index, total } of the step shown (index and total count the path Next
   * follows: one head's stages at one decode step, tile or layer), or null before ready. */
  get current() {
    const s = this._stepper?.state();
    const step = s?.steps[s.step];
    return step ? { stage: step.id, head: step.head, step: step.step, ...placeOnPath(s.steps, s.step, s.head) } : null;
  }

  /** { total, answered, correct } of the quiz's questions on the path shown, or null before ready. */
  get quizProgress() {
    const s = this._stepper?.state();
    return s?.trace ? pathProgress(s) : null;
  }

  /** What brings a later session back here: { attributes: [[name, value | null]] (the
   * configuration and the stage shown, as this element's attributes), quiz (the answers given,
   * app/quiz-snapshot.js) }, or null before ready. */
  snapshot() {
    const s = this._stepper?.state();
    const step = s?.steps[s.step];
    if (!step) return null;
    const head = step.head === null ? null : currentHead(s.steps, s.step, s.head);
    const view = { stage: step.id, head, time: step.step, quiz: quizSetting(s) };
    return { attributes: elementAttributes(this._catalog, s.form, view), quiz: quizSnapshot(s) };
  }

  /** Puts answers from snapshot().quiz back, on the configuration they were given in. */
  restoreQuiz(text) {
    this._stepper?.restoreQuiz(text);
  }

  // Several attributes set in a row rebuild once.
  _schedule() {
    if (this._pending) return;
    this._pending = true;
    queueMicrotask(() => {
      this._pending = false;
      if (this.isConnected) this._build();
    });
  }

  _teardown() {
    this._stepper?.destroy();
    this._stepper = null;
    this._sizer?.disconnect();
    clearTimeout(this._settling);
    this._root.style.minHeight = '';
  }

  // While the reader steps through one configuration the element only grows, so that the course
  // text below it stays where it is; a new configuration (chapter, example, field) starts again
  // from its own height. A height is held once it has settled (a stage's layout passes through
  // taller states for a frame or two while it is drawn). The computed height: a slide deck's
  // scaling transform does not count.
  _holdHeight() {
    const layout = this._root.firstElementChild;
    const grow = () => {
      const height = Math.ceil(parseFloat(getComputedStyle(layout).height)); // unrounded, then up
      if (height <= this._tallest) return;
      this._tallest = height;
      this._root.style.minHeight = `${height}px`;
    };
    this._tallest = 0;
    this._root.style.minHeight = '';
    const settle = () => {
      clearTimeout(this._settling);
      this._settling = setTimeout(grow, SETTLE_MS);
    };
    settle();
    this._sizer?.disconnect();
    this._sizer = new ResizeObserver(settle);
    this._sizer.observe(layout);
  }

  _showMessage(title, lines) {
    this._teardown();
    this._clearNotice();
    this._root.textContent = '';
    this._root.append(message(title, lines));
    this.dataset.error = 'true';
    delete this.dataset.ready;
  }

  // Attributes that cannot be used after a good view: the view stays, the message above it.
  _refuse(title, lines) {
    if (!this._stepper) return this._showMessage(title, lines);
    this._clearNotice();
    this._notice = message(title, lines);
    this.shadowRoot.insertBefore(this._notice, this._root);
    this.dataset.error = 'true';
  }

  _clearNotice() {
    this._notice?.remove();
    this._notice = null;
  }

  async _build() {
    const theme = THEMES.includes(this.getAttribute('theme')?.trim()) ? this.getAttribute('theme').trim() : 'auto';
    this._setTheme(theme);
    if (typeof WebAssembly !== 'object') {
      return this._showMessage('This browser cannot run the attention stepper:', [
        'it has no WebAssembly (or it is switched off). Any current Chrome, Edge, Firefox or Safari has it.',
      ]);
    }
    if (!this._stepper && !this._prerendered) {
      this._root.textContent = '';
      this._root.append(el('p', 'as-loading', 'Loading the attention engine\u2026'));
    }
    let shared;
    try {
      shared = await sharedEngine();
    } catch (error) {
      return this._showMessage('The attention engine could not be loaded:', [error.message]);
    }
    if (this._pending || !this.isConnected) return; // attributes changed meanwhile: a newer build runs
    this._catalog = shared.catalog;
    const read = readAttributes(shared.catalog, (name) => this.getAttribute(name));
    if (read.errors.length) return this._refuse('This attention stepper has attributes it cannot use:', read.errors);
    if (!paintsFirst(read.wanted) || this._prerendered) {
      // This first view needs the engine's rest and the later script; a prerendered one was drawn
      // with them and KaTeX, and the live one replaces it only when it is as whole.
      await Promise.all([shared.rest(), this._prerendered && shared.typesetter.load().catch(() => {})]);
      if (this._pending || !this.isConnected) return;
    }
    this._mount(shared, read);
  }

  // The prerendered stage's root, emptied for the live one.
  _unfallback() {
    this._root.replaceChildren();
    this._root.hidden = false;
    this._root.classList.remove('as-fallback');
  }

  _setTheme(theme) {
    this._theme = theme;
    this.classList.remove('theme-light', 'theme-dark', 'theme-auto');
    this.classList.add(`theme-${theme}`);
  }

  // Why the engine cannot show these attributes ([title, lines]), or null.
  _rejection(s, read) {
    const refusals = s.engineError ? [s.engineError] : Object.values(s.errors ?? {});
    if (refusals.length) return ['The attention engine rejected these attributes:', refusals];
    if (!s.steps?.length)
      return [
        'This attention stepper has nothing to show:',
        [`stages: none of ${read.stages.join(', ')} is part of this configuration.`],
      ];
    return null;
  }

  _mount({ engine, catalog, typesetter }, read) {
    // Over a good view, try the configuration first, so that a refused one keeps that view.
    const refused = this._stepper && this._rejection(runForm(engine, catalog, read.wanted.form, read.stages), read);
    if (refused) return this._refuse(...refused);
    this._teardown();
    this._clearNotice();
    if (this._prerendered) this._unfallback(); // in this task: no frame shows neither
    this._prerendered = false;
    this._stepper = mountStepper(this._root, {
      engine,
      catalog,
      katex: typesetter,
      controls: read.controls,
      stages: read.stages,
      chapters: read.chapters,
      theme: themeOf(read.theme),
      marker: this,
      keyTarget: this.shadowRoot,
      worker: assetUrl('attention-stepper-run-worker.js'),
      onChange: (s, previous) => this._changed(s, previous),
    });
    this._stepper.update(read.wanted);
    this._holdHeight();
    const rejected = this._rejection(this._stepper.state(), read);
    if (rejected) return this._showMessage(...rejected);
    delete this.dataset.error;
    this.dataset.ready = 'true';
    this.dispatchEvent(new CustomEvent('ready', { bubbles: true, detail: this.current }));
  }

  _move() {
    const read = readAttributes(this._catalog, (name) => this.getAttribute(name));
    if (read.errors.length) return this._schedule();
    this._clearNotice();
    delete this.dataset.error;
    this._stepper.goTo(read.wanted.stage, read.wanted.head, read.wanted.time);
  }

  // Events that bubble out of the shadow root (composed), for the course page around the element.
  _emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true, detail }));
  }

  _changed(s, previous) {
    if (previous.trace && previous.trace !== s.trace) this._holdHeight();
    const where = { chapter: s.form.chapter, preset: s.preset?.id ?? null };
    const answered = s.quiz?.answered;
    if (answered && answered !== previous.quiz?.answered) {
      const at = s.steps[answered.step];
      const { question, answer, expected, correct } = answered;
      this._emit('quizanswer', { ...where, stage: at.id, head: at.head, question, answer, expected, correct });
      // Once every question of the path is answered, in this configuration: the result, once.
      const done = pathProgress(s);
      if (done.total > 0 && done.answered === done.total && this._completed !== s.trace) {
        this._completed = s.trace;
        const score = done.correct / done.total;
        this._emit('quizcomplete', { ...where, answered: done.answered, correct: done.correct, score });
      }
    }
    const was = previous.steps?.[previous.step];
    const now = s.steps[s.step];
    if (!was || (was.index === now.index && previous.trace === s.trace)) return;
    this._emit('stagechange', {
      stage: now.id,
      head: now.head,
      step: now.step,
      ...placeOnPath(s.steps, s.step, s.head),
      ...where,
    });
  }
}
