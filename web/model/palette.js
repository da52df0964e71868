// Two colour-blind-safe ramps, one pair per theme, and the ink (text colour) with the better
// contrast on each fill: a diverging ramp (blue – neutral – orange) centred on 0 for values of
// either sign, and a sequential one (neutral – orange) from 0 for those that cannot be negative
// (weights, ReLU outputs, running sums), so that their differences are not all one orange.

const RAMPS = {
  light: ['#1d5b9e', '#7fb0dc', '#f6f6f4', '#f2b276', '#b4520c'],
  dark: ['#8cc4f5', '#2f6395', '#26282c', '#9a5220', '#f5ab69'],
};
const SEQUENTIAL = {
  light: ['#f6f6f4', '#f9dcb8', '#f2b276', '#d8813b', '#b4520c'],
  dark: ['#26282c', '#5e3a1f', '#9a5220', '#c97a3d', '#f5ab69'],
};
// Pure black keeps the worst case (a fill where both inks tie) above 4.5:1.
const INKS = { dark: '#000000', light: '#ffffff' };

// A colour packed as 0xRRGGBB → [r, g, b].
const unpack = (rgb) => [(rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255];

/** A colour #rrggbb packed as 0xRRGGBB. */
export const packHex = (hex) => parseInt(hex.slice(1), 16);

const hexToRgb = (hex) => unpack(packHex(hex));

const toRgb = (ramps) => Object.fromEntries(Object.entries(ramps).map(([k, stops]) => [k, stops.map(hexToRgb)]));
const RGB = toRgb(RAMPS);
const SEQUENTIAL_RGB = toRgb(SEQUENTIAL);

// Relative luminance (WCAG 2) of an sRGB colour given as 0–255 channels.
function luminance([r, g, b]) {
  const lin = (c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

function contrast(l1, l2) {
  return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
}

const INK_LUMINANCE = { dark: luminance(hexToRgb(INKS.dark)), light: 1 };

// u in [0, 1] → a colour along five stops, packed as 0xRRGGBB: no array a cell (a refill asks
// for a thousand colours, and their garbage brought a collection every few edits).
function along(stops, u) {
  const x = Math.max(0, Math.min(1, u)) * 4; // 0 … 4 across five stops
  const i = Math.min(3, Math.floor(x));
  const f = x - i;
  const [a, b] = [stops[i], stops[i + 1]];
  const channel = (k) => Math.round(a[k] + (b[k] - a[k]) * f);
  return (channel(0) << 16) | (channel(1) << 8) | channel(2);
}

// One { fill, ink, rgb } per colour, made once: the ramps give a few thousand colours at most,
// and a heatmap asks for one per cell on every refill. The fill as #rrggbb (for CSS) and packed
// as 0xRRGGBB (rgb: the colour as numbers, to compare or mix).
const made = new Map();

function colours(rgb) {
  let c = made.get(rgb);
  if (!c) {
    const l = luminance(unpack(rgb));
    const ink = contrast(l, INK_LUMINANCE.dark) >= contrast(l, INK_LUMINANCE.light) ? INKS.dark : INKS.light;
    c = Object.freeze({ fill: `#${rgb.toString(16).padStart(6, '0')}`, ink, rgb });
    made.set(rgb, c);
  }
  return c;
}

// One cell's fill and ink for value v in a symmetric range ±range (the diverging ramp).
export function cellColours(v, range, theme) {
  const t = range > 0 ? v / range : 0;
  return colours(along(RGB[theme] ?? RGB.light, (t + 1) / 2));
}

// One cell's fill and ink for a value v ≥ 0 in [0, max] (the sequential ramp).
export function sequentialColours(v, max, theme) {
  return colours(along(SEQUENTIAL_RGB[theme] ?? SEQUENTIAL_RGB.light, max > 0 ? v / max : 0));
}

/** The fill alone as 0xRRGGBB (no ink: small multiples draw no text), diverging or sequential. */
export function fillRgb(v, range, theme, sequential = false) {
  if (sequential) return along(SEQUENTIAL_RGB[theme] ?? SEQUENTIAL_RGB.light, range > 0 ? v / range : 0);
  return along(RGB[theme] ?? RGB.light, ((range > 0 ? v / range : 0) + 1) / 2);
}

// The legend's gradient, left (−range, or 0) to right (+range, or max).
export function rampGradient(theme, sequential = false) {
  const ramps = sequential ? SEQUENTIAL : RAMPS;
  return `linear-gradient(to right, ${(ramps[theme] ?? ramps.light).join(', ')})`;
}

// A colour-scale range from the data: the largest finite |v| (so 0 sits in the middle).
export function symmetricRange(values) {
  let m = 0;
  // An index, not for…of: a Float64Array's iterator boxed every value (30 KB of garbage an edit).
  for (let i = 0; i < values.length; i += 1) {
    const a = Math.abs(values[i]);
    if (a > m && a !== Infinity) m = a;
  }
  return m;
}

// symmetricRange once per array: a trace's matrices never change, and a large one is read on
// every render (its heatmap, the head overview's shared scale).
const ranges = new WeakMap();
export function rangeOf(values) {
  if (!ranges.has(values)) ranges.set(values, symmetricRange(values));
  return ranges.get(values);
}

// Categorical colours for heads (Okabe–Ito, wrapped); the CSS defines --head-0 … --head-7.
export function headColourIndex(head) {
  return head % 8;
}
