// builder.html: a lecturer's choice of chapters, example, controls and quiz, the live stepper it
// makes, and the snippets that embed it (the element's and embed.html's iframe), written by the
// same functions as the export menu's snippet (state/snippet.js).

import './element/define.js';
import { sharedEngine } from './element/assets.js';
import { CHAPTERS, chapterById } from './model/chapters.js';
import { presetsOf } from './model/presets.js';
import { builderAttributes, elementSnippet, iframeSnippet } from './state/snippet.js';
import { el } from './views/dom.js';

const $ = (id) => document.getElementById(id);
const QUIZ = { off: false, on: true, required: 'required' };
const preview = document.createElement('attention-stepper');

// The ticked chapters, in the tabs' order.
const chosenChapters = () => CHAPTERS.filter((c) => $(`builder-chapter-${c.id}`).checked).map((c) => c.id);

// The first chosen chapter's examples (every chapter's first when none is ticked).
function fillPresets(catalog) {
  const select = $('builder-preset');
  const chapter = chosenChapters()[0] ?? CHAPTERS[0].id;
  const kept = select.value;
  select.replaceChildren(el('option', null, `${chapterById(chapter).title}: its first example`));
  select.firstChild.value = '';
  for (const p of presetsOf(catalog, chapter)) {
    const option = el('option', null, p.title);
    option.value = p.id;
    select.append(option);
  }
  select.value = [...select.options].some((o) => o.value === kept) ? kept : '';
}

function choice() {
  return {
    chapters: chosenChapters(),
    preset: $('builder-preset').value || null,
    controls: $('builder-controls').value,
    quiz: QUIZ[$('builder-quiz').value],
  };
}

function show() {
  const attrs = builderAttributes(choice());
  for (const name of [...preview.getAttributeNames()]) preview.removeAttribute(name);
  for (const [name, value] of attrs) preview.setAttribute(name, value ?? '');
  const base = $('builder-base').value.trim();
  $('builder-element').value = elementSnippet(attrs);
  $('builder-iframe').value = iframeSnippet(attrs, base);
  $('builder-script').textContent = `<script defer src="${base}attention-stepper.classic.js"></script>`;
}

async function copy(id) {
  const field = $(id);
  field.select();
  await navigator.clipboard?.writeText(field.value).catch(() => {}); // selected either way
}

async function start() {
  const { catalog } = await sharedEngine();
  const box = $('builder-chapters');
  for (const c of CHAPTERS) {
    const label = el('label');
    const input = el('input');
    Object.assign(input, { type: 'checkbox', id: `builder-chapter-${c.id}`, value: c.id });
    label.append(input, ` ${c.title}`);
    box.append(label);
  }
  fillPresets(catalog);
  $('builder-form').addEventListener('change', (e) => {
    if (e.target.type === 'checkbox') fillPresets(catalog);
    show();
  });
  $('builder-base').addEventListener('input', show);
  for (const button of document.querySelectorAll('.builder-copy'))
    button.addEventListener('click', () => copy(button.dataset.copy));
  show();
  $('builder-preview').append(preview);
  document.body.dataset.ready = 'true';
}

start();
