// Text in an export scene, laid out without measuring it (no DOM here): its width from a fixed
// width per character, and labels cut to a length, for model/export/scene.js.

// A monospace digit is 0.6 em in every font stack of theme.js (FONTS); sans text is given a
// generous 0.6 em, the captions' bold italic serif 0.72 em, and long labels are cut.
export const EM = { mono: 0.61, sans: 0.6, serif: 0.72 };

export function textWidth(text, size, font = 'sans') {
  return [...String(text)].length * size * EM[font];
}

/** Cuts text to at most max characters with an ellipsis (as the page's CSS does for labels). */
export function clip(text, max) {
  const chars = [...String(text)];
  return chars.length <= max ? String(text) : `${chars.slice(0, Math.max(1, max - 1)).join('')}\u2026`;
}
