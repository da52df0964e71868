// A heatmap row's numbers and fills as strips laid over its cells, not as each cell's text and
// colour. The cells (td.hm-cell) stay empty: they keep the grid's roles, focus, highlights and
// number (aria-label), and what they show as td.shownCell; the row's first cell holds
//   - a fills strip: a canvas of one pixel a cell, stretched under the cells with hard edges
//     (and under it a strip of the mask's hatching, which shows where a pixel is clear);
//   - a text strip: the row's numbers as one line of fields of equal characters, above them.
// Why: a new trace rewrote 512 cells' text and colour at T = 16, and each cell's new text made
// the table lay out again (~7 ms a frame); a row's strips change no cell's size.
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

// The fills as a canvas one pixel a cell, stretched over the row without smoothing (heatmap.css):
// pixel c is a value's colour, a masked weight's flat fill, or for a logit the mask hid (−∞)
// clear, over the hatching strip beneath. Drawn only when a pixel changed. (A gradient of hard
// bands cost its strip a CSS parse and a style recalculation on each new trace.)
// A pixel as one word of a Uint32Array over RGBA bytes: A B G R from the top (little-endian, as
// every platform a browser runs on).
const pixel = (rgb) => (0xff000000 | ((rgb & 0xff) << 16) | (rgb & 0xff00) | (rgb >> 16)) >>> 0;

function paintFills(strips, cells) {
  const n = cells.length;
  if (n === 0) return; // no pixels (an ImageData needs one)
  if (strips.words?.length !== n) {
    // A new size clears the canvas: every pixel clear, as the new words say.
    strips.fills.width = n;
    strips.fills.height = 1;
    strips.pixels = new ImageData(n, 1);
    strips.words = new Uint32Array(strips.pixels.data.buffer);
  }
  let changed = false;
  for (let c = 0; c < n; c += 1) {
    const word = cells[c].kind === 'neg-inf' ? 0 : pixel(cells[c].rgb);
    if (strips.words[c] !== word) {
      strips.words[c] = word;
      changed = true;
    }
  }
  if (changed) strips.fills.getContext('2d').putImageData(strips.pixels, 0, 0);
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

/** The strips of a row, empty until paintStrips: → { hatch, fills, text, pixels, words } (the
 *  elements and the fills' pixels). */
export function makeStrips() {
  const strips = { hatch: el('span', 'hm-hatch'), fills: el('canvas', 'hm-fills'), text: el('span', 'hm-text') };
  // What the strips show, each cell's aria-label says.
  for (const strip of [strips.hatch, strips.fills, strips.text]) strip.setAttribute('aria-hidden', 'true');
  return Object.assign(strips, { pixels: null, words: null });
}

/** Draws one row's cells into its strips, writing only what changed. */
export function paintStrips(strips, cells, chars) {
  paintFills(strips, cells);
  paintText(strips.text, cells, chars);
}

/** A cell's number, for assistive technology, on its empty td (an attribute no style reads: a
 *  new class or title restyled every cell; the strips draw each kind), and the cell it shows as
 *  td.shownCell ({ text, full, kind, … }). Its full precision is no attribute: 512 more a trace
 *  cost 0.6 ms an edit; heatmap.js shows it for the cell under the pointer or the focus. */
export function markCell(td, cell) {
  const was = td.shownCell ?? {};
  td.shownCell = cell;
  if (was.text !== cell.text) td.setAttribute('aria-label', cell.text);
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
