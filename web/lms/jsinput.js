// Open edX's JSInput (a "Custom JavaScript Display and Grading" problem) for embed.html?jsinput=1:
// the three functions its problem XML names, global and synchronous,
//   getGrade() → JSON { chapter, preset, total, answered, correct, score } of the quiz's path
//   getState() → JSON { v, attributes, quiz }: the view and the answers (element.snapshot())
//   setState(text): that view and those answers back (a text that is not ours is ignored)
// called directly by a problem on the same origin (sop="true", the default), and through
// JSChannel's messages (scope "JSInput": a __ready ping and pong, then requests { id, method,
// params } answered with { id, result }) by one on another origin (sop="false"). edX runs the
// answers through decodeURI (JSChannel) or unescape (state, same origin): they carry no "%" (JSON
// writes it \u0025), which both leave as it is.

import { fitsElement, restoreView } from './saved-view.js';

const VERSION = 1;
const SCOPE = 'JSInput';
const noPercent = (json) => json.replace(/%/g, '\\u0025');

export function exposeJsInput(element, target = window) {
  let pending = null; // a state set before the element was ready

  function getGrade() {
    const p = element.quizProgress ?? { total: 0, answered: 0, correct: 0 };
    const where = element.snapshot()?.attributes ?? [];
    const named = (name) => where.find(([n]) => n === name)?.[1] ?? null;
    const score = p.total ? p.correct / p.total : 0;
    return noPercent(JSON.stringify({ chapter: named('chapter'), preset: named('preset'), ...p, score }));
  }

  function getState() {
    const snapshot = element.snapshot();
    if (!snapshot) return pending ?? '';
    const attributes = snapshot.attributes.map(([name, value]) => [name, value ?? '']);
    return noPercent(JSON.stringify({ v: VERSION, attributes, quiz: snapshot.quiz }));
  }

  function setState(text) {
    let saved = null;
    try {
      saved = JSON.parse(text);
    } catch {
      return; // not a state of ours: the element keeps its view
    }
    if (saved?.v !== VERSION || typeof saved.quiz !== 'string') return;
    pending = text;
    fitsElement(element, saved.attributes).then((fits) => {
      if (fits) restoreView(element, saved);
      pending = null;
    });
  }

  Object.assign(target, { getGrade, getState, setState });
  answerChannel(target, { getGrade, getState, setState });
}

// JSChannel's side in the frame: the parent's requests for the three functions, in its wire
// format (JSON text), after the ready handshake; a ping of ours too, in case the parent's came
// before this page listened.
function answerChannel(target, methods) {
  const parent = target.parent;
  if (!parent || parent === target) return;
  const send = (message, origin) => parent.postMessage(JSON.stringify(message), origin);
  target.addEventListener('message', (e) => {
    if (e.source !== parent || typeof e.data !== 'string') return;
    let m;
    try {
      m = JSON.parse(e.data);
    } catch {
      return;
    }
    const [scope, method] = typeof m?.method === 'string' ? m.method.split('::') : [];
    if (scope !== SCOPE) return;
    if (method === '__ready' && m.params === 'ping') send({ method: `${SCOPE}::__ready`, params: 'pong' }, e.origin);
    if (m.id === undefined || !Object.hasOwn(methods, method)) return;
    try {
      send({ id: m.id, result: methods[method](m.params) ?? null }, e.origin);
    } catch (error) {
      send({ id: m.id, error: 'runtime_error', message: String(error?.message ?? error) }, e.origin);
    }
  });
  send({ method: `${SCOPE}::__ready`, params: 'ping' }, '*');
}
