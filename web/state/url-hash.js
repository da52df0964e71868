// URL hash ↔ state, from the field table (model/fields.js) and the view keys (view-keys.js), so a
// link restores the exact view:
//   #chapter=gqa&preset=gqa-4-2&stage=weights&head=2
//   #chapter=cross&tokens=le+chat&keys=the+cat+sat&dModel=8&heads=2&…&stage=scores&head=1&cell=1.2
//   #chapter=kv-cache&preset=kv-cache-gqa&stage=k_cache&head=0&step=2   (old links: &t=2)

import { CHAPTERS, chapterById, chapterList, DEFAULT_CHAPTER } from '../model/chapters.js';
import { FIELDS, fieldsOf, readHashValue, writeHashValue } from '../model/fields.js';
import { keepsPreset, presetById } from '../model/presets.js';
import { stageById } from '../model/stage-table.js';
import { splitTokens } from '../model/tokens.js';
import { headCount, presetForm } from './form.js';
import { quoted } from './quote.js';
import { HASH_VIEW_KEYS, QUIZ_REQUIRED, hashViewKey, stageIds, wholeNumber } from './view-keys.js';

const TOKEN_FIELDS = ['tokens', 'keyTokens'];
const KEYS = [
  'chapters',
  'controls',
  'chapter',
  'preset',
  ...HASH_VIEW_KEYS.map((k) => k.name),
  ...FIELDS.map((f) => f.hash),
];
// The page's controls a link may set (state/attributes.js has the element's): full, or a
// lecturer's locked configuration.
const PAGE_CONTROLS = ['full', 'locked'];
const SWITCH_TEXTS = ['1', '0', 'true', 'false'];
const MAX_NOTES = 5;

// A link is read leniently: what it holds that the page cannot use is ignored (or read as the
// default) and noted, in form.linkNotes, for the form to show. A key given twice (also under an
// old name): the first wins. named(key): the name the link used, for its notes.
function readParams(hash, notes) {
  const first = new Map();
  const names = new Map();
  const repeated = new Set();
  for (const [given, value] of new URLSearchParams(String(hash ?? '').replace(/^#/, ''))) {
    const key = hashViewKey(given)?.name ?? given;
    if (!KEYS.includes(key))
      notes.push(`${quoted(given)}: not a key of this page's links; ignored (the keys are ${KEYS.join(', ')}).`);
    else if (!first.has(key)) {
      first.set(key, value);
      names.set(key, given);
    } else if (!repeated.has(key)) {
      repeated.add(key);
      notes.push(`${key}: given more than once; the first, ${quoted(first.get(key))}, is used.`);
    }
  }
  return {
    has: (key) => first.has(key),
    get: (key) => first.get(key) ?? null,
    named: (key) => names.get(key) ?? key,
  };
}

// The chapter asked for, else the preset's, else the default.
function chapterOf(params, preset, notes) {
  const name = params.get('chapter');
  const asked = chapterById(name);
  if (asked) return asked.id;
  const shown = preset ? preset.chapter : DEFAULT_CHAPTER;
  if (name !== null)
    notes.push(
      `chapter: ${quoted(name)} is not one of ${CHAPTERS.map((c) => c.id).join(', ')}; chapter ${shown} is shown.`,
    );
  return shown;
}

function presetOf(catalog, params, chapterId, notes) {
  const name = params.get('preset');
  const asked = presetById(catalog, name);
  if (name !== null && !asked)
    notes.push(
      `preset: ${quoted(name)} is not one of the examples (${catalog.presets.map((p) => p.id).join(', ')}); ignored.`,
    );
  if (asked && asked.chapter !== chapterId)
    notes.push(`preset: ${asked.id} belongs to chapter ${asked.chapter}, not ${chapterId}; ignored.`);
  return asked && asked.chapter === chapterId ? asked : null;
}

// One field's text from the link, or a note saying why it was not read.
function readField(f, params, own, preset, chapterId, notes) {
  const raw = params.get(f.hash);
  if (!own.has(f.field)) return void notes.push(`${f.hash}: not a setting of chapter ${chapterId}; ignored.`);
  if (preset && !TOKEN_FIELDS.includes(f.field)) {
    return void notes.push(
      `${f.hash}: ignored beside preset=${preset.id}, whose settings are fixed (leave out preset= to set them).`,
    );
  }
  if (f.type === 'flag' && !SWITCH_TEXTS.includes(raw))
    notes.push(`${f.hash}: ${quoted(raw)} is not 1 or 0; read as 0.`);
  return readHashValue(f, raw);
}

function readForm(catalog, params, notes) {
  const chapterId = chapterOf(params, presetById(catalog, params.get('preset')), notes);
  const preset = presetOf(catalog, params, chapterId, notes);
  const own = new Set(fieldsOf(chapterById(chapterId)).map((f) => f.field));
  const custom =
    !preset && FIELDS.some((f) => own.has(f.field) && !TOKEN_FIELDS.includes(f.field) && params.has(f.hash));
  const form = presetForm(catalog, preset?.id, chapterId);
  if (custom) form.preset = 'custom';
  for (const f of FIELDS.filter((x) => params.has(x.hash))) {
    const value = readField(f, params, own, preset, chapterId, notes);
    if (value !== undefined) form[f.field] = value;
  }
  if (preset && !keepsPreset(preset, splitTokens(form.tokens), splitTokens(form.keyTokens))) form.preset = 'custom';
  return form;
}

// A whole number from the link (head, step), or the key's fallback (with a note when it is not one).
function readWhole(params, key, notes) {
  const text = params.get(key.name);
  const n = wholeNumber(text);
  if (text !== null && n === null)
    notes.push(`${params.named(key.name)}: ${quoted(text)} is not a whole number; ${key.shown}.`);
  return n ?? key.fallback;
}

// The head asked for, when the configuration has it; else head 0, with a note.
function headWithin(head, form, notes) {
  const heads = headCount(form);
  if (heads === null || head < heads) return head;
  notes.push(`head: ${head} is not a head of this configuration (heads 0 to ${heads - 1}); head 0 is shown.`);
  return 0;
}

function readStage(params, key, notes) {
  const stage = params.get(key.name);
  if (stage === null || stageById(stage)) return stage;
  notes.push(`stage: ${quoted(stage)} is not a stage id (${stageIds()}); the first stage is shown.`);
  return null;
}

function readCell(params, key, notes) {
  const text = params.get(key.name);
  const m = /^(\d{1,9})\.(\d{1,9})$/.exec(text ?? '');
  if (text !== null && !m) notes.push(`cell: ${quoted(text)} is not row.column (e.g. 1.2); no number is explained.`);
  return m ? { row: Number(m[1]), col: Number(m[2]) } : null;
}

function readSwitch(params, key, notes) {
  const text = params.get(key.name);
  if (text !== null && !SWITCH_TEXTS.includes(text))
    notes.push(`${key.name}: ${quoted(text)} is not 1 or 0; read as 0.`);
  return text !== null && readHashValue({ type: 'flag' }, text);
}

// quiz: a switch, or "required" (a lecturer's link).
function readQuiz(params, key, notes) {
  return params.get(key.name) === QUIZ_REQUIRED ? QUIZ_REQUIRED : readSwitch(params, key, notes);
}

// Each type of view key: how a link's text is read (with notes), and how a value is written
// (null: left out of the link).
const VIEW_TYPES = {
  stage: { read: readStage, write: (stage) => stage ?? null },
  whole: { read: readWhole, write: (n) => (n === null || n === undefined ? null : String(n)) },
  cell: { read: readCell, write: (cell) => (cell ? `${cell.row}.${cell.col}` : null) },
  switch: { read: readSwitch, write: (on) => (on ? '1' : null) },
  quiz: { read: readQuiz, write: (on) => (on === QUIZ_REQUIRED ? QUIZ_REQUIRED : on ? '1' : null) },
};

function readView(params, form, notes) {
  const view = {};
  for (const key of HASH_VIEW_KEYS) {
    const value = VIEW_TYPES[key.type].read(params, key, notes);
    view[key.state] = key.name === 'head' ? headWithin(value, form, notes) : value;
  }
  return view;
}

const capped = (notes) =>
  notes.length <= MAX_NOTES ? notes : [...notes.slice(0, MAX_NOTES), `\u2026 and ${notes.length - MAX_NOTES} more.`];

// chapters: a lecturer's tabs, in their order (null: every chapter); what is not a chapter, noted.
function readChapters(params, notes) {
  const text = params.get('chapters');
  if (text === null || !text.trim()) return null;
  const { ids, unknown } = chapterList(text);
  if (unknown.length)
    notes.push(
      `chapters: ${unknown.map(quoted).join(', ')} ${unknown.length > 1 ? 'are not chapters' : 'is not a chapter'}; ` +
        'left out.',
    );
  return ids;
}

function readControls(params, notes) {
  const text = params.get('controls');
  if (text === null || PAGE_CONTROLS.includes(text)) return text ?? 'full';
  notes.push(`controls: ${quoted(text)} is not one of ${PAGE_CONTROLS.join(', ')}; full is shown.`);
  return 'full';
}

// The form within the chapters offered: their first when the link names none of them.
function formWithin(catalog, params, chapters, notes) {
  const named = params.has('chapter') || params.has('preset');
  if (!chapters || !named) {
    const opening = chapters
      ? { ...params, get: (key) => (key === 'chapter' ? chapters[0] : params.get(key)) }
      : params;
    return readForm(catalog, opening, notes);
  }
  const form = readForm(catalog, params, notes);
  if (chapters.includes(form.chapter)) return form;
  notes.push(
    `chapter: ${form.chapter} is not one of the chapters offered (${chapters.join(', ')}); ${chapters[0]} is shown.`,
  );
  return presetForm(catalog, null, chapters[0]);
}

// → { form, stage, head, time, selection, showContributions, quiz, chapters, controls }; time: the
// decode step or tile. form.linkNotes: what the link held that could not be used, when anything (see readParams).
export function stateFromHash(catalog, hash) {
  const notes = [];
  const params = readParams(hash, notes);
  const chapters = readChapters(params, notes);
  const controls = readControls(params, notes);
  const form = formWithin(catalog, params, chapters, notes);
  const state = { form, ...readView(params, form, notes), chapters, controls };
  if (notes.length) form.linkNotes = capped(notes);
  return state;
}

export function hashFromState(catalog, state) {
  const form = state.form;
  const params = new URLSearchParams();
  if (state.chapters) params.set('chapters', state.chapters.join(','));
  if (state.controls && state.controls !== 'full') params.set('controls', state.controls);
  params.set('chapter', form.chapter);
  const preset = presetById(catalog, form.preset);
  const fields = fieldsOf(chapterById(form.chapter));
  if (preset) {
    params.set('preset', preset.id);
    const shown = presetForm(catalog, preset.id);
    for (const f of fields.filter((x) => TOKEN_FIELDS.includes(x.field))) {
      if (form[f.field] !== shown[f.field]) params.set(f.hash, form[f.field]);
    }
  } else {
    for (const f of fields) {
      if (!(f.hidden && Number(form[f.field]) === 0)) params.set(f.hash, writeHashValue(f, form[f.field]));
    }
  }
  for (const key of HASH_VIEW_KEYS) {
    const text = VIEW_TYPES[key.type].write(state[key.state]);
    if (text !== null) params.set(key.name, text);
  }
  return `#${params.toString()}`;
}
