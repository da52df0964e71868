#include "attention/message_text.hpp"

#include <cstdint>
#include <cstdio>

namespace attention {

namespace {

// One character read from UTF-8: its code point and byte length, or `valid` false for a byte
// that starts no well-formed sequence (then length 1). A surrogate's 3-byte form (ED A0–BF ..)
// is read as its code point, so that it is shown as the \uD800 it stands for.
struct utf8_char {
    std::uint32_t code = 0;
    std::size_t length = 1;
    bool valid = false;
};

utf8_char read_utf8(const std::string &s, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80)
        return {lead, 1, true};
    // Sequence length, the lead byte's payload, and the smallest code point of that length
    // (a smaller one is an overlong form).
    std::size_t n;
    std::uint32_t code, min;
    if (lead >= 0xC2 && lead <= 0xDF)
        n = 2, code = lead & 0x1F, min = 0x80;
    else if (lead >= 0xE0 && lead <= 0xEF)
        n = 3, code = lead & 0x0F, min = 0x800;
    else if (lead >= 0xF0 && lead <= 0xF4)
        n = 4, code = lead & 0x07, min = 0x10000;
    else
        return {};
    if (i + n > s.size())
        return {};
    for (std::size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80)
            return {};
        code = (code << 6) | (byte(i + k) & 0x3F);
    }
    if (code < min || code > 0x10FFFF)
        return {};
    return {code, n, true};
}

bool hidden(std::uint32_t c) {
    return c <= 0x1F || (c >= 0x7F && c <= 0x9F) || c == 0x061C || (c >= 0x200B && c <= 0x200F) ||
           (c >= 0x2028 && c <= 0x202E) || (c >= 0x2060 && c <= 0x2069) || c == 0xFEFF ||
           (c >= 0xD800 && c <= 0xDFFF);
}

std::string hex(const char *format, unsigned value) {
    char out[8];
    std::snprintf(out, sizeof out, format, value);
    return out;
}

} // namespace

std::string quoted_for_message(const std::string &text) {
    std::string out = "\"";
    std::size_t i = 0;
    for (std::size_t shown = 0; i < text.size() && shown < max_quoted_chars; ++shown) {
        const utf8_char c = read_utf8(text, i);
        if (!c.valid)
            out += hex("\\x%02X", static_cast<unsigned char>(text[i]));
        else if (hidden(c.code))
            out += hex("\\u%04X", c.code);
        else
            out.append(text, i, c.length);
        i += c.length;
    }
    return out + "\"";
}

} // namespace attention
