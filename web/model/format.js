// Number formatting for display. Pure; no arithmetic on the values beyond rounding for text.

const MINUS = '\u2212';

// Three decimals; a typographic minus; ±∞ for masked logits.
export function formatCell(v) {
  if (v === -Infinity) return `${MINUS}\u221e`;
  if (v === Infinity) return '\u221e';
  if (Number.isNaN(v)) return 'NaN';
  return v.toFixed(3).replace('-', MINUS);
}

// Full precision: JavaScript's shortest text that reads back as the same double.
export function formatFull(v) {
  if (v === -Infinity) return '-Infinity';
  return String(v);
}

// A number inside TeX: \infty for infinities, a real minus sign, parentheses when it is a factor.
export function texNumber(v, { paren = false } = {}) {
  if (v === -Infinity) return '-\\infty';
  if (v === Infinity) return '\\infty';
  const text = v.toFixed(3);
  return paren && v < 0 ? `(${text})` : text;
}

// Reads a displayed cell back into a number (used by the tests and by copy-paste).
export function parseCell(text) {
  const t = text.trim().replace(MINUS, '-');
  if (t === '-\u221e') return -Infinity;
  if (t === '\u221e') return Infinity;
  return Number(t);
}

// A large count in billions with two decimals: 38654705664 → "38.65 billion".
export function formatBillions(v) {
  return `${(v / 1e9).toFixed(2)} billion`;
}

// A count with thousands separators: 1048576 → "1,048,576".
export function formatCount(v) {
  return v.toLocaleString('en-US');
}

// A small non-negative number for prose: 0, or two significant digits with a power of ten
// (5.6 × 10⁻¹⁷).
export function formatSci(v) {
  if (v === 0) return '0';
  const [mantissa, exponent] = v.toExponential(1).split('e');
  const superscript = exponent
    .replace('+', '')
    .replace(
      /[-0-9]/g,
      (ch) => '\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079'['-0123456789'.indexOf(ch)],
    );
  return `${mantissa} \u00d7 10${superscript}`;
}

// A non-negative measure for prose, without a power of ten: two significant digits below 100
// (0.0018, 0.16, 18), whole above (382).
export function formatPlain(v) {
  if (v === 0) return '0';
  return v >= 100 ? String(Math.round(v)) : String(Number(v.toPrecision(2)));
}

// Bytes in the largest binary unit that keeps at least 1: 1536 → "1.50 KiB".
export function formatBytes(v) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (i < units.length - 1 && v >= 1024 ** (i + 1)) i += 1;
  return i === 0 ? `${v} B` : `${(v / 1024 ** i).toFixed(2)} ${units[i]}`;
}

// "queries 2–3" or "query 4" for the half-open rows [a, b).
export function rowsText(what, [a, b]) {
  return b - a === 1 ? `${what} ${a}` : `${what === 'query' ? 'queries' : `${what}s`} ${a}\u2013${b - 1}`;
}

// A share as a percentage with one decimal: 0.6693 → "66.9 %".
export function formatPercent(v) {
  return `${(v * 100).toFixed(1)} %`;
}
