// The element's attributes ↔ what the stepper wants, from the field table (model/fields.js) and
// the view keys (view-keys.js), as url-hash.js does for the page's hash.
// Pure: get(name) → string | null.
//   <attention-stepper chapter="cross" preset="cross-padding" stage="masked" controls="compact">
// Sizes start from the preset (or the chapter's first) and turn it into a custom configuration.

import { CHAPTERS, chapterById, chapterList } from '../model/chapters.js';
import { FIELDS, fieldsOf, readAttributeValue } from '../model/fields.js';
import { presetById } from '../model/presets.js';
import { stageById } from '../model/stage-table.js';
import { validateForm } from '../model/validate.js';
import { changeField, headCount, presetForm } from './form.js';
import { quoted } from './quote.js';
import { ATTRIBUTE_VIEW_KEYS, QUIZ_REQUIRED, stageIds, wholeNumber } from './view-keys.js';

export const CONTROLS = ['none', 'compact', 'full', 'locked'];
export const THEMES = ['light', 'dark', 'auto'];

// The element's own: which chapters and stages it offers, how many controls it shows, its theme.
const ELEMENT_ATTRIBUTES = ['chapters', 'stages', 'controls', 'theme'];

export const ATTRIBUTES = [
  'chapter',
  'preset',
  ...FIELDS.map((f) => f.attribute),
  ...ATTRIBUTE_VIEW_KEYS.map((k) => k.name),
  ...ELEMENT_ATTRIBUTES,
];

const oneOf = (list) => list.map(quoted).join(', ');
const attributeOf = (field) => FIELDS.find((f) => f.field === field)?.attribute ?? field;

function readChoice(get, name, list, fallback, errors) {
  const v = get(name);
  if (v === null) return fallback;
  if (list.includes(v.trim())) return v.trim();
  errors.push(`${name}: ${quoted(v)} is not one of ${oneOf(list)}.`);
  return fallback;
}

// The chapter and preset attributes → the form they start from.
function startForm(catalog, get, errors) {
  const chapterId = readChoice(
    get,
    'chapter',
    CHAPTERS.map((c) => c.id),
    null,
    errors,
  );
  const name = get('preset')?.trim() ?? null;
  const preset = name === null ? null : presetById(catalog, name);
  if (name !== null && !preset) {
    errors.push(`preset: ${quoted(name)} is not one of ${oneOf(catalog.presets.map((p) => p.id))}.`);
  } else if (preset && chapterId && preset.chapter !== chapterId) {
    errors.push(`preset: ${quoted(name)} belongs to chapter ${quoted(preset.chapter)}, not ${quoted(chapterId)}.`);
  }
  return presetForm(catalog, preset?.id, chapterId ?? preset?.chapter);
}

function readForm(catalog, get, errors) {
  let form = startForm(catalog, get, errors);
  const chapter = chapterById(form.chapter);
  const own = new Set(fieldsOf(chapter).map((f) => f.field));
  for (const f of FIELDS) {
    const v = get(f.attribute);
    if (v === null) continue;
    if (!own.has(f.field)) {
      errors.push(`${f.attribute}: not a setting of chapter ${quoted(chapter.id)}.`);
      continue;
    }
    const value = readAttributeValue(f, v);
    if (value !== form[f.field]) form = changeField(catalog, form, f.field, value);
  }
  for (const [field, message] of Object.entries(validateForm(catalog, form).errors))
    errors.push(`${attributeOf(field)}: ${message}`);
  return form;
}

// chapters: the chapter tabs a lecturer keeps, in their order; null for every chapter.
function readChapters(get, errors) {
  const v = get('chapters');
  if (v === null || v.trim() === '') return null;
  const { ids, unknown } = chapterList(v);
  if (unknown.length)
    errors.push(
      `chapters: ${unknown.map(quoted).join(', ')} ${unknown.length > 1 ? 'are not chapters' : 'is not a chapter'}; ` +
        `the chapters are ${oneOf(CHAPTERS.map((c) => c.id))}.`,
    );
  return ids;
}

function readStages(get, errors) {
  const v = get('stages');
  if (v === null || v.trim() === '') return null;
  const ids = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = ids.filter((id) => !stageById(id));
  if (unknown.length)
    errors.push(
      `stages: ${unknown.map(quoted).join(', ')} ` +
        `${unknown.length > 1 ? 'are not stages' : 'is not a stage'}; the stages are ${stageIds()}.`,
    );
  return ids.filter((id) => stageById(id));
}

function readStage(get, key, errors) {
  const stage = get(key.name)?.trim() ?? null;
  if (stage === null || stageById(stage)) return stage;
  errors.push(`${key.name}: ${quoted(get(key.name))} is not a stage; the stages are ${stageIds()}.`);
  return null;
}

// A whole-number attribute (head, step), or the key's fallback with a message when it is not one.
function readWhole(get, key, errors) {
  const v = get(key.name);
  const n = wholeNumber(v);
  if (v !== null && n === null) errors.push(`${key.name}: ${quoted(v)} is not a whole number (${key.counts}).`);
  return n ?? key.fallback;
}

// A switch like causal (present is on, "false" or "0" off).
const readSwitch = (get, key) => get(key.name) !== null && readAttributeValue({ type: 'flag' }, get(key.name));

// quiz: a switch, or "required".
const readQuiz = (get, key, errors) => (get(key.name)?.trim() === QUIZ_REQUIRED ? QUIZ_REQUIRED : readSwitch(get, key));

const VIEW_TYPES = { stage: readStage, whole: readWhole, switch: readSwitch, quiz: readQuiz };

// → { stage, head, time, quiz }: the view keys the element reads, each with its fallback.
const readView = (get, errors) =>
  Object.fromEntries(ATTRIBUTE_VIEW_KEYS.map((k) => [k.state, VIEW_TYPES[k.type](get, k, errors)]));

/**
 * → { errors: [message], wanted: { form, stage, head, time, selection, showContributions, quiz },
 *     chapters: [id] | null, stages: [id] | null, controls, theme }. Every message starts with the
 *     attribute's name.
 */
export function readAttributes(catalog, get, { controls = 'compact', theme = 'auto' } = {}) {
  const errors = [];
  const chapters = readChapters(get, errors);
  // Without a chapter or an example of its own, the element opens the first chapter it offers.
  const opening = chapters && get('chapter') === null && get('preset') === null ? chapters[0] : null;
  const form = readForm(catalog, (name) => (name === 'chapter' && opening ? opening : get(name)), errors);
  if (chapters && !chapters.includes(form.chapter))
    errors.push(
      `chapter: ${quoted(form.chapter)} is not one of the chapters offered (chapters: ${chapters.join(', ')}).`,
    );
  const stages = readStages(get, errors);
  const view = readView(get, errors);
  const result = {
    errors,
    chapters,
    stages,
    controls: readChoice(get, 'controls', CONTROLS, controls, errors),
    theme: readChoice(get, 'theme', THEMES, theme, errors),
  };
  const heads = headCount(form); // flash: one head; designed: the engine's four, not checked here
  if (!errors.length && heads !== null && view.head >= heads)
    errors.push(`head: ${view.head} is not a head of this configuration (heads 0 to ${heads - 1}).`);
  return {
    ...result,
    wanted: {
      form,
      ...view,
      stage: view.stage ?? stages?.[0] ?? null,
      selection: null,
      showContributions: false,
    },
  };
}
