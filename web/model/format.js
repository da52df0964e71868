// Number formatting for display. Pure; no arithmetic on the values beyond rounding for text.

const MINUS = '\u2212';

// Three decimals, as the lesson prints them; a typographic minus; ±∞ for masked logits.
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
