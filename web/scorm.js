// scorm.html, the launch page of a SCORM 1.2 package (lms/scorm-package.js): one
// <attention-stepper> with the package's chapters (data-chapters: the tabs, in order; none:
// every chapter), example (data-preset), controls (data-controls) and the quiz required, joined
// to the LMS's API when one is found (lms/scorm-session.js: the stage, the answers, the score and
// the status kept by the LMS, and a reopened package back where the learner left it). Without an
// LMS it is the stepper alone.

import './element/define.js';
import { findApi } from './lms/scorm-api.js';
import { startSession } from './lms/scorm-session.js';
import { DEFAULT_MASTERY } from './lms/scorm-cmi.js';

const host = document.getElementById('scorm');
const element = document.createElement('attention-stepper');
if (host.dataset.chapters) element.setAttribute('chapters', host.dataset.chapters);
if (host.dataset.preset) element.setAttribute('preset', host.dataset.preset);
element.setAttribute('quiz', 'required'); // the package's: Next waits for each stage's answers
element.setAttribute('controls', host.dataset.controls || 'full');

// The LMS's record is read before the element is connected, so that it opens where it was left.
async function start() {
  const api = findApi();
  const mastery = Number(host.dataset.mastery || DEFAULT_MASTERY);
  const session = api ? await startSession(api, element, { mastery }).catch(() => null) : null;
  host.dataset.lms = session ? (session.resumed ? 'resumed' : 'connected') : 'none';
  host.append(element);
}

start();
