// Token labels: typed text ↔ words, and placeholders when there are none.

// "the cat  sat" → ['the', 'cat', 'sat']
export function splitTokens(text) {
  return String(text ?? '')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
}

// Labels for n rows when none were given: t0, t1, …
export function placeholderTokens(count) {
  return Array.from({ length: count }, (_, i) => `t${i}`);
}
