// The current view as <attention-stepper> attributes (the names of state/attributes.js and
// model/fields.js), and from them a ready HTML snippet and an embed.html query string: the
// reverse of readAttributes. A preset is named with only the tokens that differ; a custom
// configuration lists the fields that differ from its chapter's first example.

import { chapterById, isTabOrder } from '../model/chapters.js';
import { fieldsOf } from '../model/fields.js';
import { presetById } from '../model/presets.js';
import { presetForm } from './form.js';
import { ATTRIBUTE_VIEW_KEYS } from './view-keys.js';

const TOKEN_FIELDS = ['tokens', 'keyTokens'];

// A field's attribute: [name, value], the value null for a boolean attribute that is present.
function fieldAttribute(f, value) {
  if (f.type !== 'flag') return [f.attribute, String(value)];
  return value ? [f.attribute, null] : [f.attribute, 'false'];
}

// A view key's attribute (view-keys.js), or null when the view leaves it to the element.
function viewAttribute(key, value) {
  if (value === null || value === undefined || value === false) return null;
  return [key.name, value === true ? null : String(value)];
}

/**
 * form (state/form.js), view: { stage, head, time, quiz } (time: the decode step or tile) →
 * [[name, value | null]] in the element's order: chapter, preset, fields, stage, head, step, quiz.
 */
export function elementAttributes(catalog, form, view) {
  const chapter = chapterById(form.chapter);
  const preset = presetById(catalog, form.preset);
  const attrs = [['chapter', chapter.id]];
  const base = presetForm(catalog, preset?.id ?? null, chapter.id);
  if (preset) attrs.push(['preset', preset.id]);
  for (const f of fieldsOf(chapter)) {
    if (preset && !TOKEN_FIELDS.includes(f.field)) continue; // a preset's sizes are its own
    if (form[f.field] !== base[f.field]) attrs.push(fieldAttribute(f, form[f.field]));
  }
  for (const key of ATTRIBUTE_VIEW_KEYS) {
    const attr = viewAttribute(key, view[key.state]);
    if (attr) attrs.push(attr);
  }
  return attrs;
}

const ESCAPES = { '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' };
const escapeAttribute = (v) => v.replace(/[&"<>]/g, (c) => ESCAPES[c]);

export const KATEX_SHEET = 'vendor/katex/katex.min.css';
// The drawn stage shows once the parser has reached its end: a browser paints a long document in
// parts, and a part of the stage would be laid out without what follows it.
// A heatmap's cell width as a length in its cells' font (heatmap.css): an @property rule counts
// only in the document.
const PITCH = "@property --pitch { syntax: '<length>'; inherits: true; initial-value: 0px; }";
const SHOW_WHOLE = '.as-fallback[hidden]:has(> .as-fallback-end) { display: block !important; }';
const attributesText = (attrs) =>
  attrs.map(([name, value]) => (value === null ? name : `${name}="${escapeAttribute(value)}"`)).join(' ');

/** → '<attention-stepper chapter="…" …></attention-stepper>' */
export function elementSnippet(attrs) {
  return `<attention-stepper ${attributesText(attrs)}></attention-stepper>`;
}

/**
 * The element with its first stage drawn in (issue 36), at base (the folder of dist/, with '/'):
 * a declarative shadow root, painted before any script arrives and kept by the element until its
 * live stage replaces it. fallback: { html, css, fonts }, the drawn stage (element/prerender.js),
 * every rule it needs (the stepper's and KaTeX's sheets among them: a shadow root's linked sheets
 * do not hold its first paint, its own <style> does) and the font files (dist paths) its formulas
 * use, preloaded so that they are in by its first layout. The <style> comes after the links, so
 * that the same rules arriving by them later change nothing (they are the element's sheets when
 * a CSP refuses the <style>). The host carries the class the element gives itself (theme-auto),
 * which the dark scheme's rules name. The stage is hidden unless that <style> applies, so
 * a page whose CSP refuses inline styles shows the live stage alone, as without a fallback.
 * KaTeX's sheet is linked in the document as well, and --pitch's @property rule written there:
 * font faces and registered properties count only in the document.
 */
export function fallbackSnippet(attrs, base, { html, css, fonts }) {
  const href = (file) => escapeAttribute(base + file);
  const link = (file) => `<link rel="stylesheet" href="${href(file)}">`;
  const preload = (file) => `<link rel="preload" as="font" type="font/woff2" crossorigin href="${href(file)}">\n`;
  return (
    `${fonts.map(preload).join('')}${link(KATEX_SHEET)}\n<style>${PITCH}</style>\n` +
    `<attention-stepper ${attributesText(attrs)} class="theme-auto"><template shadowrootmode="open">` +
    `${link(KATEX_SHEET)}${link('attention-stepper.css')}` +
    `<style>${css}${SHOW_WHOLE}</style>` +
    `<div class="as-root as-fallback" hidden>${html}<i class="as-fallback-end" hidden></i></div>` +
    '</template></attention-stepper>'
  );
}

/** → 'chapter=…&stage=…' for embed.html, which reads the same names (present: empty value). */
export function embedQuery(attrs) {
  return new URLSearchParams(attrs.map(([name, value]) => [name, value ?? ''])).toString();
}

/**
 * A lecturer's choice in builder.html → the element's attributes: { chapters: [id] (the tabs,
 * in order; every chapter: none written), preset (an example of the first), controls, quiz
 * (false, true or 'required') }.
 */
export function builderAttributes({ chapters, preset, controls, quiz }) {
  const attrs = [];
  if (chapters.length && !isTabOrder(chapters)) attrs.push(['chapters', chapters.join(',')]);
  if (preset) attrs.push(['preset', preset]); // else the element opens the first chapter offered
  attrs.push(['controls', controls]);
  if (quiz) attrs.push(['quiz', quiz === true ? null : String(quiz)]);
  return attrs;
}

/** → '<iframe …>' of embed.html with these attributes, at src (the folder of dist/, with '/'). */
export function iframeSnippet(attrs, base, height = 900) {
  const src = escapeAttribute(`${base}embed.html?${embedQuery(attrs)}`);
  return `<iframe title="Attention stepper" width="100%" height="${height}" src="${src}"></iframe>`;
}
