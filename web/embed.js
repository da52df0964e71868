// embed.html, for iframes: one <attention-stepper> configured by the query string (the
// element's attribute names: ?preset=lesson-causal&stage=masked&controls=compact), and its
// height posted to the parent page on load and on every resize, twice:
//   { type: 'attention-stepper:height', height } (CSS pixels), and the same height as
//   { subject: 'lti.frameResize', height }, which LTI platforms read; and the element's
//   stagechange, quizanswer and quizcomplete events as { type: 'attention-stepper:<event>', detail }.
// ?jsinput=1: an Open edX JSInput problem's page (lms/jsinput.js), the quiz on, none of the
// messages above.

import './element/define.js';
import { exposeJsInput } from './lms/jsinput.js';
import { ATTRIBUTES } from './state/attributes.js';

export const HEIGHT_MESSAGE = 'attention-stepper:height';

// The element the build prerendered (its first stage in a declarative shadow root), or a new one,
// given the query's attributes.
function configureFromQuery(search) {
  const params = new URLSearchParams(search);
  const node = document.querySelector('#embed attention-stepper') ?? document.createElement('attention-stepper');
  for (const name of ATTRIBUTES) if (params.has(name)) node.setAttribute(name, params.get(name));
  if (!params.has('controls')) node.setAttribute('controls', 'compact');
  if (params.has('jsinput')) node.setAttribute('quiz', ''); // what edX grades
  return node;
}

// LTI tool frames resize on this message where the platform listens (Canvas on the web,
// Brightspace, Sakai); elsewhere nobody reads it, and it costs nothing.
export const LTI_RESIZE = 'lti.frameResize';

// Inside an Open edX problem (?jsinput=1) the parent speaks JSChannel, JSON text only, and sizes
// the frame from the problem's XML: the messages below would only be errors there.
const JSINPUT = new URLSearchParams(window.location.search).has('jsinput');
const TALKS = window.parent !== window && !JSINPUT;

function postHeight() {
  if (!TALKS) return;
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  window.parent.postMessage({ type: HEIGHT_MESSAGE, height }, '*');
  window.parent.postMessage({ subject: LTI_RESIZE, height }, '*');
}

const node = configureFromQuery(window.location.search);
if (JSINPUT) exposeJsInput(node);
if (!node.isConnected) document.getElementById('embed').append(node);
// The element's events, passed on to the page around the iframe.
for (const event of ['stagechange', 'quizanswer', 'quizcomplete'])
  node.addEventListener(event, (e) => {
    if (TALKS) window.parent.postMessage({ type: `attention-stepper:${event}`, detail: e.detail }, '*');
  });
new ResizeObserver(postHeight).observe(document.documentElement);
node.addEventListener('ready', postHeight);
window.addEventListener('load', postHeight);
document.body.dataset.ready = 'true';
