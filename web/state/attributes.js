// The element's attributes ↔ what the stepper wants, from one declared table (as url-hash.js
// does for the page's hash). Pure: get(name) → string | null.
//   <attention-stepper preset="lesson-causal" stage="masked" controls="compact" theme="dark">
// Sizes start from the preset (or the default one) and turn it into a custom configuration.

import { DEFAULT_PRESET, PRESETS, presetById } from '../model/presets.js';
import { STAGES, stageById } from '../model/stage-table.js';
import { validateForm } from '../model/validate.js';
import { changeField, presetForm } from './form.js';

export const CONTROLS = ['none', 'compact', 'full'];
export const THEMES = ['light', 'dark', 'auto'];

// Configuration attributes: attribute → form field (applied in this order).
export const FORM_ATTRIBUTES = [
  { name: 'tokens', field: 'tokens' },
  { name: 'd-model', field: 'dModel' },
  { name: 'heads', field: 'heads' },
  { name: 'd-k', field: 'dK' },
  { name: 'd-v', field: 'dV' },
  { name: 'seed', field: 'seed' },
  { name: 'causal', field: 'causal', flag: true },
];

export const ATTRIBUTES = ['preset', ...FORM_ATTRIBUTES.map((a) => a.name), 'stage', 'head', 'stages', 'controls', 'theme'];

const quoted = (v) => `"${v}"`;
const oneOf = (list) => list.map(quoted).join(', ');
const attributeOf = (field) => FORM_ATTRIBUTES.find((a) => a.field === field)?.name ?? field;
// A boolean attribute: present means on, except the spelled-out "false" and "0".
const readFlag = (v) => v !== null && !['false', '0'].includes(v.trim().toLowerCase());

function readChoice(get, name, list, fallback, errors) {
  const v = get(name);
  if (v === null) return fallback;
  if (list.includes(v.trim())) return v.trim();
  errors.push(`${name}: ${quoted(v)} is not one of ${oneOf(list)}.`);
  return fallback;
}

function readForm(get, errors) {
  const preset = get('preset');
  if (preset !== null && !presetById(preset.trim())) errors.push(`preset: ${quoted(preset)} is not one of ${oneOf(PRESETS.map((p) => p.id))}.`);
  let form = presetForm(presetById(preset?.trim()) ? preset.trim() : DEFAULT_PRESET);
  for (const { name, field, flag } of FORM_ATTRIBUTES) {
    const v = get(name);
    if (v === null) continue;
    const value = flag ? readFlag(v) : v;
    if (value !== form[field]) form = changeField(form, field, value);
  }
  for (const [field, message] of Object.entries(validateForm(form).errors)) errors.push(`${attributeOf(field)}: ${message}`);
  return form;
}

function readStages(get, errors) {
  const v = get('stages');
  if (v === null || v.trim() === '') return null;
  const ids = v.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = ids.filter((id) => !stageById(id));
  if (unknown.length) errors.push(`stages: ${unknown.map(quoted).join(', ')} ${unknown.length > 1 ? 'are not stages' : 'is not a stage'}; the stages are ${STAGES.map((s) => s.id).join(', ')}.`);
  return ids.filter((id) => stageById(id));
}

function readStage(get, errors) {
  const stage = get('stage');
  if (stage !== null && !stageById(stage.trim())) errors.push(`stage: ${quoted(stage)} is not a stage; the stages are ${STAGES.map((s) => s.id).join(', ')}.`);
  const head = get('head');
  if (head !== null && !/^\s*\d+\s*$/.test(head)) errors.push(`head: ${quoted(head)} is not a whole number (heads count from 0).`);
  return { stage: stageById(stage?.trim()) ? stage.trim() : null, head: head !== null && /^\s*\d+\s*$/.test(head) ? Number(head) : 0 };
}

/**
 * → { errors: [message], wanted: { form, stage, head, selection, showContributions },
 *     stages: [id] | null, controls, theme }. Every message starts with the attribute's name.
 */
export function readAttributes(get, { controls = 'compact', theme = 'auto' } = {}) {
  const errors = [];
  const form = readForm(get, errors);
  const stages = readStages(get, errors);
  const { stage, head } = readStage(get, errors);
  const result = {
    errors,
    stages,
    controls: readChoice(get, 'controls', CONTROLS, controls, errors),
    theme: readChoice(get, 'theme', THEMES, theme, errors),
  };
  const heads = Number(form.heads);
  if (!errors.length && head >= heads) errors.push(`head: ${head} is not a head of this configuration (heads 0 to ${heads - 1}).`);
  return { ...result, wanted: { form, stage: stage ?? stages?.[0] ?? 'x', head, selection: null, showContributions: false } };
}
