// builder.html: a lecturer's choice of chapters, example, controls and quiz, the live stepper it
// makes, the snippets that embed it (the element's and embed.html's iframe), written by the same
// functions as the export menu's snippet (state/snippet.js), and the SCORM 1.2 package of that
// choice, zipped here from the built files as npm run package zips them (lms/scorm-package.js).
// The element's snippet can carry its first stage (issue 36): drawn here by the element itself,
// out of sight, in the light and in the dark scheme, and serialized as the build prerenders
// embed.html's (element/prerender.js).

import { zipSync } from 'fflate';
import './element/define.js';
import { sharedEngine } from './element/assets.js';
import { formulaFaces, prerenderRules, sameButColours, serializeStepper, shareClasses } from './element/prerender.js';
import { CHAPTERS, chapterById } from './model/chapters.js';
import { presetsOf } from './model/presets.js';
import { FILE_LIST, packageOf } from './lms/scorm-package.js';
import { KATEX_SHEET, builderAttributes, elementSnippet, fallbackSnippet, iframeSnippet } from './state/snippet.js';
import { el } from './views/dom.js';

const $ = (id) => document.getElementById(id);
const QUIZ = { off: false, on: true, required: 'required' };
const preview = document.createElement('attention-stepper');

// The ticked chapters, in the order they were ticked: the tabs' order.
let ticked = [];
const chosenChapters = () => ticked;
function tick(box) {
  ticked = ticked.filter((id) => id !== box.value);
  if (box.checked) ticked.push(box.value);
}

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

const nextFrame = () => new Promise((done) => requestAnimationFrame(done));
// A stylesheet link once its sheet is in (or failed: then its rules are missing either way).
const loaded = (link) =>
  link.sheet ? null : new Promise((done) => ['load', 'error'].forEach((e) => link.addEventListener(e, done)));

// The sheets a fallback needs: the stepper's and KaTeX's ({ stepper, katex }), beside builder.html.
// Fetched once.
let sheets = null;
function fallbackSheets() {
  const text = (file) => fetch(file).then((r) => (r.ok ? r.text() : Promise.reject(new Error(`${file}: ${r.status}`))));
  sheets ??= Promise.all([text('attention-stepper.css'), text(KATEX_SHEET)]).then(([stepper, katex]) => ({
    stepper,
    katex,
  }));
  sheets.catch(() => (sheets = null)); // tried again at the next change
  return sheets;
}

// The element of these attributes drawn in one theme, whole (the engine's rest, the later script
// and KaTeX in), serialized, with the KaTeX font files its formulas use (katex: KaTeX's sheet).
async function drawn(attrs, theme, katex) {
  const element = document.createElement('attention-stepper');
  for (const [name, value] of attrs) element.setAttribute(name, value ?? '');
  element.setAttribute('theme', theme);
  $('builder-drawing').append(element);
  try {
    while (element.dataset.ready !== 'true') {
      if (element.dataset.error === 'true') throw new Error('the element refused these attributes');
      await nextFrame();
    }
    // Its sheets in, so that the formula's faces are the ones its fonts are set in.
    await Promise.all([...element.shadowRoot.querySelectorAll('link[rel="stylesheet"]')].map(loaded));
    await nextFrame();
    await nextFrame();
    const root = element.shadowRoot.querySelector('.as-root');
    return { ...serializeStepper(root, true), fonts: formulaFaces(root, katex) };
  } finally {
    element.remove();
  }
}

// The first stage of these attributes as a snippet's fallback (state/snippet.js): { html, css,
// fonts }, or null when the two schemes draw more than colours apart. Its <style> holds the
// stepper's sheet, KaTeX's rules without its font faces (which count only in the document) and
// the drawing's own rules.
async function fallbackOf(attrs) {
  const { rest, typesetter } = await sharedEngine();
  const [{ stepper, katex }] = await Promise.all([fallbackSheets(), rest(), typesetter.load()]);
  const light = await drawn(attrs, 'light', katex);
  const dark = await drawn(attrs, 'dark', katex);
  if (!sameButColours(light, dark)) return null;
  const [shared, sharedDark] = shareClasses(light, dark);
  const rules = prerenderRules("the element's first stage, drawn by builder.html", shared, sharedDark);
  // A face's url() is relative to KaTeX's sheet: as a path in dist.
  const fonts = light.fonts.map((url) => new URL(url, `https://dist.invalid/${KATEX_SHEET}`).pathname.slice(1));
  return { html: shared.html, css: stepper + katex.replace(/@font-face\s*\{[^}]*\}/g, '') + rules, fonts };
}

// One drawing at a time, of the latest choice only; each choice's drawing kept (the base changes
// only the snippet's links).
let drawing = 0; // the latest choice's number
let queue = Promise.resolve();
const fallbacks = new Map(); // the attributes, as JSON → their fallback or null

function showElementSnippet(attrs, base) {
  const field = $('builder-element');
  const status = $('builder-fallback-status');
  field.value = elementSnippet(attrs);
  const mine = ++drawing;
  if (!$('builder-fallback').checked) {
    status.textContent = '';
    return;
  }
  status.textContent = 'Drawing the first stage into the snippet\u2026';
  const key = JSON.stringify(attrs);
  queue = queue.then(async () => {
    if (mine !== drawing) return; // a newer choice waits
    try {
      if (!fallbacks.has(key)) fallbacks.set(key, await fallbackOf(attrs));
    } catch (error) {
      if (mine === drawing) status.textContent = `The first stage could not be drawn in (${error.message}).`;
      return;
    }
    if (mine !== drawing) return;
    const fallback = fallbacks.get(key);
    if (!fallback) {
      status.textContent = 'This stage cannot be drawn in: the snippet is the element alone.';
      return;
    }
    field.value = fallbackSnippet(attrs, base, fallback);
    const kb = (new TextEncoder().encode(field.value).length / 1024).toFixed(0);
    status.textContent =
      `The snippet carries its first stage (${kb} KB), shown before the engine arrives; ` +
      'a page that refuses inline styles shows the live stage only.';
  });
}

function show() {
  const attrs = builderAttributes(choice());
  for (const name of [...preview.getAttributeNames()]) preview.removeAttribute(name);
  for (const [name, value] of attrs) preview.setAttribute(name, value ?? '');
  const base = $('builder-base').value.trim();
  showElementSnippet(attrs, base);
  $('builder-iframe').value = iframeSnippet(attrs, base);
  // With its first stage drawn in, the element's script waits for the page's first paint (the
  // first script of index.html and embed.html, web/preload.js, adds it then), so that it does not
  // share the phone's bandwidth with what that paint needs.
  $('builder-script').textContent = $('builder-fallback').checked
    ? `<script defer src="${base}attention-stepper-preload.js" data-then="attention-stepper.classic.js"></script>`
    : `<script defer src="${base}attention-stepper.classic.js"></script>`;
}

async function copy(id) {
  const field = $(id);
  field.select();
  await navigator.clipboard?.writeText(field.value).catch(() => {}); // selected either way
}

// The built page's files that a package ships (dist/scorm-files.json), fetched once.
let built = null;
function builtFiles() {
  built ??= fetch(FILE_LIST)
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${FILE_LIST}: ${r.status} ${r.statusText}`))))
    .then((list) => Promise.all(list.map(fetchBytes)))
    .then(Object.fromEntries);
  built.catch(() => (built = null)); // a failed fetch is tried again at the next click
  return built;
}
async function fetchBytes(file) {
  const r = await fetch(file);
  if (!r.ok) throw new Error(`${file}: ${r.status} ${r.statusText}`);
  return [file, new Uint8Array(await r.arrayBuffer())];
}

// The SCORM package of the choice (the quiz is always required in a package: its score is the grade).
async function downloadPackage() {
  const status = $('builder-package-status');
  const button = $('builder-package');
  const { chapters, preset, controls } = choice();
  const field = $('builder-mastery');
  const mastery = field.valueAsNumber;
  if (!field.checkValidity() || !Number.isInteger(mastery)) {
    status.textContent = `No package: the mastery score is a whole number from 0 to 100, not "${field.value}".`;
    return;
  }
  button.disabled = true;
  status.textContent = 'Packing the stepper…';
  try {
    const pkg = packageOf(await builtFiles(), { chapters, preset, controls, mastery });
    const zip = zipSync(pkg.files, { level: 6 });
    const link = el('a');
    link.href = URL.createObjectURL(new Blob([zip], { type: 'application/zip' }));
    link.download = pkg.name;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    const files = Object.keys(pkg.files).length;
    status.textContent = `${pkg.name}: ${(zip.length / 2 ** 20).toFixed(1)} MB, ${files} files, mastery ${mastery}.`;
  } catch (error) {
    status.textContent = `No package: ${error.message}.`;
  } finally {
    button.disabled = false;
  }
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
    if (e.target.type === 'checkbox') {
      tick(e.target);
      fillPresets(catalog);
    }
    show();
  });
  $('builder-base').addEventListener('input', show);
  $('builder-package').addEventListener('click', downloadPackage);
  for (const button of document.querySelectorAll('.builder-copy'))
    button.addEventListener('click', () => copy(button.dataset.copy));
  show();
  $('builder-preview').append(preview);
  document.body.dataset.ready = 'true';
}

start();
