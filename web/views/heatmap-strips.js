// A heatmap row's numbers as a strip laid over its cells, not as each cell's text. The cells
// (td.hm-cell) stay empty: they keep the grid's roles, focus, highlights and number (aria-label),
// their fill as their background colour, and what they show as td.shownCell; the row's first cell
// holds
//   - a hatch strip under the cells, which shows where a cell has no fill (a logit the mask hid);
//   - a text strip: the row's numbers as one line of fields of equal characters, above them.
// Why: a new trace rewrote 512 cells' text at T = 16, and each cell's new text made the table lay
// out again (~7 ms a frame); a row's text strip changes no cell's size, and a new background
// colour restyles and repaints its cell only. (A canvas of one pixel a cell under each row drew
// the fills before: each was a composited layer of its own, whose new pixels cost 3–4 ms of a
// step's commit.)
// A cell is as wide as its field, --pitch = chars · 1ch of the monospace font (heatmap.css): the
// fields fall on the cells whatever that font's width. (Tab stops did too, at twice the cost.)

import { el } from './dom.js';

// A cell's width in characters: its matrix's longest number (at least this), a space each side.
const MIN_CHARS = 6;

/** The characters a field of a matrix with these cells holds. */
export function fieldChars(cells) {
  let n = MIN_CHARS;
  for (const cell of cells) n = Math.max(n, cell.text.length);
  return n + 2;
}

const PADS = []; // n → n spaces, made once
const spaces = (n) => (PADS[n] ??= ' '.repeat(n));

// Values right-aligned before a space; −∞ and masked zeros centred.
function field(cell, chars) {
  const spare = chars - cell.text.length;
  if (cell.kind === 'value') return spaces(spare - 1) + cell.text + ' ';
  const left = Math.floor(spare / 2);
  return spaces(left) + cell.text + spaces(spare - left);
}

// Cells side by side that look alike share a run (a span): a value's ink, or a masked kind.
const look = (cell) => (cell.kind === 'value' ? cell.ink : cell.kind);

// The run-th span of the text strip, made when the row has more runs than before.
function runSpan(strip, run) {
  if (run < strip.children.length) return strip.children[run];
  const span = el('span');
  span.append(''); // its text node, written by drawRun
  strip.append(span);
  return span;
}

// A run's text, and its ink or masked kind's class when its look changed.
function drawRun(span, cell, text) {
  if (span.look !== look(cell)) {
    span.look = look(cell);
    span.className = cell.kind === 'value' ? '' : `hm-run is-${cell.kind}`;
    span.style.color = cell.kind === 'value' ? (cell.ink ?? '') : '';
  }
  if (span.firstChild.data !== text) span.firstChild.data = text;
}

// The row's numbers as runs of fields, into the spans it has (new runs only when it needs more):
// a new trace changes their text and, where a run's look changed, its ink, and adds no nodes
// when its runs are as many as before.
function paintText(strip, cells, chars) {
  let runs = 0;
  let first = cells[0];
  let text = '';
  for (const cell of cells) {
    if (look(cell) !== look(first)) {
      drawRun(runSpan(strip, runs), first, text);
      runs += 1;
      first = cell;
      text = '';
    }
    text += field(cell, chars);
  }
  if (cells.length) {
    drawRun(runSpan(strip, runs), first, text);
    runs += 1;
  }
  while (strip.children.length > runs) strip.lastChild.remove();
}

// --pitch as a length computed where it is set, on the table in the cells' font: headers in
// other fonts then inherit the same pixels. Registered from script as well as by heatmap.css's
// @property rule, which a stylesheet in the element's shadow root cannot make.
let pitchRegistered = false;
export function registerPitch() {
  if (pitchRegistered || typeof CSS === 'undefined' || !CSS.registerProperty) return;
  pitchRegistered = true;
  try {
    CSS.registerProperty({ name: '--pitch', syntax: '<length>', inherits: true, initialValue: '0px' });
  } catch {
    // Registered already (another copy of this module on the page): the same definition.
  }
}

/** The strips of a row, empty until paintStrips: → { hatch, text }. */
export function makeStrips() {
  const strips = { hatch: el('span', 'hm-hatch'), text: el('span', 'hm-text') };
  // What the strips show, each cell's aria-label says.
  for (const strip of [strips.hatch, strips.text]) strip.setAttribute('aria-hidden', 'true');
  return strips;
}

/** Draws one row's numbers into its text strip, writing only what changed. */
export function paintStrips(strips, cells, chars) {
  paintText(strips.text, cells, chars);
}

/** A cell's number, for assistive technology, on its empty td (an attribute no style reads: a
 *  new class or title restyled every cell; the strips draw each kind), its fill (none for −∞:
 *  the hatch beneath shows), and the cell it shows as td.shownCell ({ text, full, kind, … }). Its
 *  full precision is no attribute: 512 more a trace cost 0.6 ms an edit; heatmap.js shows it for
 *  the cell under the pointer or the focus. */
export function markCell(td, cell) {
  const was = td.shownCell ?? {};
  td.shownCell = cell;
  if (was.text !== cell.text) td.setAttribute('aria-label', cell.text);
  if (was.fill !== cell.fill) td.style.backgroundColor = cell.fill ?? '';
}

/** Selects the number a cell shows, as a double-click on it would if the cell held it (it is
 *  empty: its number is a field of the row's text strip, which takes no pointer events). */
export function selectNumber(td) {
  const strip = td.parentNode.querySelector('.hm-text');
  if (!strip) return;
  const chars = Number(td.closest('table').style.getPropertyValue('--chars'));
  let offset = Number(td.dataset.c) * chars;
  for (const run of strip.children) {
    const text = run.firstChild;
    if (offset < text.data.length) {
      const field = text.data.slice(offset, offset + chars);
      const start = offset + field.length - field.trimStart().length;
      const range = document.createRange();
      range.setStart(text, start);
      range.setEnd(text, start + field.trim().length);
      window.getSelection().removeAllRanges();
      window.getSelection().addRange(range);
      return;
    }
    offset -= text.data.length;
  }
}
