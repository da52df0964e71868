// URL hash ↔ state, from the field table (model/fields.js), so a link restores the exact view:
//   #chapter=gqa&preset=gqa-4-2&stage=weights&head=2
//   #chapter=cross&tokens=le+chat&keys=the+cat+sat&dModel=8&heads=2&…&stage=scores&head=1&cell=1.2

import { chapterById, DEFAULT_CHAPTER } from '../model/chapters.js';
import { fieldsOf, readHashValue, writeHashValue } from '../model/fields.js';
import { presetById } from '../model/presets.js';
import { stageById } from '../model/stage-table.js';
import { splitTokens } from '../model/tokens.js';
import { presetForm } from './form.js';

const TOKEN_FIELDS = ['tokens', 'keyTokens'];

// The chapter asked for, else the preset's, else the default.
function chapterOf(params, preset) {
  const asked = chapterById(params.get('chapter'));
  if (asked) return asked.id;
  return preset ? preset.chapter : DEFAULT_CHAPTER;
}

function readForm(catalog, params) {
  const asked = presetById(catalog, params.get('preset'));
  const chapterId = chapterOf(params, asked);
  const preset = asked && asked.chapter === chapterId ? asked : null;
  const fields = fieldsOf(chapterById(chapterId));
  const custom = !preset && fields.some((f) => !TOKEN_FIELDS.includes(f.field) && params.has(f.hash));
  const form = presetForm(catalog, preset?.id, chapterId);
  if (custom) form.preset = 'custom';
  for (const f of fields) {
    if (params.has(f.hash) && (!preset || TOKEN_FIELDS.includes(f.field))) form[f.field] = readHashValue(f, params.get(f.hash));
  }
  const counts = (p) => [p.tokens.length, (p.keyTokens ?? []).length].join();
  if (preset && counts(preset) !== counts({ tokens: splitTokens(form.tokens), keyTokens: splitTokens(form.keyTokens) })) form.preset = 'custom';
  return form;
}

function readCell(s) {
  const m = /^(\d+)\.(\d+)$/.exec(s ?? '');
  return m ? { row: Number(m[1]), col: Number(m[2]) } : null;
}

const wholeOr = (text, fallback) => (/^\d+$/.test(text ?? '') ? Number(text) : fallback);

// → { form, stage, head, time, selection, showContributions, quiz }; time: the decode step or tile.
export function stateFromHash(catalog, hash) {
  const params = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  return {
    form: readForm(catalog, params),
    stage: stageById(params.get('stage')) ? params.get('stage') : null,
    head: wholeOr(params.get('head'), 0),
    time: wholeOr(params.get('t'), null),
    selection: readCell(params.get('cell')),
    showContributions: params.get('sum') === '1',
    quiz: params.get('quiz') === '1',
  };
}

export function hashFromState(catalog, { form, stage, head, time, selection, showContributions, quiz }) {
  const params = new URLSearchParams();
  params.set('chapter', form.chapter);
  const preset = presetById(catalog, form.preset);
  const fields = fieldsOf(chapterById(form.chapter));
  if (preset) {
    params.set('preset', preset.id);
    const shown = presetForm(catalog, preset.id);
    for (const f of fields.filter((x) => TOKEN_FIELDS.includes(x.field))) {
      if (form[f.field] !== shown[f.field]) params.set(f.hash, form[f.field]);
    }
  } else {
    for (const f of fields) {
      if (!(f.hidden && Number(form[f.field]) === 0)) params.set(f.hash, writeHashValue(f, form[f.field]));
    }
  }
  params.set('stage', stage);
  if (head !== null && head !== undefined) params.set('head', String(head));
  if (time !== null && time !== undefined) params.set('t', String(time));
  if (selection) params.set('cell', `${selection.row}.${selection.col}`);
  if (showContributions) params.set('sum', '1');
  if (quiz) params.set('quiz', '1');
  return `#${params.toString()}`;
}
