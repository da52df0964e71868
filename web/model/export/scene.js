// A stage's figure (operands and result as cell grids joined by glyphs) → a scene: a list of
// rectangles, texts and gradient bars at fixed positions, drawn the same way by svg.js and by
// the canvas (views/scene-canvas.js), so the SVG and the PNG are one picture. It draws what the
// page's view data holds (cell texts, fills, inks, labels, captions, bands, totals, legends) and
// computes nothing from the numbers. Pure: no DOM, widths estimated (scene-text.js).

import { THEMES, dimColour } from '../../theme.js';
import { textWidth, clip } from './scene-text.js';

const PAD = 16;
const CELL_H = 23;
const GAP = 1;
const FONT = 12; // the heatmap's 12px
const HEADER_H = 20;
const BAND_H = 18;
const ROW_BAND_W = 20;
const CAPTION_H = 28;
const LEGEND_H = 24;
const UNIT_GAP = 14;
const LINE_GAP = 22;
const MAX_LINE = 1240;

const text = (x, y, s, size, fill, o = {}) => ({
  t: 'text',
  x,
  y,
  text: String(s),
  size,
  fill,
  font: o.font ?? 'sans',
  anchor: o.anchor ?? 'start',
  weight: o.weight ?? 400,
  italic: Boolean(o.italic),
  rotate: o.rotate ?? 0,
});
const rect = (x, y, w, h, fill, o = {}) => ({
  t: 'rect',
  x,
  y,
  w,
  h,
  fill,
  stroke: o.stroke ?? null,
  pattern: o.pattern ?? null,
});
const widest = (texts, size, font) => texts.reduce((m, s) => Math.max(m, textWidth(s, size, font)), 0);

// The legend's colours, read from the CSS gradient the view data carries.
export const rampStops = (gradient) => gradient.match(/#[0-9a-f]{6}/gi) ?? [];

function captionWidth(m) {
  const head = m.head === null || m.head === undefined ? 0 : textWidth(`head ${m.head}`, 13) + 18;
  const shape = m.captionTokens.reduce((w, t) => w + textWidth(t.kind === 'dim' ? t.value : t.text, 14, 'mono'), 0);
  return textWidth(m.label, 17, 'serif') + 10 + head + shape;
}

/** Sizes of one matrix block (caption, grid, legend). */
export function matrixMetrics(m) {
  const longest = m.cells.reduce((n, c) => Math.max(n, [...c.text].length), 1);
  const cellW = Math.max(47, Math.ceil(longest * FONT * 0.61 + 10));
  const rowFont = m.rowAxisIsTokens ? 'sans' : 'mono';
  const rowLabelW = Math.min(96, Math.ceil(widest(m.rowLabels, FONT, rowFont) + 12));
  const rowBandW = m.rowBands ? ROW_BAND_W : 0;
  const totalsW = m.totals
    ? Math.ceil(
        widest(
          m.totals.texts.map((t) => `\u03a3 = ${t}`),
          FONT,
          'mono',
        ) + 14,
      )
    : 0;
  const bandsH = m.colBands ? BAND_H + GAP : 0;
  const gridW = 2 + GAP + rowBandW + rowLabelW + m.cols * (cellW + GAP) + totalsW;
  const gridH = 2 + GAP + bandsH + HEADER_H + GAP + m.rows * (CELL_H + GAP);
  const legendW = widest([m.legend.min, m.legend.max], 11, 'mono') * 2 + 100;
  const width = Math.ceil(Math.max(captionWidth(m), gridW, legendW));
  return {
    cellW,
    rowLabelW,
    rowBandW,
    totalsW,
    bandsH,
    gridW,
    gridH,
    width,
    height: CAPTION_H + gridH + LEGEND_H,
    centre: CAPTION_H + gridH / 2,
  };
}

function caption(m, x, y, theme, out) {
  const mid = y + CAPTION_H / 2 - 2;
  out.push(text(x, mid, m.label, 17, theme.fg, { font: 'serif', italic: true, weight: 600 }));
  let cx = x + textWidth(m.label, 17, 'serif') + 10;
  if (m.head !== null && m.head !== undefined) {
    out.push(rect(cx, mid - 8, 4, 16, theme.heads[m.head % 8]), text(cx + 8, mid, `head ${m.head}`, 13, theme.fg));
    cx += textWidth(`head ${m.head}`, 13) + 18;
  }
  for (const t of m.captionTokens) {
    const single = t.kind === 'dim' && t.parts.length === 1 ? t.parts[0].dim : null;
    const s = t.kind === 'dim' ? t.value : t.text;
    out.push(
      text(cx, mid, s, 14, single ? dimColour(theme, single) : theme.fg, {
        font: 'mono',
        weight: t.kind === 'dim' ? 700 : 400,
      }),
    );
    cx += textWidth(s, 14, 'mono');
  }
}

function cell(c, x, y, w, theme) {
  const mid = y + CELL_H / 2;
  if (c.kind === 'neg-inf')
    return [
      rect(x, y, w, CELL_H, theme.maskB, { pattern: 'hatch' }),
      text(x + w / 2, mid, c.text, FONT, theme.maskInk, { font: 'mono', anchor: 'middle', italic: true }),
    ];
  if (c.kind === 'masked-zero')
    return [
      rect(x, y, w, CELL_H, theme.zeroBg),
      text(x + w / 2, mid, c.text, FONT, theme.maskInk, { font: 'mono', anchor: 'middle' }),
    ];
  return [rect(x, y, w, CELL_H, c.fill), text(x + w - 5, mid, c.text, FONT, c.ink, { font: 'mono', anchor: 'end' })];
}

function colHeads(m, k, x0, y, theme, out) {
  const font = m.colAxisIsTokens ? 'sans' : 'mono';
  const fit = Math.max(2, Math.floor((k.cellW - 6) / (FONT * 0.6)));
  m.colLabels.forEach((label, c) => {
    const x = x0 + c * (k.cellW + GAP) + k.cellW / 2;
    out.push(
      text(
        x,
        y + HEADER_H / 2,
        m.colAxisIsTokens ? clip(label, fit) : label,
        FONT,
        m.colAxisIsTokens ? theme.fg : theme.muted,
        { font, anchor: 'middle', weight: 500 },
      ),
    );
  });
  if (m.totals)
    out.push(
      text(x0 + m.cols * (k.cellW + GAP) + 8, y + HEADER_H / 2, m.totals.label, FONT, theme.fg, { font: 'mono' }),
    );
}

function bands(m, k, x0, y0, theme, out) {
  for (const b of m.colBands ?? []) {
    const x = x0 + b.start * (k.cellW + GAP);
    const w = Math.min(b.span, m.cols - b.start) * (k.cellW + GAP) - GAP;
    out.push(
      rect(x, y0, w, BAND_H, theme.panel),
      rect(x, y0, w, 4, theme.heads[b.colour]),
      text(x + w / 2, y0 + 11, b.label, 11, theme.fg, { anchor: 'middle', weight: 600 }),
    );
  }
}

function rowBands(m, k, x, rowsY, theme, out) {
  for (const b of m.rowBands ?? []) {
    const y = rowsY + b.start * (CELL_H + GAP);
    const h = Math.min(b.span, m.rows - b.start) * (CELL_H + GAP) - GAP;
    out.push(
      rect(x, y, 4, h, theme.heads[b.colour]),
      text(x + 12, y + h / 2, b.label, 11, theme.fg, { anchor: 'middle', weight: 600, rotate: -90 }),
    );
  }
}

function grid(m, k, x, y, theme, out) {
  out.push(rect(x, y, k.gridW, k.gridH, theme.panel, { stroke: theme.border }));
  const labelX = x + 1 + GAP + k.rowBandW;
  const cellsX = labelX + k.rowLabelW;
  if (m.colBands) bands(m, k, cellsX, y + 1 + GAP, theme, out);
  const headY = y + 1 + GAP + k.bandsH;
  colHeads(m, k, cellsX, headY, theme, out);
  const rowsY = headY + HEADER_H + GAP;
  if (m.rowBands) rowBands(m, k, x + 1 + GAP, rowsY, theme, out);
  const rowFont = m.rowAxisIsTokens ? 'sans' : 'mono';
  const fit = Math.max(2, Math.floor((k.rowLabelW - 10) / (FONT * 0.6)));
  for (let r = 0; r < m.rows; r += 1) {
    const cy = rowsY + r * (CELL_H + GAP);
    out.push(
      text(cellsX - 6, cy + CELL_H / 2, clip(m.rowLabels[r], fit), FONT, m.rowAxisIsTokens ? theme.fg : theme.muted, {
        font: rowFont,
        anchor: 'end',
        weight: 500,
      }),
    );
    for (let c = 0; c < m.cols; c += 1)
      out.push(...cell(m.cells[r * m.cols + c], cellsX + c * (k.cellW + GAP), cy, k.cellW, theme));
    if (m.totals) {
      const tx = cellsX + m.cols * (k.cellW + GAP);
      out.push(
        rect(tx, cy, 1, CELL_H, theme.border),
        text(tx + 8, cy + CELL_H / 2, `\u03a3 = ${m.totals.texts[r]}`, FONT, theme.fg, { font: 'mono' }),
      );
    }
  }
}

function legend(m, x, y, theme, out) {
  const mid = y + LEGEND_H / 2 + 2;
  const minW = textWidth(m.legend.min, 11, 'mono');
  out.push(text(x, mid, m.legend.min, 11, theme.muted, { font: 'mono' }));
  out.push({
    t: 'gradient',
    x: x + minW + 6,
    y: mid - 5,
    w: 80,
    h: 10,
    stops: rampStops(m.legend.gradient),
    stroke: theme.border,
  });
  out.push(text(x + minW + 92, mid, m.legend.max, 11, theme.muted, { font: 'mono' }));
}

function matrixBlock(m, k, x, y, theme, out) {
  caption(m, x, y, theme, out);
  grid(m, k, x, y + CAPTION_H, theme, out);
  legend(m, x, y + CAPTION_H + k.gridH, theme, out);
}

// Figure items → units (a glyph and the matrix it joins, or a glyph alone), as figure.js pairs
// them. Asides (the arcs) are the page's interactive extra and stay out of the export.
function unitsOf(items) {
  const units = [];
  let pending = null;
  for (const item of items) {
    if (item.kind === 'glyph') {
      if (pending) units.push({ glyph: pending });
      pending = item.text;
    } else if (item.kind === 'matrix') {
      units.push({ glyph: pending, matrix: item.data, k: matrixMetrics(item.data) });
      pending = null;
    }
  }
  if (pending) units.push({ glyph: pending });
  for (const u of units) {
    u.glyphW = u.glyph ? Math.ceil(textWidth(u.glyph, 20, 'serif') + 12) : 0;
    u.width = u.glyphW + (u.matrix ? u.k.width : 0);
    u.centre = u.matrix ? u.k.centre : 14;
    u.height = u.matrix ? u.k.height : 28;
  }
  return units;
}

function flowLines(units) {
  const limit = Math.max(MAX_LINE, ...units.map((u) => u.width));
  const lines = [[]];
  let used = 0;
  for (const u of units) {
    if (lines.at(-1).length && used + UNIT_GAP + u.width > limit) {
      lines.push([]);
      used = 0;
    }
    used += (lines.at(-1).length ? UNIT_GAP : 0) + u.width;
    lines.at(-1).push(u);
  }
  return lines;
}

function heading({ title, headLabel, head, equation }, theme, out) {
  out.push(text(PAD, PAD + 14, title, 22, theme.fg, { weight: 700 }));
  let right = PAD + textWidth(title, 22) * 1.05 + 14;
  if (headLabel) {
    out.push(
      rect(right, PAD + 4, 5, 20, theme.heads[(head ?? 0) % 8]),
      text(right + 10, PAD + 14, headLabel, 15, theme.fg),
    );
    right += textWidth(headLabel, 15) + 14;
  }
  const eq = equation ? `${equation.text}    ${equation.symbolic}` : '';
  if (eq)
    out.push(
      text(PAD, PAD + 46, equation.text, 15, theme.fg, { font: 'mono' }),
      text(PAD + textWidth(`${equation.text}    `, 15, 'mono'), PAD + 46, equation.symbolic, 15, theme.muted, {
        font: 'mono',
      }),
    );
  return { width: Math.max(right, PAD + textWidth(eq, 15, 'mono')), bottom: PAD + (eq ? 66 : 34) };
}

/**
 * { title, headLabel, head, equation: { text, symbolic }, items: the stage view's figure,
 *   theme: 'light' | 'dark', footer } → { width, height, background, shapes, hatch }
 */
export function figureScene({
  title,
  headLabel = null,
  head = null,
  equation = null,
  items,
  theme: themeName = 'light',
  footer = '',
}) {
  const theme = THEMES[themeName] ?? THEMES.light;
  const shapes = [];
  const top = heading({ title, headLabel, head, equation }, theme, shapes);
  let y = top.bottom;
  let width = top.width;
  for (const line of flowLines(unitsOf(items))) {
    const centre = Math.max(...line.map((u) => u.centre));
    const height = Math.max(...line.map((u) => centre - u.centre + u.height));
    let x = PAD;
    for (const u of line) {
      if (u.glyph)
        shapes.push(text(x + u.glyphW / 2, y + centre, u.glyph, 20, theme.muted, { font: 'serif', anchor: 'middle' }));
      if (u.matrix) matrixBlock(u.matrix, u.k, x + u.glyphW, y + centre - u.k.centre, theme, shapes);
      x += u.width + UNIT_GAP;
    }
    width = Math.max(width, x - UNIT_GAP);
    y += height + LINE_GAP;
  }
  if (footer) {
    shapes.push(text(PAD, y + 4, footer, 11, theme.muted));
    width = Math.max(width, PAD + textWidth(footer, 11));
  }
  return {
    width: Math.ceil(width + PAD),
    height: Math.ceil(y + (footer ? 16 : 0) + PAD - LINE_GAP / 2),
    background: theme.bg,
    shapes,
    hatch: { a: theme.maskA, b: theme.maskB },
  };
}
