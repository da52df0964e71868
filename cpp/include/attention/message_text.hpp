// Caller text echoed inside an error message (an unknown preset, stage, kind or field name):
// quoted, cut short, and with every character that could hide or reorder the message's own
// text written out visibly.
#pragma once

#include <cstddef>
#include <string>

namespace attention {

// At most this many characters (code points) of the caller's text are shown.
constexpr std::size_t max_quoted_chars = 40;

// "text", cut after max_quoted_chars code points (never inside a UTF-8 sequence), with each
// hidden or direction-changing character written as \uXXXX (the page's quote.js does the same):
// C0 and C1 controls and DEL (U+0000–U+001F, U+007F–U+009F), the Arabic letter mark U+061C,
// zero-width and direction marks U+200B–U+200F, line and paragraph separators and the bidi
// embeddings and overrides U+2028–U+202E, the word joiner, invisible operators and bidi
// isolates U+2060–U+2069, the byte-order mark U+FEFF, and surrogates (U+D800–U+DFFF, which
// no valid UTF-8 holds). Any other byte that is not valid UTF-8 is written as \xNN.
std::string quoted_for_message(const std::string &text);

} // namespace attention
