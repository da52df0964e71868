// A value a person typed, echoed inside a message: quoted, cut when long, and with every
// character that could disguise the message written out (\u202E, not the right-to-left override
// itself, which would reorder the message's own text; control characters; lone surrogates).

const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;
const MAX_SHOWN = 40; // characters

const escapeOne = (c) => {
  const hex = c.codePointAt(0).toString(16).toUpperCase();
  return hex.length <= 4 ? `\\u${hex.padStart(4, '0')}` : `\\u{${hex}}`;
};

/** "value", at most 40 characters of it ("xxx… (100000 characters)"), hidden characters as \uXXXX. */
export function quoted(value) {
  const chars = Array.from(String(value));
  const shown = chars.length > MAX_SHOWN ? `${chars.slice(0, MAX_SHOWN).join('')}\u2026` : chars.join('');
  const more = chars.length > MAX_SHOWN ? ` (${chars.length} characters)` : '';
  return `"${shown.replace(HIDDEN, escapeOne)}"${more}`;
}
