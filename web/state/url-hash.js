// URL hash ↔ state, from one declared table, so a link restores the exact view:
//   #preset=lesson-multi-head&stage=weights&head=2
//   #tokens=a+b+c&dModel=8&heads=2&dK=4&dV=4&causal=1&seed=7&scale=0&wo=1&stage=scores&head=1&cell=2.0

import { DEFAULT_PRESET, presetById } from '../model/presets.js';
import { stageById } from '../model/stage-table.js';
import { splitTokens } from '../model/validate.js';
import { presetForm } from './form.js';

const text = { read: (s) => s, write: (v) => String(v) };
const flag = { read: (s) => s === '1' || s === 'true', write: (v) => (v ? '1' : '0') };
const notFlag = { read: (s) => !flag.read(s), write: (v) => flag.write(!v) };

// Custom configuration fields: hash key → form field.
export const FORM_FIELDS = [
  { key: 'tokens', field: 'tokens', codec: text },
  { key: 'dModel', field: 'dModel', codec: text },
  { key: 'heads', field: 'heads', codec: text },
  { key: 'dK', field: 'dK', codec: text },
  { key: 'dV', field: 'dV', codec: text },
  { key: 'causal', field: 'causal', codec: flag },
  { key: 'seed', field: 'seed', codec: text },
  { key: 'scale', field: 'noScale', codec: notFlag },
  { key: 'wo', field: 'outputProjection', codec: flag },
];

function readForm(params) {
  const preset = presetById(params.get('preset'));
  const custom = FORM_FIELDS.some((f) => f.key !== 'tokens' && params.has(f.key));
  const form = preset ? presetForm(preset.id) : { ...presetForm(DEFAULT_PRESET), preset: custom ? 'custom' : DEFAULT_PRESET };
  for (const { key, field, codec } of FORM_FIELDS) {
    if (params.has(key) && (!preset || key === 'tokens')) form[field] = codec.read(params.get(key));
  }
  if (preset && splitTokens(form.tokens).length !== preset.config.seqLen) form.preset = 'custom';
  return form;
}

function readCell(s) {
  const m = /^(\d+)\.(\d+)$/.exec(s ?? '');
  return m ? { row: Number(m[1]), col: Number(m[2]) } : null;
}

// → { form, stage, head, selection, showContributions }
export function stateFromHash(hash) {
  const params = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  const stage = stageById(params.get('stage')) ? params.get('stage') : 'x';
  const head = /^\d+$/.test(params.get('head') ?? '') ? Number(params.get('head')) : 0;
  return {
    form: readForm(params),
    stage,
    head,
    selection: readCell(params.get('cell')),
    showContributions: params.get('sum') === '1',
  };
}

export function hashFromState({ form, stage, head, selection, showContributions }) {
  const params = new URLSearchParams();
  const preset = presetById(form.preset);
  if (preset) {
    params.set('preset', preset.id);
    if (form.tokens !== preset.tokens.join(' ')) params.set('tokens', form.tokens);
  } else {
    for (const { key, field, codec } of FORM_FIELDS) params.set(key, codec.write(form[field]));
  }
  params.set('stage', stage);
  if (head !== null && head !== undefined) params.set('head', String(head));
  if (selection) params.set('cell', `${selection.row}.${selection.col}`);
  if (showContributions) params.set('sum', '1');
  return `#${params.toString()}`;
}
