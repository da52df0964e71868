// The trace's hand-off packing (trace_pack.hpp): the exact JSON of a hand-made trace, names
// escaped into valid JSON, and for every preset the placed matrices contiguous and every
// stage's and operand's slice of the buffer equal to its values bit for bit.
#include <catch2/catch.hpp>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <regex>

#include "attention/spec_reader.hpp"
#include "attention/engine.hpp"
#include "attention/presets.hpp"
#include "attention/trace_pack.hpp"
#include "check.hpp"

using namespace attention;
using check::m;

namespace {

// A minimal JSON reader that only says whether text is one valid JSON value (RFC 8259).
class json_checker {
  public:
    explicit json_checker(const std::string &text) : s_(text) {}
    bool valid() { return value() && (space(), i_ == s_.size()); }

  private:
    void space() {
        while (i_ < s_.size() && std::strchr(" \t\n\r", s_[i_]))
            ++i_;
    }
    bool eat(char c) { return space(), i_ < s_.size() && s_[i_] == c ? (++i_, true) : false; }
    bool word(const char *w) {
        const std::size_t n = std::strlen(w);
        return s_.compare(i_, n, w) == 0 ? (i_ += n, true) : false;
    }
    bool string() {
        if (!eat('"'))
            return false;
        while (i_ < s_.size() && s_[i_] != '"') {
            const auto c = static_cast<unsigned char>(s_[i_++]);
            if (c < 0x20)
                return false; // a raw control character
            if (c == '\\') {
                if (i_ >= s_.size())
                    return false;
                const char e = s_[i_++];
                if (e == 'u') {
                    for (int k = 0; k < 4; ++k)
                        if (i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_++])))
                            return false;
                } else if (!std::strchr("\"\\/bfnrt", e)) {
                    return false;
                }
            }
        }
        return eat('"');
    }
    bool number() {
        const std::size_t start = i_;
        eat('-');
        while (i_ < s_.size() && std::strchr("0123456789.eE+-", s_[i_]))
            ++i_;
        return i_ > start && std::isdigit(static_cast<unsigned char>(s_[i_ - 1]));
    }
    template <class Item> bool list(char open, char close, Item item) {
        if (!eat(open))
            return false;
        if (eat(close))
            return true;
        do {
            if (!item())
                return false;
        } while (eat(','));
        return eat(close);
    }
    bool value() {
        space();
        if (i_ >= s_.size())
            return false;
        switch (s_[i_]) {
        case '"':
            return string();
        case '[':
            return list('[', ']', [&] { return value(); });
        case '{':
            return list('{', '}', [&] { return string() && eat(':') && value(); });
        case 'n':
            return word("null");
        case 't':
            return word("true");
        case 'f':
            return word("false");
        default:
            return number();
        }
    }
    const std::string &s_;
    std::size_t i_ = 0;
};

bool valid_json(const std::string &text) {
    return json_checker(text).valid();
}

// Every matrix the layout names, in the order the packer placed them: each stage's values, its
// totals (if any), then its operands.
std::vector<std::pair<std::string, const matrix *>> named_in_order(const trace &t) {
    std::vector<std::pair<std::string, const matrix *>> out;
    for (std::size_t i = 0; i < t.stages.size(); ++i) {
        const stage &s = t.stages[i];
        const std::string at = std::string(name_of(s.id)) + "#" + std::to_string(i);
        out.emplace_back(at, &s.values.get());
        if (s.totals.size())
            out.emplace_back(at + ".totals", &s.totals.get());
        for (const operand &op : s.operands)
            out.emplace_back(at + "." + op.name, &op.values.get());
    }
    return out;
}

struct slot {
    std::size_t rows, cols, offset;
};

// The "shape":[r,c],"offset":o fields of the JSON text, in order.
std::vector<slot> slots_of(const std::string &json) {
    static const std::regex field(R"re("shape":\[(\d+),(\d+)\],"offset":(\d+))re");
    std::vector<slot> out;
    for (auto it = std::sregex_iterator(json.begin(), json.end(), field);
         it != std::sregex_iterator(); ++it)
        out.push_back({std::stoul((*it)[1]), std::stoul((*it)[2]), std::stoul((*it)[3])});
    return out;
}

bool same_bits(const double *a, const double *b, std::size_t n) {
    return n == 0 || std::memcmp(a, b, n * sizeof(double)) == 0;
}

stage hand_stage(stage_id id, const matrix &values, axes ax, equation eq) {
    stage s;
    s.id = id;
    s.values = values;
    s.ax = std::move(ax);
    s.eq = std::move(eq);
    return s;
}

// Two stages written out by hand: x (2, 2) alone, then q (2, 1) of head 0 with its operands
// X (the same bits as x: shared) and W_Q (2, 1), and totals (2, 1) equal to q (shared too).
trace hand_trace() {
    trace t;
    t.stages.push_back(
        hand_stage(stage_id::x, m({{1, 2}, {3, 4}}), {"T", "d_model"}, {"(2, 2)", "(T, d_model)"}));
    stage q = hand_stage(stage_id::q, m({{5}, {6}}), {"T", "d_k"},
                         {"(2, 2) @ (2, 1) → (2, 1)", "(T, d_model) @ (d_model, d_k) → (T, d_k)"});
    q.head = 0;
    q.kv_head = 0;
    q.totals = m({{5}, {6}});
    q.operands.push_back({"X", no_head, m({{1, 2}, {3, 4}}), {"T", "d_model"}});
    q.operands.push_back({"W_Q", 0, m({{-0.0}, {0.5}}), {"d_model", "d_k"}});
    t.stages.push_back(std::move(q));
    return t;
}

} // namespace

TEST_CASE("trace_pack: a hand-made trace's layout, written out in full", "[trace_pack]") {
    const trace t = hand_trace();
    const trace_layout layout = layout_of(t);
    const std::string want =
        R"j([{"id":"x","head":null,"kvHead":null,"step":null,"tile":null,)j"
        R"j("equation":"(2, 2)","symbolic":"(T, d_model)","axes":["T","d_model"],)j"
        R"j("shape":[2,2],"offset":0,"totals":null,"operands":[],"terms":[]},)j"
        R"j({"id":"q","head":0,"kvHead":0,"step":null,"tile":null,)j"
        R"j("equation":"(2, 2) @ (2, 1) → (2, 1)",)j"
        R"j("symbolic":"(T, d_model) @ (d_model, d_k) → (T, d_k)","axes":["T","d_k"],)j"
        R"j("shape":[2,1],"offset":4,"totals":{"shape":[2,1],"offset":4},)j"
        R"j("operands":[{"name":"X","head":null,"axes":["T","d_model"],"shape":[2,2],"offset":0},)j"
        R"j({"name":"W_Q","head":0,"axes":["d_model","d_k"],"shape":[2,1],"offset":6}],)j"
        R"j("terms":[]}])j";
    CHECK(layout.json == want);
    CHECK(valid_json(layout.json));
    REQUIRE(layout.value_count == 8);
    const std::vector<double> values = packed_values(layout);
    const std::vector<double> expected{1, 2, 3, 4, 5, 6, -0.0, 0.5};
    CHECK(same_bits(values.data(), expected.data(), expected.size())); // −0 kept as −0
}

TEST_CASE("trace_pack: a tile, a step and terms appear in the layout", "[trace_pack]") {
    trace t;
    stage s =
        hand_stage(stage_id::tile_scores, m({{0.25}}), {"B_r", "B_c"}, {"(1, 1)", "(B_r, B_c)"});
    s.head = 0;
    s.step = 3;
    s.tile = tile_span{2, 3, 0, 1};
    s.terms = {"causal", "pad\"ding"}; // a quote in a term is escaped
    t.stages.push_back(std::move(s));
    const std::string json = layout_of(t).json;
    CHECK(json == R"j([{"id":"tile_scores","head":0,"kvHead":null,"step":3,)j"
                  R"j("tile":{"queryRows":[2,3],"keyRows":[0,1]},"equation":"(1, 1)",)j"
                  R"j("symbolic":"(B_r, B_c)","axes":["B_r","B_c"],"shape":[1,1],"offset":0,)j"
                  R"j("totals":null,"operands":[],"terms":["causal","pad\"ding"]}])j");
    CHECK(valid_json(json));
}

TEST_CASE("trace_pack: names are escaped into valid JSON", "[trace_pack]") {
    SECTION("quotes and backslashes") {
        CHECK(json_string(R"(say "hi")") == R"("say \"hi\"")");
        CHECK(json_string(R"(a\b)") == R"("a\\b")");
        CHECK(json_string(R"(\")") == R"("\\\"")");
    }
    SECTION("control characters as \\u00XX, every one of U+0000–U+001F") {
        CHECK(json_string("a\nb\tc\x01\x1f") == R"("a\u000ab\u0009c\u0001\u001f")");
        CHECK(json_string(std::string("\0", 1)) == R"("\u0000")");
        for (int c = 0; c < 0x20; ++c) {
            CAPTURE(c);
            const std::string quoted = json_string(std::string(1, char(c)));
            CHECK(quoted.size() == 8);
            CHECK(valid_json(quoted));
        }
    }
    SECTION("DEL and UTF-8 kept as they are") {
        CHECK(json_string("\x7f") == "\"\x7f\"");
        CHECK(json_string("α·√d_k → \xE2\x80\xAE") == "\"α·√d_k → \xE2\x80\xAE\"");
        CHECK(json_string("") == "\"\"");
    }
    SECTION("a hostile operand name gives a layout that parses") {
        trace t = hand_trace();
        t.stages[1].operands[1].name = "W\"\\\n\x01</script>";
        t.stages[1].ax.rows = "\t";
        const std::string json = layout_of(t).json;
        CHECK(valid_json(json));
        CHECK(json.find(R"("name":"W\"\\\u000a\u0001</script>")") != std::string::npos);
        CHECK(json.find(R"("axes":["\u0009","d_k"])") != std::string::npos);
    }
}

TEST_CASE("trace_pack: the JSON checker itself refuses what is not JSON", "[trace_pack]") {
    for (const char *bad : {"", "[", "[1,]", "{\"a\"}", "\"a\nb\"", "\"\\x\"", "[1] 2", "nul"}) {
        CAPTURE(bad);
        CHECK_FALSE(valid_json(bad));
    }
    CHECK(valid_json(R"({"a":[1,-2.5e3,null,true,false,"\u00e9\n"],"b":{}})"));
}

TEST_CASE("trace_pack: twins are compared bit for bit", "[trace_pack]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    trace t;
    t.stages.push_back(hand_stage(stage_id::x, m({{0.0, nan}}), {"1", "2"}, {"", ""}));
    stage q = hand_stage(stage_id::q, m({{-0.0, nan}}), {"1", "2"}, {"", ""}); // −0 ≠ +0
    q.operands.push_back({"X", no_head, m({{0.0, nan}}), {"1", "2"}});         // the same bits as x
    q.operands.push_back({"Y", no_head, m({{0.0}, {nan}}), {"2", "1"}}); // x's bits, not its shape
    t.stages.push_back(std::move(q));
    const trace_layout layout = layout_of(t);
    const std::vector<slot> slots = slots_of(layout.json);
    REQUIRE(slots.size() == 4);
    CHECK(slots[0].offset == 0);
    CHECK(slots[1].offset == 2);
    CHECK(slots[2].offset == 0);
    CHECK(slots[3].offset == 4);
    CHECK(layout.value_count == 6);
    CHECK(layout.placed.size() == 3);
}

TEST_CASE("trace_pack: every preset's layout names each matrix's exact slice", "[trace_pack]") {
    for (const preset_info &p : presets()) {
        CAPTURE(p.id);
        const trace t = run_traced(problem_of_preset(p.id, true));
        const trace_layout layout = layout_of(t);
        const std::vector<double> values = packed_values(layout);
        REQUIRE(values.size() == layout.value_count);
        CHECK(valid_json(layout.json));

        // The placed matrices tile the buffer: in order, back to back, nothing left over.
        std::size_t end = 0;
        for (const placed_matrix &placed : layout.placed) {
            CHECK(placed.offset == end);
            end += placed.values->size();
        }
        CHECK(end == layout.value_count);
        CHECK(layout.value_count <= recorded_value_count(t));

        // Each stage, totals and operand, in order: its shape, and its slice bit for bit.
        const auto named = named_in_order(t);
        const std::vector<slot> slots = slots_of(layout.json);
        REQUIRE(slots.size() == named.size());
        for (std::size_t i = 0; i < named.size(); ++i) {
            const auto &[name, mat] = named[i];
            INFO(name);
            CHECK(slots[i].rows == rows(*mat));
            CHECK(slots[i].cols == cols(*mat));
            REQUIRE(slots[i].offset + mat->size() <= values.size());
            CHECK(same_bits(values.data() + slots[i].offset, mat->data(), mat->size()));
        }
    }
}
