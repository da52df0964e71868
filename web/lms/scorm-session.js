// One learner's session with a SCORM 1.2 LMS, for the <attention-stepper> of a package's launch
// page (scorm.js): LMSInitialize, the suspend data read back (the configuration, the stage and the
// answers given), then after every stage change and every answer the location, the suspend data,
// the score and the status written and committed (a phone may never fire pagehide), and
// LMSFinish with the session's time on pagehide. What is written is worked out in scorm-cmi.js.

import { fitsElement, restoreView } from './saved-view.js';
import { locationOf, masteryOf, readSuspend, resultOf, sessionTime, suspendOf } from './scorm-cmi.js';

// api: the LMS's API (scorm-api.js); element: the stepper, not yet connected, with the package's
// attributes. A saved view that does not fit the element (a chapter it does not offer) is not restored.
export async function startSession(api, element, { mastery: packageMastery }) {
  if (String(api.LMSInitialize('')) !== 'true') return null;
  const get = (name) => String(api.LMSGetValue(name) ?? '');
  const set = (name, value) => api.LMSSetValue(name, String(value));
  const started = Date.now();
  const mastery = masteryOf(get('cmi.student_data.mastery_score'), packageMastery);
  const saved = readSuspend(get('cmi.suspend_data'));
  const resumed = Boolean(saved) && (await fitsElement(element, saved.attributes));
  if (resumed) restoreView(element, saved);
  let status = get('cmi.core.lesson_status');
  if (status === 'not attempted' || status === '') set('cmi.core.lesson_status', (status = 'incomplete'));

  let finished = false;
  function record({ atEnd = false } = {}) {
    if (finished || !element.current) return;
    set('cmi.core.lesson_location', locationOf(element.current));
    const snapshot = element.snapshot();
    set('cmi.suspend_data', suspendOf(snapshot.attributes, snapshot.quiz));
    const result = resultOf(element.quizProgress, mastery, atEnd);
    if (result.raw !== null) {
      set('cmi.core.score.min', 0);
      set('cmi.core.score.max', 100);
      set('cmi.core.score.raw', result.raw);
    }
    // A result once reached stays: a new configuration starts its own questions, not a new attempt.
    if (status === 'incomplete' || result.status !== 'incomplete')
      set('cmi.core.lesson_status', (status = result.status));
    set('cmi.core.exit', status === 'incomplete' ? 'suspend' : '');
    api.LMSCommit('');
  }
  function finish() {
    if (finished) return;
    record();
    finished = true;
    set('cmi.core.session_time', sessionTime(Date.now() - started));
    api.LMSFinish('');
  }

  element.addEventListener('ready', () => record());
  // The path's last stage: its index counts from 0.
  element.addEventListener('stagechange', (e) => record({ atEnd: e.detail.index === e.detail.total - 1 }));
  element.addEventListener('quizanswer', () => record());
  window.addEventListener('pagehide', finish);
  return { finish, mastery, resumed };
}
