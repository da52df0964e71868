// The configuration form: the chapter's example picker, then its fields from the field table
// (text fields, then switches), each with an inline message. Rebuilt when the chapter changes.
// update({ chapter, fields, presets, form, errors, engineError, counts: { field: { symbol, n } } });
// onChange(field, value).

import { el, setText } from './dom.js';

function messageFor(field) {
  const p = el('p', 'field-error');
  p.id = `error-${field}`;
  return p;
}

function textField(f, parts, onChange) {
  const wrap = el('div', `field field-${f.field}${f.wide ? ' is-wide' : ''}`);
  const label = el('label', null, f.label);
  const input = el('input');
  input.id = `field-${f.field}`;
  input.name = f.field;
  input.type = 'text';
  input.autocomplete = 'off';
  input.spellcheck = false;
  if (f.type !== 'tokens' && f.type !== 'lengths') input.inputMode = 'numeric';
  if (f.blank) input.placeholder = f.blank;
  label.htmlFor = input.id;
  const msg = messageFor(f.field);
  input.setAttribute('aria-describedby', msg.id);
  input.addEventListener('input', () => onChange(f.field, input.value));
  wrap.append(label, input);
  if (f.hint) wrap.append(el('p', 'field-hint', f.hint));
  wrap.append(msg);
  parts.inputs[f.field] = input;
  parts.labels[f.field] = label;
  parts.messages[f.field] = msg;
  return wrap;
}

function switchField(f, parts, onChange) {
  const label = el('label', 'switch');
  const box = el('input');
  box.type = 'checkbox';
  box.name = f.field;
  box.id = `field-${f.field}`;
  box.addEventListener('change', () => onChange(f.field, box.checked));
  label.append(box, el('span', null, f.label));
  parts.inputs[f.field] = box;
  return label;
}

// A field of a few named choices (RoPE's pairing): a select, its options the field's choices.
function choiceField(f, parts, onChange) {
  const wrap = el('div', `field field-${f.field}`);
  const label = el('label', null, f.label);
  const select = el('select');
  select.id = `field-${f.field}`;
  select.name = f.field;
  label.htmlFor = select.id;
  for (const choice of f.choices) {
    const o = el('option', null, choice);
    o.value = choice;
    select.append(o);
  }
  select.addEventListener('change', () => onChange(f.field, select.value));
  wrap.append(label, select);
  if (f.hint) wrap.append(el('p', 'field-hint', f.hint));
  parts.inputs[f.field] = select;
  parts.labels[f.field] = label;
  return wrap;
}

function presetField(presets, parts, onChange) {
  const wrap = el('div', 'field field-preset is-wide');
  const label = el('label', null, 'Example');
  const select = el('select');
  select.id = 'field-preset';
  label.htmlFor = select.id;
  for (const p of [...presets, { id: 'custom', title: 'Custom' }]) {
    const o = el('option', null, p.title);
    o.value = p.id;
    select.append(o);
  }
  select.addEventListener('change', () => onChange('preset', select.value));
  wrap.append(label, select);
  parts.inputs.preset = select;
  return wrap;
}

// The form's inputs for one chapter: { inputs, labels, messages } by field.
function build(root, view, onChange) {
  const parts = { inputs: {}, labels: {}, messages: {} };
  const grid = el('div', 'field-grid');
  grid.append(presetField(view.presets, parts, onChange));
  const switches = el('div', 'switches');
  for (const f of view.fields) {
    if (f.hidden) continue;
    if (f.type === 'flag') switches.append(switchField(f, parts, onChange));
    else if (f.type === 'choice') grid.append(choiceField(f, parts, onChange));
    else grid.append(textField(f, parts, onChange));
  }
  root.prepend(grid, switches);
  return parts;
}

export function createControls(host, { onChange }) {
  const root = el('form', 'controls-form');
  root.noValidate = true;
  root.addEventListener('submit', (e) => e.preventDefault());
  const engineError = el('p', 'engine-error');
  engineError.setAttribute('role', 'alert');
  // Messages with no field to stand under: hidden fields' (pruned heads, normals skipped), and
  // what a link held that the page could not use (form.linkNotes, from state/url-hash.js).
  const otherErrors = el('p', 'field-error form-error');
  otherErrors.setAttribute('role', 'alert');
  const linkNotes = el('ul', 'link-notes');
  linkNotes.setAttribute('aria-label', 'What the link held that this page could not use');
  // A configuration computing off the main thread, said here too, where it was changed (the page's
  // own status, above the stage, is the one read out); below the fields, which it must not move.
  const busy = el('p', 'form-busy', 'Computing\u2026 the stage shows the previous configuration until it is done.');
  busy.setAttribute('aria-hidden', 'true');
  root.append(busy, engineError, otherErrors, linkNotes);
  host.append(root);
  let chapter = null;
  let parts = null;
  return {
    update(view) {
      if (view.chapter !== chapter) {
        while (root.firstChild !== busy) root.firstChild.remove();
        parts = build(root, view, onChange);
        chapter = view.chapter;
      }
      busy.hidden = !view.computing;
      const { form, errors } = view;
      for (const [field, input] of Object.entries(parts.inputs)) {
        if (input.type === 'checkbox') input.checked = Boolean(form[field]);
        else if (input.value !== String(form[field] ?? '')) input.value = String(form[field] ?? '');
      }
      for (const [field, msg] of Object.entries(parts.messages)) {
        setText(msg, errors[field] ?? '');
        parts.inputs[field].setAttribute('aria-invalid', String(Boolean(errors[field])));
      }
      for (const [field, count] of Object.entries(view.counts)) {
        const label = parts.labels[field];
        if (label) setText(label, `${view.fields.find((f) => f.field === field).label} (${count.symbol} = ${count.n})`);
      }
      setText(engineError, view.engineError ? `The engine rejected this configuration: ${view.engineError}` : '');
      setText(
        otherErrors,
        Object.entries(errors)
          .filter(([field]) => !parts.messages[field])
          .map(([, m]) => m)
          .join(' '),
      );
      linkNotes.replaceChildren(...(form.linkNotes ?? []).map((note) => el('li', 'field-error', note)));
      linkNotes.hidden = !form.linkNotes;
    },
    destroy() {
      root.remove();
    },
  };
}
