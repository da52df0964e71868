// Caller text echoed in messages (message_text.hpp): cut at 40 code points and never inside a
// UTF-8 sequence, every hidden or direction-changing character written as \uXXXX, invalid
// bytes as \xNN, plain text unchanged.
#include <catch2/catch.hpp>

#include <string>

#include "attention/message_text.hpp"
#include "attention/presets.hpp"

using attention::quoted_for_message;

namespace {

std::string repeat(const std::string &s, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i)
        out += s;
    return out;
}

// U+XXXX as UTF-8.
std::string utf8(char32_t c) {
    std::string out;
    if (c < 0x80) {
        out += char(c);
    } else if (c < 0x800) {
        out += char(0xC0 | (c >> 6));
        out += char(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += char(0xE0 | (c >> 12));
        out += char(0x80 | ((c >> 6) & 0x3F));
        out += char(0x80 | (c & 0x3F));
    } else {
        out += char(0xF0 | (c >> 18));
        out += char(0x80 | ((c >> 12) & 0x3F));
        out += char(0x80 | ((c >> 6) & 0x3F));
        out += char(0x80 | (c & 0x3F));
    }
    return out;
}

} // namespace

TEST_CASE("quoted_for_message: plain text is only quoted", "[message]") {
    CHECK(quoted_for_message("lesson-nope") == "\"lesson-nope\"");
    CHECK(quoted_for_message("") == "\"\"");
    CHECK(quoted_for_message("<img src=x onerror=alert(1)>") == "\"<img src=x onerror=alert(1)>\"");
    const std::string ascii = " !#$%&'()*+,-./0123456789:;<=>?@ABCXYZ[]^_`abcxyz{|}~";
    CHECK(quoted_for_message(ascii.substr(0, 40)) == "\"" + ascii.substr(0, 40) + "\"");
    CHECK(quoted_for_message("café αβγ 注意 😀") == "\"café αβγ 注意 😀\"");
}

TEST_CASE("quoted_for_message: cut at 40 code points, never inside a sequence", "[message]") {
    CHECK(quoted_for_message(repeat("x", 41)) == "\"" + repeat("x", 40) + "\"");
    CHECK(quoted_for_message(repeat("x", 40)) == "\"" + repeat("x", 40) + "\"");
    for (const std::string ch : {utf8(0xE9), utf8(0x6CE8), utf8(0x1F600)}) { // 2, 3 and 4 bytes
        CAPTURE(ch.size());
        CHECK(quoted_for_message(repeat(ch, 50)) == "\"" + repeat(ch, 40) + "\"");
        // Shifted by one ASCII byte: a byte count of 40 would land inside a sequence.
        CHECK(quoted_for_message("x" + repeat(ch, 50)) == "\"x" + repeat(ch, 39) + "\"");
    }
    // An escaped character counts as one, however long its escape.
    CHECK(quoted_for_message(repeat("\x01", 45)) == "\"" + repeat("\\u0001", 40) + "\"");
}

TEST_CASE("quoted_for_message: hidden characters written as uXXXX escapes", "[message]") {
    const struct {
        const char *what;
        char32_t first, last;
    } classes[] = {
        {"C0 controls", 0x00, 0x1F},
        {"DEL and C1 controls", 0x7F, 0x9F},
        {"Arabic letter mark", 0x061C, 0x061C},
        {"zero-width space, joiners, LRM, RLM", 0x200B, 0x200F},
        {"line and paragraph separators, bidi embeddings and overrides", 0x2028, 0x202E},
        {"word joiner, invisible operators, bidi isolates", 0x2060, 0x2069},
        {"byte-order mark", 0xFEFF, 0xFEFF},
    };
    for (const auto &k : classes) {
        for (char32_t c = k.first; c <= k.last; ++c) {
            INFO(k.what << ": U+" << std::hex << unsigned(c));
            char want[16];
            std::snprintf(want, sizeof want, "\"a\\u%04Xb\"", unsigned(c));
            CHECK(quoted_for_message("a" + utf8(c) + "b") == want);
        }
    }
    CHECK(quoted_for_message(utf8(0x202E) + "evil") == "\"\\u202Eevil\"");
    // Their neighbours are shown as they are.
    for (char32_t c : {0x20, 0x7E, 0xA0, 0x200A, 0x2010, 0x2027, 0x202F, 0x205F, 0x206A, 0xFEFE})
        CHECK(quoted_for_message(utf8(c)) == "\"" + utf8(c) + "\"");
}

TEST_CASE("quoted_for_message: bytes that are not UTF-8 written as xNN escapes", "[message]") {
    CHECK(quoted_for_message("a\xFF"
                             "b") == "\"a\\xFFb\"");
    CHECK(quoted_for_message("\xC3") == "\"\\xC3\""); // cut-off 2-byte sequence
    CHECK(quoted_for_message("\xE6\xB3"
                             "x") == "\"\\xE6\\xB3x\"");                // cut-off 3-byte sequence
    CHECK(quoted_for_message("\x80\xBF") == "\"\\x80\\xBF\"");          // lone continuations
    CHECK(quoted_for_message("\xC0\xAF") == "\"\\xC0\\xAF\"");          // overlong '/'
    CHECK(quoted_for_message("\xE0\x80\xAF") == "\"\\xE0\\x80\\xAF\""); // overlong, 3 bytes
    CHECK(quoted_for_message("\xF4\x90\x80\x80") == "\"\\xF4\\x90\\x80\\x80\""); // > U+10FFFF
    // A surrogate's 3-byte form is shown as the unit it stands for.
    CHECK(quoted_for_message("\xED\xA0\x80") == "\"\\uD800\"");
    CHECK(quoted_for_message("\xED\xBF\xBF") == "\"\\uDFFF\"");
}

TEST_CASE("quoted_for_message: a preset id in the core's message", "[message]") {
    using Catch::Matchers::StartsWith;
    CHECK_THROWS_WITH(attention::preset(utf8(0x202E) + "lesson"),
                      StartsWith("preset: \"\\u202Elesson\" is not one of lesson-"));
    CHECK_THROWS_WITH(attention::preset("x" + repeat(utf8(0x1F600), 45)),
                      StartsWith("preset: \"x" + repeat(utf8(0x1F600), 39) + "\" is not one of"));
}
