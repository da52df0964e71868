// The view's keys, as data: what a link (the URL hash, url-hash.js) and the element's attributes
// (attributes.js) say beyond the configuration (the fields, model/fields.js): which stage, head,
// decode step or tile, explained cell, sum over heads and quiz mode. Both read this table, so a
// key has one name in both, and both read a whole number with wholeNumber below.
//   name        the hash key and the attribute
//   state       the field of the wanted view it sets: { stage, head, time, selection,
//               showContributions, quiz, large } (app/actions.js applyWanted)
//   type        'stage' (a stage id), 'whole' (a whole number from 0), 'cell' (row.column), 'switch'
//   hash, attribute   whether links, and the element, read and write it
//   fallback    'whole': the value when the key is absent or not a whole number; counts: what the
//               number counts from, for the element's message; shown: what a link with a bad
//               value shows instead, for its note
//   hashAliases older names a link may still use: read as this key, never written

import { STAGES } from '../model/stage-table.js';

export const VIEW_KEYS = [
  { name: 'stage', state: 'stage', type: 'stage', hash: true, attribute: true },
  {
    name: 'head',
    state: 'head',
    type: 'whole',
    hash: true,
    attribute: true,
    fallback: 0,
    counts: 'heads count from 0',
    shown: 'head 0 is shown',
  },
  {
    name: 'step',
    state: 'time',
    type: 'whole',
    hash: true,
    attribute: true,
    fallback: null,
    counts: 'decode steps and tiles count from 0',
    shown: 'the first step is shown',
    // The hash called it t (the element always said step): old links still open there.
    hashAliases: ['t'],
  },
  { name: 'cell', state: 'selection', type: 'cell', hash: true, attribute: false },
  { name: 'sum', state: 'showContributions', type: 'switch', hash: true, attribute: false },
  // On, off, or required: the next stage opens only once this one's questions are answered.
  { name: 'quiz', state: 'quiz', type: 'quiz', hash: true, attribute: true },
  // Large type, for a projector: the whole stepper drawn 1.4 times larger.
  { name: 'large', state: 'large', type: 'switch', hash: true, attribute: true },
];

export const HASH_VIEW_KEYS = VIEW_KEYS.filter((k) => k.hash);
export const ATTRIBUTE_VIEW_KEYS = VIEW_KEYS.filter((k) => k.attribute);

/** The view key a link's key names (its own name or an alias), or null. */
export function hashViewKey(name) {
  return HASH_VIEW_KEYS.find((k) => k.name === name || k.hashAliases?.includes(name)) ?? null;
}

/** A whole number from a link or an attribute: 1 to 9 digits, spaces around allowed; else null. */
export function wholeNumber(text) {
  const m = /^\s*(\d{1,9})\s*$/.exec(text ?? '');
  return m ? Number(m[1]) : null;
}

/** quiz's third value, beside on and off: a lecturer's, which the reader cannot switch off. */
export const QUIZ_REQUIRED = 'required';

/** Every stage id of the stage table, for messages: 'x, x_q, …'. */
export const stageIds = () => STAGES.map((s) => s.id).join(', ');
