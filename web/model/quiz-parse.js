// Reading a learner's typed answer: a shape written any of the usual ways, a number (with a
// typographic minus, a decimal comma or ∞), a square root (√4, sqrt(4)), one of a few words.
// Pure; each reader gives null for text it cannot read, so the quiz can ask again without
// counting a try.

const DASHES = /[\u2212\u2012\u2013\u2014]/g; // −, ‒, –, — typed for a minus

/** "5, 4", "(5, 4)", "5x4", "5 × 4", "[5 4]", "5 by 4" → [5, 4]; anything else → null. */
export function parseShape(text) {
  const t = String(text ?? '')
    .trim()
    .replace(/\.$/, '')
    .replace(/^[([{]\s*/, '')
    .replace(/\s*[)\]}]$/, '');
  const m = /^(\d+)\s*(?:,|;|x|\u00d7|\*|by|\s)\s*(\d+)$/i.exec(t);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** (5, 4) as the stage's equation writes shapes. */
export function formatShape([rows, cols]) {
  return `(${rows}, ${cols})`;
}

/** "0.25", "−0.3", "0,5", "1e-3", "-inf", "−∞" → a number; anything else → null. */
export function parseNumber(text) {
  let t = String(text ?? '')
    .trim()
    .replace(DASHES, '-')
    .replace(/\s+/g, '')
    .toLowerCase();
  if (/^-(\u221e|inf|infinity)$/.test(t)) return -Infinity;
  if (/^\+?(\u221e|inf|infinity)$/.test(t)) return Infinity;
  if (/^[-+]?\d+,\d+$/.test(t)) t = t.replace(',', '.'); // a decimal comma, as many keyboards write it
  return /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/.test(t) ? Number(t) : null;
}

/** "√4", "sqrt(4)", "sqrt 4", "root 4" → 4 (the number under the root); else null. */
export function parseRoot(text) {
  const m = /^(?:\u221a|sqrt|root)\s*\(?\s*(\d+(?:\.\d+)?)\s*\)?$/i.exec(String(text ?? '').trim());
  return m ? Number(m[1]) : null;
}

/** The choice whose words include the text's first word (case-insensitive), else null. */
export function parseChoice(text, choices) {
  const word = String(text ?? '')
    .trim()
    .toLowerCase()
    .split(/\s+/)[0];
  return choices.find((c) => c.words.includes(word))?.value ?? null;
}

/** Two numbers equal within a tolerance (infinities equal only to themselves). */
export function near(a, b, tolerance) {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= tolerance;
}
