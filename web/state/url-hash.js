// URL hash ↔ state, from the field table (model/fields.js), so a link restores the exact view:
//   #chapter=gqa&preset=gqa-4-2&stage=weights&head=2
//   #chapter=cross&tokens=le+chat&keys=the+cat+sat&dModel=8&heads=2&…&stage=scores&head=1&cell=1.2

import { CHAPTERS, chapterById, DEFAULT_CHAPTER } from '../model/chapters.js';
import { FIELDS, fieldsOf, readHashValue, writeHashValue } from '../model/fields.js';
import { keepsPreset, presetById } from '../model/presets.js';
import { stageById } from '../model/stage-table.js';
import { splitTokens } from '../model/tokens.js';
import { headCount, presetForm } from './form.js';
import { quoted } from './quote.js';

const TOKEN_FIELDS = ['tokens', 'keyTokens'];
const KEYS = ['chapter', 'preset', 'stage', 'head', 't', 'cell', 'sum', 'quiz', ...FIELDS.map((f) => f.hash)];
const SWITCH_TEXTS = ['1', '0', 'true', 'false'];
const MAX_NOTES = 5;

// A link is read leniently: what it holds that the page cannot use is ignored (or read as the
// default) and noted, in form.linkNotes, for the form to show. A key given twice: the first wins.
function readParams(hash, notes) {
  const first = new Map();
  const repeated = new Set();
  for (const [key, value] of new URLSearchParams(String(hash ?? '').replace(/^#/, ''))) {
    if (!KEYS.includes(key))
      notes.push(`${quoted(key)}: not a key of this page's links; ignored (the keys are ${KEYS.join(', ')}).`);
    else if (!first.has(key)) first.set(key, value);
    else if (!repeated.has(key)) {
      repeated.add(key);
      notes.push(`${key}: given more than once; the first, ${quoted(first.get(key))}, is used.`);
    }
  }
  return { has: (key) => first.has(key), get: (key) => first.get(key) ?? null };
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

// A whole number from the link (head, t), or null with a note.
function readWhole(params, key, fallback, notes) {
  const text = params.get(key);
  if (text === null || /^\d{1,9}$/.test(text)) return text === null ? null : Number(text);
  notes.push(`${key}: ${quoted(text)} is not a whole number; ${fallback}.`);
  return null;
}

function readHead(params, form, notes) {
  const head = readWhole(params, 'head', 'head 0 is shown', notes) ?? 0;
  const heads = headCount(form);
  if (heads === null || head < heads) return head;
  notes.push(`head: ${head} is not a head of this configuration (heads 0 to ${heads - 1}); head 0 is shown.`);
  return 0;
}

function readStage(params, notes) {
  const stage = params.get('stage');
  if (stage === null || stageById(stage)) return stage;
  notes.push(
    `stage: ${quoted(stage)} is not a stage id (x, q, k, v, ` +
      `scores, scaled, weights, \u2026); the first stage is shown.`,
  );
  return null;
}

function readCell(params, notes) {
  const text = params.get('cell');
  const m = /^(\d{1,9})\.(\d{1,9})$/.exec(text ?? '');
  if (text !== null && !m) notes.push(`cell: ${quoted(text)} is not row.column (e.g. 1.2); no number is explained.`);
  return m ? { row: Number(m[1]), col: Number(m[2]) } : null;
}

function readSwitch(params, key, notes) {
  const text = params.get(key);
  if (text !== null && text !== '1' && text !== '0') notes.push(`${key}: ${quoted(text)} is not 1 or 0; read as 0.`);
  return text === '1';
}

const capped = (notes) =>
  notes.length <= MAX_NOTES ? notes : [...notes.slice(0, MAX_NOTES), `\u2026 and ${notes.length - MAX_NOTES} more.`];

// → { form, stage, head, time, selection, showContributions, quiz }; time: the decode step or tile.
// form.linkNotes: what the link held that could not be used, when anything (see readParams).
export function stateFromHash(catalog, hash) {
  const notes = [];
  const params = readParams(hash, notes);
  const form = readForm(catalog, params, notes);
  const state = {
    form,
    stage: readStage(params, notes),
    head: readHead(params, form, notes),
    time: readWhole(params, 't', 'the first step is shown', notes),
    selection: readCell(params, notes),
    showContributions: readSwitch(params, 'sum', notes),
    quiz: readSwitch(params, 'quiz', notes),
  };
  if (notes.length) form.linkNotes = capped(notes);
  return state;
}

export function hashFromState(catalog, { form, stage, head, time, selection, showContributions, quiz }) {
  const params = new URLSearchParams();
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
  params.set('stage', stage);
  if (head !== null && head !== undefined) params.set('head', String(head));
  if (time !== null && time !== undefined) params.set('t', String(time));
  if (selection) params.set('cell', `${selection.row}.${selection.col}`);
  if (showContributions) params.set('sum', '1');
  if (quiz) params.set('quiz', '1');
  return `#${params.toString()}`;
}
