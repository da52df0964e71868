// What the SCORM 1.2 adapter (scorm-session.js) writes to the LMS, worked out without it: pure, tested
// under node. Every value fits its SCORM 1.2 data type (RTE §3.4): CMIString255, CMIDecimal in
// 0–100, CMITimespan HHHH:MM:SS.SS, CMIString4096 for the suspend data.

export const SUSPEND_LIMIT = 4096; // cmi.suspend_data: CMIString4096
export const LOCATION_LIMIT = 255; // cmi.core.lesson_location: CMIString255
export const DEFAULT_MASTERY = 70;
const VERSION = '1';

/** Milliseconds → CMITimespan "HHHH:MM:SS.SS" (hours up to 9999). */
export function sessionTime(ms) {
  const hundredths = Math.max(0, Math.round(ms / 10));
  const hours = Math.min(9999, Math.floor(hundredths / 360000));
  const minutes = Math.floor(hundredths / 6000) % 60;
  const seconds = (hundredths % 6000) / 100;
  const two = (n) => String(n).padStart(2, '0');
  return `${String(hours).padStart(4, '0')}:${two(minutes)}:${seconds.toFixed(2).padStart(5, '0')}`;
}

/** The LMS's mastery score when it gives a number in 0–100, else the package's. */
export function masteryOf(fromLms, fromPackage = DEFAULT_MASTERY) {
  const lms = String(fromLms ?? '').trim();
  const n = lms === '' ? NaN : Number(lms);
  return Number.isFinite(n) && n >= 0 && n <= 100 ? n : fromPackage;
}

/**
 * progress: { total, answered, correct } of the quiz's path; atEnd: the learner has reached the
 * path's last stage. → { raw (0–100, rounded; or null with no questions), status, exit }:
 * incomplete (exit suspend) until every question is answered, then passed or failed (the share
 * right first time, unrounded, against mastery); a
 * path without questions is completed once walked to its end.
 */
export function resultOf(progress, mastery, atEnd) {
  if (!progress || progress.total === 0)
    return atEnd ? { raw: null, status: 'completed', exit: '' } : { raw: null, status: 'incomplete', exit: 'suspend' };
  const share = (100 * progress.correct) / progress.total;
  const raw = Math.round(share);
  if (progress.answered < progress.total) return { raw, status: 'incomplete', exit: 'suspend' };
  return { raw, status: share >= mastery ? 'passed' : 'failed', exit: '' }; // 66.7 % is not 67
}

/** "stage=…&head=…" of the stage shown, within CMIString255. */
export function locationOf(current) {
  const params = new URLSearchParams();
  if (current?.stage) params.set('stage', current.stage);
  if (Number.isInteger(current?.head)) params.set('head', String(current.head));
  if (Number.isInteger(current?.step)) params.set('step', String(current.step));
  return params.toString().slice(0, LOCATION_LIMIT);
}

/**
 * The suspend data: "1|<the element's attributes as a query>|<the quiz's answers>". When a
 * custom configuration (a long text of tokens) would not fit, the chapter and example alone, and
 * no answers (they belong to the configuration left out).
 */
export function suspendOf(attributes, quiz) {
  const query = (attrs) => new URLSearchParams(attrs.map(([name, value]) => [name, value ?? ''])).toString();
  const full = [VERSION, query(attributes), quiz].join('|');
  if (full.length <= SUSPEND_LIMIT) return full;
  const kept = attributes.filter(([name]) => name === 'chapter' || name === 'preset');
  return [VERSION, query(kept), ''].join('|');
}

/** → { attributes: [[name, value]], quiz } from suspend data this adapter wrote, else null. */
export function readSuspend(text) {
  if (typeof text !== 'string' || text.length > SUSPEND_LIMIT) return null;
  const parts = text.split('|');
  if (parts.length !== 3 || parts[0] !== VERSION) return null;
  return { attributes: [...new URLSearchParams(parts[1])], quiz: parts[2] };
}
