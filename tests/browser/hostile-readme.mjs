// docs/bad-input.md's tables, generated from hostile-cases.mjs and, for models, checkpoints and
// training, from tests/wasm/messages.mjs's TRAINING_MESSAGES (hostile.test.mjs checks that
// docs/bad-input.md holds exactly these):
//   node tests/browser/hostile-readme.mjs           prints the table
//   node tests/browser/hostile-readme.mjs --write   puts it into docs/bad-input.md between the markers
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { fieldById } from '../../web/model/fields.js';
import { BUDGET_CASES } from '../wasm/budget-cases.mjs';
import { TRAINING_MESSAGES } from '../wasm/messages.mjs';
import { ALL_CASES, escaped } from './hostile-cases.mjs';

export const TABLE_DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'bad-input.md');
export const START = '<!-- bad-input table: node tests/browser/hostile-readme.mjs --write -->';
export const END = '<!-- end of the bad-input table -->';
export const TRAINING_START = '<!-- training table: node tests/browser/hostile-readme.mjs --write -->';
export const TRAINING_END = '<!-- end of the training table -->';
export const BUDGET_START = '<!-- budget table: node tests/browser/hostile-readme.mjs --write -->';
export const BUDGET_END = '<!-- end of the budget table -->';

// As the table shows it: escaped, a run of one character as c×n, of a pair as (ab)×n.
const shown = (text) =>
  escaped(text)
    .replace(/(.)\1{11,}/gu, (run, c) => `${c}×${Array.from(run).length}`)
    .replace(/(..)\1{11,}/gu, (run, pair) => `(${pair})×${run.length / pair.length}`);
const code = (text) => `\`${shown(text).replace(/\|/g, '\\|')}\``;
const prose = (text) =>
  shown(text).replace(/[&<>|]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '|': '\\|' })[c]);

// One line, however formatted: no trailing comma, no space inside brackets or parentheses.
const oneLine = (source) =>
  source
    .replace(/\s+/g, ' ')
    .replace(/([^,\s]),(\s*[\])}])/g, '$1$2')
    .replace(/([[(]) /g, '$1')
    .replace(/ ([\])])/g, '$1')
    .replace(/^\(e\) => e\./, '');

function inputOf(c) {
  if (c.call) return code(oneLine(String(c.call)));
  if (c.where === 'URL hash') {
    const changes = [
      ...Object.entries(c.set ?? {}).map(([k, v]) => `${k}=${v}`),
      ...Object.entries(c.add ?? {}).map(([k, v]) => `+${k}=${v}`),
    ];
    return `${c.base}: ${changes.map(code).join(' ')}`;
  }
  if (c.where === 'attribute')
    return Object.entries(c.set)
      .map(([k, v]) => code(`${k}="${v}"`))
      .join(' ');
  return `${fieldById(c.field).label} ← ${code(`"${c.value}"`)}`;
}

/** The table's markdown, one row a case. */
export function table() {
  const rows = ALL_CASES.map((c, i) => `| ${i + 1} | ${c.where} | ${inputOf(c)} | ${prose(c.message)} |`);
  return ['| # | where | input | message (… : the rest is elided here) |', '|---:|---|---|---|', ...rows].join('\n');
}

// run(spec) for a spec run and forward both refuse, its fields written as the source would.
const specCall = (spec) =>
  `run(${JSON.stringify(spec)
    .replace(/"(\w+)":/g, '$1: ')
    .replace(/,/g, ', ')}) and forward(…)`;

const inputOfCall = (call) => (call.spec ? specCall(call.spec) : oneLine(String(call)));

/** The training table's markdown: a row for each of TRAINING_MESSAGES (its title, call, message). */
export function trainingTable() {
  const rows = TRAINING_MESSAGES.map(
    ([title, call, message], i) => `| ${i + 1} | ${prose(title)} | ${code(inputOfCall(call))} | ${prose(message)} |`,
  );
  return ['| # | case | input | message (… : the rest is elided here) |', '|---:|---|---|---|', ...rows].join('\n');
}

/** The budget table's markdown: a row for each of BUDGET_CASES (the review's row, call, message). */
export function budgetTable() {
  const rows = BUDGET_CASES.map(
    ([row, call, message]) => `| ${row} | ${code(inputOfCall(call))} | ${prose(message)} |`,
  );
  return ['| review row | input | message (… : the rest is elided here) |', '|---:|---|---|', ...rows].join('\n');
}

/** docs/bad-input.md's text between a pair of markers (the bad-input table's by default), or null
 * without them. */
export function tableInReadme(text = readFileSync(TABLE_DOC, 'utf8'), start = START, end = END) {
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  return a < 0 || b < a ? null : text.slice(a + start.length, b).trim();
}

// text with what lies between start and end replaced by body.
const between = (text, start, end, body) => {
  if (tableInReadme(text, start, end) === null) throw new Error(`docs/bad-input.md has no ${start} … ${end} markers`);
  return text.slice(0, text.indexOf(start) + start.length) + `\n${body}\n` + text.slice(text.indexOf(end));
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--write')) console.log(`${table()}\n\n${trainingTable()}\n\n${budgetTable()}`);
  else {
    let text = between(readFileSync(TABLE_DOC, 'utf8'), START, END, table());
    text = between(text, TRAINING_START, TRAINING_END, trainingTable());
    writeFileSync(TABLE_DOC, between(text, BUDGET_START, BUDGET_END, budgetTable()));
  }
}
