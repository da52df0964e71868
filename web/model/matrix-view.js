// One matrix of the trace → the data a heatmap view draws: cell texts, colours, labels,
// axis names, highlight sets and the legend's range. Pure.

import { shapeTokens } from './dims.js';
import { formatCell, formatFull } from './format.js';
import { cellColours, packHex, rampGradient, sequentialColours, rangeOf, headColourIndex } from './palette.js';
import { scaleOf } from './scales.js';
import { THEMES } from '../theme.js';

const indexLabels = (n) => Array.from({ length: n }, (_, i) => String(i));

// Row-major values of the transpose (a re-indexing for display; no arithmetic).
export function transposed(values, rows, cols) {
  const out = new Float64Array(values.length);
  for (let i = 0; i < rows; i += 1) for (let j = 0; j < cols; j += 1) out[j * rows + i] = values[i * cols + j];
  return out;
}

// The transpose made once per matrix, so that the same matrix keeps the same values (a heatmap
// given the very same values draws nothing again).
const transposes = new WeakMap();
function transposedOf(values, rows, cols) {
  if (!transposes.has(values)) transposes.set(values, transposed(values, rows, cols));
  return transposes.get(values);
}

// Token labels for a token axis (T, T_q, T_kv) when there is one per row or column.
function axisLabels(axis, n, tokens) {
  const list = tokens[axis];
  return list && list.length === n ? list.slice() : indexLabels(n);
}

const isTokenAxis = (axis, tokens) => Boolean(tokens[axis]);

// Head bands along an h·d_v axis: columns (or rows) [h·d_v, (h+1)·d_v) belong to head h.
export function headBands(axis, n, config) {
  if (axis !== 'h·d_v' || !config || config.numHeads < 2) return null;
  return Array.from({ length: config.numHeads }, (_, h) => ({
    label: `head ${h}`,
    start: h * config.dV,
    span: config.dV,
    colour: headColourIndex(h),
  })).filter((b) => b.start < n);
}

function toKeySet(pairs) {
  return new Set((pairs ?? []).map(([r, c]) => `${r},${c}`));
}

// One cell's text, full-precision text, kind and colours, made when asked for: a 512 × 512
// matrix costs nothing until a view draws (a window of) it.
function cellMaker(values, range, theme, maskedZero, sequential) {
  const paint = sequential ? sequentialColours : cellColours;
  const zero = (THEMES[theme] ?? THEMES.light).zeroBg; // a weight the mask removed: flat, not a number's colour
  const zeroRgb = packHex(zero);
  return (i) => {
    const v = values[i];
    if (v === -Infinity) return { text: formatCell(v), full: formatFull(v), kind: 'neg-inf' };
    if (maskedZero && maskedZero[i])
      return { text: '0', full: formatFull(v), kind: 'masked-zero', fill: zero, rgb: zeroRgb };
    const { fill, ink, rgb } = paint(v, range, theme);
    return { text: formatCell(v), full: formatFull(v), kind: 'value', fill, ink, rgb };
  };
}

// For weights under a causal mask: which cells the mask removed (its logit is −∞ in the operand).
export function maskedFrom(logits) {
  if (!logits) return null;
  const out = new Uint8Array(logits.length);
  let any = false;
  for (let i = 0; i < logits.length; i += 1) {
    if (logits[i] === -Infinity) {
      out[i] = 1;
      any = true;
    }
  }
  return any ? out : null;
}

// The legend of a scale (scales.js): its ends, its ramp and what it is. The mask's is two
// swatches, 0 and the hatch of −∞, no ramp.
function legendOf(scale, theme) {
  if (scale.kind === 'mask') {
    const zero = (THEMES[theme] ?? THEMES.light).zeroBg;
    return {
      min: '0',
      max: '\u2212\u221e',
      gradient:
        `linear-gradient(to right, ${zero} 0 50%, transparent 50%), ` +
        'repeating-linear-gradient(135deg, var(--mask-a) 0 5px, var(--mask-b) 5px 10px)',
      note: scale.note,
      why: scale.why,
    };
  }
  return {
    min: formatCell(scale.sequential ? 0 : -scale.range),
    max: formatCell(scale.range),
    gradient: rampGradient(theme, scale.sequential),
    note: scale.note,
    why: scale.why,
  };
}

/**
 * spec: { key, name, label, shape, axes, values, tokens: { [axis]: labels }, theme, config,
 *         transpose?, highlight?, selected?, interactive?, totals?, maskedZero?, head?,
 *         scale? (scales.js's scaleOf: the range, the palette and the legend's note), else
 *         sequential? (values ≥ 0: the sequential palette from 0) on the matrix's own range }
 */
export function matrixView(spec) {
  const { key, name, theme, tokens, config } = spec;
  let [rows, cols] = spec.shape;
  let values = spec.values;
  let axes = spec.axes ?? ['rows', 'cols'];
  if (values.length !== rows * cols) {
    throw new Error(`matrix ${key}: ${values.length} values for shape (${rows}, ${cols})`);
  }
  // The transpose has the same range.
  const scale = spec.scale ?? scaleOf({ id: null, values, nonNegative: Boolean(spec.sequential) });
  const { range, sequential } = scale;
  if (spec.transpose) {
    values = transposedOf(values, rows, cols);
    [rows, cols] = [cols, rows];
    axes = [axes[1], axes[0]];
  }
  const hl = spec.highlight ?? {};
  const cell = cellMaker(values, range, theme, spec.maskedZero, sequential);
  let cells = null;
  return {
    key,
    name,
    label: spec.label ?? name,
    head: spec.head ?? null,
    rows,
    cols,
    values,
    axes,
    captionTokens: shapeTokens(axes, [rows, cols]),
    cell,
    /** Every cell at once (the export draws them all), made on first use. */
    get cells() {
      cells ??= Array.from({ length: values.length }, (_, i) => cell(i));
      return cells;
    },
    rowLabels: axisLabels(axes[0], rows, tokens),
    colLabels: axisLabels(axes[1], cols, tokens),
    rowAxisIsTokens: isTokenAxis(axes[0], tokens),
    colAxisIsTokens: isTokenAxis(axes[1], tokens),
    colBands: headBands(axes[1], cols, config),
    rowBands: headBands(axes[0], rows, config),
    totals: spec.totals ?? null,
    highlight: { rows: new Set(hl.rows ?? []), cols: new Set(hl.cols ?? []), cells: toKeySet(hl.cells) },
    selected: spec.selected ?? null,
    interactive: Boolean(spec.interactive),
    legend: legendOf(scale, theme),
  };
}
