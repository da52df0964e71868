// The controls' form as data (every field of web/model/fields.js, as the text a person typed),
// and how one edited field changes it. Editing anything but the tokens turns a preset into a
// custom configuration with the same values; so does a new token count, or new words where the
// words build X (model/presets.js keepsPreset).

import { chapterById } from '../model/chapters.js';
import { FIELDS, fieldById, presetValue } from '../model/fields.js';
import { scaledGeometry } from '../model/panels.js';
import { defaultPreset, keepsPreset, presetById } from '../model/presets.js';
import { splitTokens } from '../model/tokens.js';

/** The form that shows a preset (or the chapter's first preset): every field, from the field table. */
export function presetForm(catalog, id, chapterId) {
  const p = presetById(catalog, id) ?? defaultPreset(catalog, chapterId);
  const form = { chapter: p.chapter, preset: p.id };
  for (const f of FIELDS) form[f.field] = presetValue(f, p);
  return form;
}

// A form read from a link may carry linkNotes (url-hash.js): what the link held that the page
// could not use. They describe the link, so the first edit drops them.
function withoutNotes(form) {
  const { linkNotes, ...rest } = form;
  return rest;
}

/** The form a chapter opens with: the one this reader left in it (its link notes dropped), else
 *  the chapter's first preset's. */
export function chapterForm(catalog, chapterId, left = null) {
  return left ? withoutNotes(left) : presetForm(catalog, null, chapterId);
}

/** How many heads the form's configuration has, or null when the form does not say (designed
 * heads: the engine builds them; a heads field that is not a whole number yet). */
export function headCount(form) {
  const chapter = chapterById(form.chapter);
  if (!chapter.fields.includes('heads')) return chapter.kind === 'flash' ? 1 : null;
  return /^\s*\d+\s*$/.test(form.heads) ? Number(form.heads) : null;
}

export function changeField(catalog, form, field, value) {
  if (field === 'chapter') return chapterForm(catalog, value);
  if (field === 'preset')
    return value === 'custom' ? { ...withoutNotes(form), preset: 'custom' } : presetForm(catalog, value, form.chapter);
  if (!fieldById(field)) throw new Error(`form: no field ${field}`);
  const next = { ...withoutNotes(form), [field]: value };
  const preset = presetById(catalog, form.preset);
  const words = field === 'tokens' || field === 'keyTokens';
  if (preset && !(words && keepsPreset(preset, splitTokens(next.tokens), splitTokens(next.keyTokens))))
    next.preset = 'custom';
  return next;
}

const SHOWN_TOKENS = 'the cat sat on the mat';

/** The GQA chapter's form for a real model's geometry, causal as these decoders are. */
export function modelForm(catalog, model) {
  const g = scaledGeometry(model);
  return {
    ...presetForm(catalog, null, 'gqa'),
    preset: 'custom',
    tokens: SHOWN_TOKENS,
    dModel: String(g.dModel),
    heads: String(g.heads),
    kvHeads: String(g.kvHeads),
    dK: '',
    dV: '',
    causal: true,
    outputProjection: true,
  };
}
