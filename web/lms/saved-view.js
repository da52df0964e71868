// A view a learning platform kept for a learner (the element's attributes and the quiz's answers,
// element.snapshot()), checked and put back on an <attention-stepper>. Shared by the SCORM
// package's launch page (scorm.js) and Open edX's JSInput (jsinput.js).

import { sharedEngine } from '../element/assets.js';
import { ATTRIBUTES, readAttributes } from '../state/attributes.js';

// What the embedding decides, not the learner's record: a saved view leaves these as they are (a
// record cannot lift a required quiz).
const EMBEDDING = new Set(['chapters', 'controls', 'theme', 'stages', 'quiz']);
const ownPart = (attributes) => attributes.filter(([name]) => !EMBEDDING.has(name));

/**
 * Whether saved attributes ([[name, value]]) fit this element: names it knows, values it accepts
 * with the embedding's own attributes (a chapter among its chapters). A record that is not ours or
 * was tampered with fails, and the element keeps its own view.
 */
export async function fitsElement(element, attributes) {
  if (!Array.isArray(attributes)) return false;
  const ok = attributes.every(
    (pair) => Array.isArray(pair) && pair.length === 2 && ATTRIBUTES.includes(pair[0]) && typeof pair[1] === 'string',
  );
  if (!ok) return false;
  const given = new Map(ownPart(attributes));
  const { catalog } = await sharedEngine();
  const get = (name) => (given.has(name) ? given.get(name) : element.getAttribute(name));
  return readAttributes(catalog, get).errors.length === 0;
}

/**
 * Sets the saved attributes and, once the element is ready on them, puts the answers back
 * (quiz: element.snapshot().quiz). Before the element is connected, or when the attributes
 * change its view, that is at its next 'ready'; else at once.
 */
export function restoreView(element, { attributes, quiz }) {
  const own = ownPart(attributes);
  const changes = own.some(([name, value]) => element.getAttribute(name) !== value);
  for (const [name, value] of own) element.setAttribute(name, value);
  if (!quiz) return;
  if (!changes && element.dataset.ready === 'true') return element.restoreQuiz(quiz);
  element.addEventListener('ready', () => element.restoreQuiz(quiz), { once: true });
}
