// The configuration form: preset, tokens, sizes, switches; one inline message per field.
// update({ form, errors, engineError, tokenCount }); onChange(field, value) on every edit.

import { el } from './dom.js';

const TEXT_FIELDS = [
  { field: 'tokens', label: 'Tokens', hint: 'a sentence, split on spaces', wide: true },
  { field: 'dModel', label: 'd_model', numeric: true },
  { field: 'heads', label: 'heads', numeric: true },
  { field: 'dK', label: 'd_k', numeric: true, placeholder: 'auto' },
  { field: 'dV', label: 'd_v', numeric: true, placeholder: 'auto' },
  { field: 'seed', label: 'seed', numeric: true },
];

const SWITCHES = [
  { field: 'causal', label: 'Causal mask' },
  { field: 'outputProjection', label: 'Output projection W_O' },
  { field: 'noScale', label: 'No \u00f7\u221ad_k (ablation)' },
];

function messageFor(field) {
  const p = el('p', 'field-error');
  p.id = `error-${field}`;
  return p;
}

function textField(spec, inputs, messages, onChange) {
  const wrap = el('div', `field field-${spec.field}${spec.wide ? ' is-wide' : ''}`);
  const label = el('label', null, spec.label);
  const input = el('input');
  input.id = `field-${spec.field}`;
  input.name = spec.field;
  input.type = 'text';
  input.autocomplete = 'off';
  input.spellcheck = false;
  if (spec.numeric) input.inputMode = 'numeric';
  if (spec.placeholder) input.placeholder = spec.placeholder;
  label.htmlFor = input.id;
  const msg = messageFor(spec.field);
  input.setAttribute('aria-describedby', msg.id);
  input.addEventListener('input', () => onChange(spec.field, input.value));
  wrap.append(label, input);
  if (spec.hint) wrap.append(el('p', 'field-hint', spec.hint));
  wrap.append(msg);
  inputs[spec.field] = input;
  messages[spec.field] = msg;
  return wrap;
}

function switchField(spec, inputs, onChange) {
  const label = el('label', 'switch');
  const box = el('input');
  box.type = 'checkbox';
  box.name = spec.field;
  box.id = `field-${spec.field}`;
  box.addEventListener('change', () => onChange(spec.field, box.checked));
  label.append(box, el('span', null, spec.label));
  inputs[spec.field] = box;
  return label;
}

function presetField(presets, inputs, onChange) {
  const wrap = el('div', 'field field-preset is-wide');
  const label = el('label', null, 'Example');
  const select = el('select');
  select.id = 'field-preset';
  label.htmlFor = select.id;
  for (const p of [...presets, { id: 'custom', label: 'Custom' }]) {
    const o = el('option', null, p.label);
    o.value = p.id;
    select.append(o);
  }
  select.addEventListener('change', () => onChange('preset', select.value));
  wrap.append(label, select);
  inputs.preset = select;
  return wrap;
}

export function createControls(host, { presets, onChange }) {
  const root = el('form', 'controls-form');
  root.noValidate = true;
  root.addEventListener('submit', (e) => e.preventDefault());
  const inputs = {};
  const messages = {};
  const grid = el('div', 'field-grid');
  grid.append(presetField(presets, inputs, onChange));
  for (const spec of TEXT_FIELDS) grid.append(textField(spec, inputs, messages, onChange));
  const switches = el('div', 'switches');
  for (const spec of SWITCHES) switches.append(switchField(spec, inputs, onChange));
  const engineError = el('p', 'engine-error');
  engineError.setAttribute('role', 'alert');
  root.append(grid, switches, engineError);
  host.append(root);
  return {
    update({ form, errors, engineError: message, tokenCount }) {
      for (const [field, input] of Object.entries(inputs)) {
        if (input.type === 'checkbox') input.checked = Boolean(form[field]);
        else if (input.value !== String(form[field] ?? '')) input.value = String(form[field] ?? '');
      }
      for (const [field, msg] of Object.entries(messages)) {
        msg.textContent = errors[field] ?? '';
        inputs[field].setAttribute('aria-invalid', String(Boolean(errors[field])));
      }
      inputs.tokens.closest('.field').querySelector('label').textContent = `Tokens (T = ${tokenCount})`;
      engineError.textContent = message ? `The engine rejected this configuration: ${message}` : '';
    },
    destroy() {
      root.remove();
    },
  };
}
