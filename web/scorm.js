// scorm.html, the launch page of a SCORM 1.2 package (scripts/package-scorm.mjs): one
// <attention-stepper> with the package's chapter (data-chapter; none: every chapter) and the quiz
// on, joined to the LMS's API when one is found (scorm/session.js: the stage, the answers, the
// score and the status kept by the LMS, and a reopened package back where the learner left it).
// Without an LMS it is the stepper alone.

import './element/define.js';
import { sharedEngine } from './element/assets.js';
import { ATTRIBUTES, readAttributes } from './state/attributes.js';
import { findApi } from './scorm/find-api.js';
import { startSession } from './scorm/session.js';
import { DEFAULT_MASTERY } from './scorm/cmi.js';

const host = document.getElementById('scorm');
const chapter = host.dataset.chapter || null;
const element = document.createElement('attention-stepper');
if (chapter) element.setAttribute('chapter', chapter);
element.setAttribute('quiz', '');
element.setAttribute('controls', 'full');

// Whether attributes read back from the LMS fit this package: names the element knows, the
// package's chapter, values the element accepts (a tampered or foreign record opens at the start).
async function fits(attributes) {
  if (attributes.some(([name]) => !ATTRIBUTES.includes(name) || name === 'controls')) return false;
  const given = new Map(attributes);
  if (chapter && given.get('chapter') !== chapter) return false;
  const { catalog } = await sharedEngine();
  const get = (name) => (given.has(name) ? given.get(name) : element.getAttribute(name));
  return readAttributes(catalog, get).errors.length === 0;
}

// The LMS's record is read before the element is connected, so that it opens where it was left.
async function start() {
  const api = findApi();
  const mastery = Number(host.dataset.mastery || DEFAULT_MASTERY);
  const session = api ? await startSession(api, element, { mastery, checkAttributes: fits }).catch(() => null) : null;
  host.dataset.lms = session ? (session.resumed ? 'resumed' : 'connected') : 'none';
  host.append(element);
}

start();
