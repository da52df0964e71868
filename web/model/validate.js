// The form's checks, field by field, for messages under the field that name its rule, and the
// engine spec the form becomes. Each number's range is the engine's own (engine.limits(), in the
// catalog); rules between fields are the engine's alone: runForm shows its refusal under the field
// it names (fieldOfMessage). The form's fields come from the field table (fields.js).

import { chapterById, DEFAULT_CHAPTER } from './chapters.js';
import { fieldsOf } from './fields.js';
import { keepsPreset, presetById } from './presets.js';
import { splitTokens } from './tokens.js';

function wholeNumber(raw, lo, hi) {
  const text = String(raw ?? '').trim();
  if (!/^\d+$/.test(text)) return null;
  const v = Number(text);
  return v >= lo && v <= hi ? v : null;
}

// Tokens are labels (and the designed heads' words): printable words of at most the engine's
// wordLength characters (UTF-16 units, as it counts them). Control characters and lone surrogates
// are no labels; bidirectional controls (U+202E, …) would reorder the labels and the text around them.
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const CONTROL = /[\p{Cc}\p{Cs}]/u;
const codePoint = (c) => `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
const ordinal = (i) => `token ${i + 1}`;

function tokenProblem(label, tokens, maxChars) {
  for (const [i, token] of tokens.entries()) {
    if (token.length > maxChars)
      return `${label} must each have at most ${maxChars} characters (${ordinal(i)} has ${token.length}).`;
    const bidi = BIDI.exec(token);
    if (bidi)
      return (
        `${label} must not hold bidirectional controls, which reorder the ` +
        `text around them (${ordinal(i)} holds ${codePoint(bidi[0])}).`
      );
    const control = CONTROL.exec(token);
    if (control) return `${label} must not hold control characters (${ordinal(i)} holds ${codePoint(control[0])}).`;
  }
  return null;
}

// The engine's range for a token field's count: the designed heads' words, a cross chapter's
// queries and keys, or else the sequence.
function countRange(limits, kind, f) {
  if (kind === 'designed') return limits.words;
  if (kind === 'cross') return f.field === 'tokens' ? limits.queryLen : limits.keyLen;
  return limits.seqLen;
}

function checkTokens(limits, kind, form, f, errors) {
  const tokens = splitTokens(form[f.field]);
  const { min, max } = countRange(limits, kind, f);
  if (tokens.length < min || tokens.length > max) {
    const what = f.field === 'tokens' ? 'T = number of tokens' : 'T_kv = number of source tokens';
    errors[f.field] = `Enter between ${min} and ${max} tokens separated by spaces (${what}; now ${tokens.length}).`;
  }
  const problem = errors[f.field] ? null : tokenProblem(f.label, tokens, limits.wordLength.max);
  if (problem) errors[f.field] = problem;
  return tokens;
}

// A decimal in (above, max], e.g. the weight scale 0.1; blank, where the field allows it, for none.
function checkDecimal(f, raw, errors, { above, max }) {
  const text = String(raw ?? '').trim();
  if (f.blank && text === '') return undefined;
  const v = /^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : NaN; // 0.1, .5, 1e-3
  if (v > above && v <= max) return v;
  const blank = f.blank ? `, or blank for ${f.blank}` : '';
  errors[f.field] = `${f.label} must be a number above ${above} and at most ${max}${blank} (${f.example}).`;
  return null;
}

// Numbers separated by commas or spaces → [x, …], e.g. sink logits 2, -1.5 (blank: none).
function checkDecimals(f, raw, errors) {
  const parts = String(raw ?? '')
    .split(/[\s,]+/)
    .filter(Boolean);
  if (!parts.length) return undefined;
  const numbers = /^[-+\u2212]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
  if (parts.every((p) => numbers.test(p))) return parts.map((p) => Number(p.replace('\u2212', '-')));
  errors[f.field] = `${f.label} must be numbers separated by commas, e.g. 2, -1.5, or blank for ${f.blank}.`;
  return null;
}

// Head (or position) numbers separated by commas or spaces → [i, …] (blank: none).
function checkHeads(f, raw, errors) {
  const noun = f.type === 'heads' ? 'head' : 'position';
  const parts = String(raw ?? '')
    .split(/[\s,]+/)
    .filter(Boolean);
  if (!parts.every((p) => /^\d{1,6}$/.test(p))) {
    errors[f.field] = `${f.label} must be ${noun} numbers separated by commas, e.g. 1, 3.`;
    return null;
  }
  const heads = parts.map(Number);
  const twice = heads.find((h, i) => heads.indexOf(h) !== i);
  if (twice === undefined) return heads;
  errors[f.field] = `${f.label} must name each ${noun} once (${noun} ${twice} is named twice).`;
  return null;
}

// The model's tokens are ids: whole numbers (the engine checks them against its vocabulary).
function checkIds(f, tokens, errors) {
  const bad = tokens.findIndex((t) => !/^\d{1,6}$/.test(t));
  if (bad >= 0 && !errors[f.field])
    errors[f.field] =
      `${f.label} must be whole numbers separated by spaces (${ordinal(bad)} is \u201c${tokens[bad]}\u201d).`;
  if (tokens.length < 2 && !errors[f.field])
    errors[f.field] = `${f.label}: enter at least 2, so that one token has a next token to predict.`;
}

// A number field → its value, undefined when blank means the engine's default, null when wrong.
function checkNumber(f, raw, errors, { min, max }) {
  if (f.type === 'auto' && String(raw ?? '').trim() === '') return undefined;
  const v = wholeNumber(raw, min, max);
  if (v === null) {
    const blank = f.type === 'auto' ? `, or blank for ${f.blank}` : '';
    errors[f.field] = `${f.label} must be a whole number from ${min} to ${max}${blank}.`;
  }
  return v;
}

// The form field an engine refusal names ("validKeys: 1 leaves query 1 no key: …" → validKeys,
// "documents[1]: …" → documents, "seqLen: …" → tokens), or null for one no field of the chapter holds.
const COUNTED_BY = { seqLen: 'tokens', queryLen: 'tokens', keyLen: 'keyTokens', tokens: 'tokens' };
export function fieldOfMessage(chapterId, message) {
  const name = /^([\w.]+?)(?:\[\d+\])*:/.exec(message)?.[1];
  if (!name) return null;
  const own = fieldsOf(chapterById(chapterId) ?? chapterById(DEFAULT_CHAPTER));
  const field = own.find((f) => f.spec === name)?.field ?? COUNTED_BY[name];
  return own.some((f) => f.field === field) ? field : null;
}

// Token counts separated by commas or spaces → [n, …] (blank: none), each at least 1.
function checkLengths(f, raw, errors) {
  const parts = String(raw ?? '')
    .split(/[\s,]+/)
    .filter(Boolean);
  if (parts.every((p) => /^\d{1,6}$/.test(p) && Number(p) >= 1)) return parts.map(Number);
  errors[f.field] = `${f.label} must be token counts of at least 1 separated by commas, e.g. 3, 3, 2.`;
  return null;
}

function checkChoice(f, raw, errors) {
  if (f.choices.includes(raw)) return raw;
  errors[f.field] = `${f.label} must be one of ${f.choices.join(', ')}.`;
  return null;
}

// A flag's spec value: its `on` value or true, and off left out (false where it inverts).
function checkFlag(f, raw) {
  const on = Boolean(raw) !== Boolean(f.invert);
  if (f.invert) return on;
  return on ? (f.on ?? true) : f.on || f.object ? undefined : false;
}

const CHECKS = {
  flag: checkFlag,
  decimal: checkDecimal,
  decimals: checkDecimals,
  heads: checkHeads,
  positions: checkHeads,
  lengths: checkLengths,
  choice: checkChoice,
  whole: checkNumber,
  auto: checkNumber,
};

// The spec's fields, an object flag's fields (rope.offset) inside its object, kept only when the
// object is on. A value the page holds (f.held: catalog[f.held.in], a Map of name → value, e.g.
// the training page's checkpoints) goes to the engine as itself, under f.held.as.
function specValues(catalog, form, chapter, errors) {
  const values = {};
  for (const f of fieldsOf(chapter)) {
    if (f.type === 'tokens') continue;
    const held = f.held && catalog[f.held.in]?.get(form[f.field]);
    if (held) {
      values[f.held.as] = held;
      continue;
    }
    const v = CHECKS[f.type](f, form[f.field], errors, catalog.limits[f.spec]);
    if (v === undefined || v === null || (Array.isArray(v) && !v.length)) continue;
    const [owner, inner] = f.spec.split('.');
    if (inner === undefined) values[owner] = f.object ? {} : v;
    else if (values[owner]) values[owner][inner] = v;
  }
  return values;
}

// Is this form exactly a preset of its chapter (keepsPreset)? Then ask for the preset.
function matchesPreset(catalog, form, tokens, keyTokens) {
  const p = presetById(catalog, form.preset);
  return p && p.chapter === form.chapter && keepsPreset(p, tokens, keyTokens) ? p : null;
}

/**
 * form: see state/form.js → { errors: { field: message }, ok, tokens, keyTokens, spec, preset }
 * where spec is what engine.run takes and preset the matching preset (or null).
 */
export function validateForm(catalog, form) {
  const errors = {};
  const chapter = chapterById(form.chapter) ?? chapterById(DEFAULT_CHAPTER);
  const own = new Map(fieldsOf(chapter).map((f) => [f.field, f]));
  const tokens = checkTokens(catalog.limits, chapter.kind, form, own.get('tokens'), errors);
  if (chapter.kind === 'model') checkIds(own.get('tokens'), tokens, errors);
  const keyTokens = own.has('keyTokens')
    ? checkTokens(catalog.limits, chapter.kind, form, own.get('keyTokens'), errors)
    : [];
  const preset = matchesPreset(catalog, form, tokens, keyTokens);
  if (preset)
    return { errors, ok: !Object.keys(errors).length, tokens, keyTokens, spec: { preset: preset.id }, preset };
  const values = specValues(catalog, form, chapter, errors);
  const ok = Object.keys(errors).length === 0;
  const lengths =
    chapter.kind === 'cross'
      ? { queryLen: tokens.length, keyLen: keyTokens.length }
      : chapter.kind === 'designed'
        ? { tokens } // the words themselves build X
        : chapter.kind === 'model'
          ? { tokens: tokens.map(Number) } // the ids the model embeds
          : { seqLen: tokens.length };
  const spec = ok ? { kind: chapter.kind, ...lengths, ...values } : null;
  return { errors, ok, tokens, keyTokens, spec, preset: null };
}
