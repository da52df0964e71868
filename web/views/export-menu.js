// "Export" beside the stage title: a disclosure button (shortcut x) opening a panel with one
// download button per format, the link to this stage and an <attention-stepper> snippet, each
// in a read-only field with a Copy button (the field also shows the text where the clipboard
// is not available). update({ formats, link(), snippet(), save(format) → Promise<filename> | filename }):
// the link and the snippet are asked for while the panel is open, not on every update.

import { el } from './dom.js';

export const EXPORT_KEY = 'x';
const TYPING = 'input, select, textarea, [contenteditable="true"]';

function copyField(id, label, multiline) {
  const box = el('div', 'export-copy');
  const field = el(multiline ? 'textarea' : 'input', 'export-field');
  field.id = id;
  field.readOnly = true;
  field.spellcheck = false;
  if (multiline) field.rows = 3;
  const button = el('button', 'export-copy-button', label);
  button.type = 'button';
  button.setAttribute('aria-describedby', id);
  const text = el('label', 'export-label', multiline ? 'As an element' : 'Link to this stage');
  text.htmlFor = id;
  box.append(text, field, button);
  return { box, field, button };
}

// The clipboard API where the page may use it, else the selection and the copy command; if
// both are refused the field still shows the text, selected, to copy by hand.
async function copy(field) {
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
    return 'Copied.';
  } catch {
    return document.execCommand?.('copy')
      ? 'Copied.'
      : 'The clipboard is not available here: the text is selected, press Ctrl+C (\u2318C) to copy it.';
  }
}

function buildPanel(state) {
  const panel = el('div', 'export-panel');
  panel.id = 'export-panel';
  panel.hidden = true;
  panel.setAttribute('role', 'group');
  panel.setAttribute('aria-label', 'Export this stage');
  state.files = el('div', 'export-files');
  state.files.setAttribute('role', 'group');
  state.files.setAttribute('aria-label', 'Download this stage as');
  state.link = copyField('export-link', 'Copy link', false);
  state.snippet = copyField('export-snippet', 'Copy snippet', true);
  state.status = el('p', 'export-status');
  state.status.setAttribute('role', 'status');
  panel.append(
    el('p', 'export-heading', 'Download this stage'),
    state.files,
    state.link.box,
    state.snippet.box,
    state.status,
  );
  return panel;
}

// One button a format, made once and renamed in place (the focus stays on a button while ←/→
// move the stepper underneath it).
function fileButtons(state, formats) {
  if (state.files.children.length !== formats.length) {
    state.files.textContent = '';
    for (const f of formats) {
      const b = el('button', 'export-file', f.label);
      b.type = 'button';
      b.dataset.format = f.id;
      b.addEventListener('click', () => state.onSave(f.id));
      state.files.append(b);
    }
  }
  formats.forEach((f, i) => {
    state.files.children[i].title = `${f.filename}: ${f.hint}`;
  });
}

function buildToggle() {
  const toggle = el('button', 'export-toggle');
  toggle.type = 'button';
  toggle.append('Export ', el('kbd', null, EXPORT_KEY));
  toggle.setAttribute('aria-expanded', 'false');
  toggle.setAttribute('aria-controls', 'export-panel');
  toggle.setAttribute('aria-keyshortcuts', EXPORT_KEY);
  toggle.title = `Export this stage (${EXPORT_KEY})`;
  return toggle;
}

// x opens (or closes) the menu wherever the focus is in this stepper, except while typing;
// Escape closes it and gives the focus back to the button; a press elsewhere closes it.
// Listens on the stepper's root node: the document, or the element's shadow root.
function listen(target, { root, toggle, panel, open }) {
  const onKey = (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'Escape' && !panel.hidden) {
      open(false);
      toggle.focus();
    } else if (event.key === EXPORT_KEY && !event.target.closest?.(TYPING)) {
      event.preventDefault();
      open(panel.hidden, true);
    }
  };
  const onPointer = (event) => {
    if (!panel.hidden && !event.composedPath().includes(root)) open(false);
  };
  target.addEventListener('keydown', onKey);
  target.addEventListener('pointerdown', onPointer);
  return () => {
    target.removeEventListener('keydown', onKey);
    target.removeEventListener('pointerdown', onPointer);
  };
}

export function createExportMenu(host) {
  const root = el('div', 'export');
  root.setAttribute('aria-live', 'off'); // the stage heading around it is a live region: not this
  const toggle = buildToggle();
  const state = { data: null };
  const panel = buildPanel(state);
  root.append(toggle, panel);
  host.append(root);
  const fillCopies = () => {
    state.link.field.value = state.data.link();
    state.snippet.field.value = state.data.snippet();
  };
  const open = (yes, focus = false) => {
    if (yes) fillCopies();
    panel.hidden = !yes;
    toggle.setAttribute('aria-expanded', String(yes));
    if (yes && focus) state.files.querySelector('button')?.focus();
    if (!yes) state.status.textContent = '';
  };
  state.onSave = async (format) => {
    state.status.textContent = 'Preparing\u2026';
    try {
      state.status.textContent = `Saved ${await state.data.save(format)}.`;
    } catch (error) {
      state.status.textContent = `Could not export: ${error.message}`;
    }
  };
  for (const f of [state.link, state.snippet])
    f.button.addEventListener('click', async () => {
      state.status.textContent = await copy(f.field);
    });
  toggle.addEventListener('click', () => open(panel.hidden, false));
  const unlisten = listen(host.getRootNode(), { root, toggle, panel, open });
  return {
    update(data) {
      state.data = data;
      fileButtons(state, data.formats);
      if (!panel.hidden) fillCopies();
    },
    destroy() {
      unlisten();
      root.remove();
    },
  };
}
