// Masks as spans: a sliding window of W (query i sees i − W < j ≤ i), a prefix of P (the first
// P see each other, causal after), packed documents (causal inside each, nothing across). A window
// as long as the sequence is the causal mask, bit for bit; a window of 1 makes each token attend to
// itself alone; every weight outside the band is exactly 0 and each row sums to 1; the untraced
// pass, which leaves the hidden scores and terms out on both sides of the band (past the GEMM's
// first 256-deep slice too), has the traced pass's bits; bad windows are refused by name.
#include <catch2/catch.hpp>

#include <cmath>

#include "attention/engine.hpp"
#include "attention/fields.hpp"
#include "attention/mask.hpp"
#include "attention/spec_reader.hpp"
#include "check.hpp"

using namespace attention;

namespace {

problem masked(double t, double d, double h, field_values masks, bool causal = false) {
    field_values v{{"seqLen", t}, {"dModel", d}, {"numHeads", h}, {"causal", causal}};
    for (auto &[name, value] : masks) // a mask's own causal overrides the default
        v.insert_or_assign(name, value);
    return problem_of(problem_kind::self, false, v, true);
}

problem windowed(double t, double d, double h, std::optional<double> window, bool causal = false) {
    return masked(t, d, h, window ? field_values{{"window", *window}} : field_values{}, causal);
}

// The spans of each row as (begin, end) pairs.
std::vector<std::pair<std::size_t, std::size_t>> spans_of(const problem &p) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (const key_span &s : visible_spans(p.config))
        out.emplace_back(s.begin, s.end);
    return out;
}

const matrix &weights_of(const trace &t, int head) {
    return check::stage_of(t, stage_id::weights, head).values;
}

} // namespace

TEST_CASE("window: the spans are the band i − W < j ≤ i", "[masks][known]") {
    const problem p = windowed(6, 4, 1, 3);
    const row_spans spans = visible_spans(p.config);
    const std::vector<std::pair<std::size_t, std::size_t>> band{{0, 1}, {0, 2}, {0, 3},
                                                                {1, 4}, {2, 5}, {3, 6}};
    for (std::size_t i = 0; i < 6; ++i) {
        CAPTURE(i);
        CHECK(spans[i].begin == band[i].first);
        CHECK(spans[i].end == band[i].second);
    }
    const matrix m = attention_mask(p.config);
    CHECK(m(4, 1) == -check::inf);
    CHECK(m(4, 2) == 0.0);
    CHECK(m(4, 5) == -check::inf);
}

TEST_CASE("window: W ≥ T is the causal mask, bit for bit", "[masks][property]") {
    const trace causal = run_traced(windowed(7, 8, 2, std::nullopt, true));
    for (const double w : {7.0, 9.0}) {
        CAPTURE(w);
        const trace band = run_traced(windowed(7, 8, 2, w));
        for (int h : {0, 1})
            CHECK(check::compare(weights_of(band, h), weights_of(causal, h), 0).max_diff == 0);
        CHECK(check::compare(band.stages.back().values, causal.stages.back().values, 0).max_diff ==
              0);
    }
}

TEST_CASE("window: W = 1 makes every token attend to itself alone", "[masks][property]") {
    const trace t = run_traced(windowed(5, 8, 2, 1));
    const matrix &w = weights_of(t, 1);
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 5; ++j)
            CHECK(w(i, j) == (i == j ? 1.0 : 0.0));
    // Each head's output row is then its own value row.
    const matrix &v = check::stage_of(t, stage_id::v, 1).values;
    CHECK(check::compare(check::stage_of(t, stage_id::head, 1).values, v, 0).max_diff == 0);
}

TEST_CASE("window: weights outside the band are exactly 0, rows sum to 1, untraced bits equal",
          "[masks][forward]") {
    for (const auto &[t, w] : {std::pair{12.0, 4.0}, {40.0, 7.0}, {600.0, 100.0}}) {
        CAPTURE(t, w);
        const problem p = windowed(t, 8, 2, w);
        const trace traced = run_traced(p);
        const matrix &a = weights_of(traced, 0);
        std::size_t outside = 0;
        for (std::size_t i = 0; i < rows(a); ++i) {
            double total = 0.0;
            for (std::size_t j = 0; j < cols(a); ++j) {
                const bool in_band = j <= i && j + std::size_t(w) > i;
                outside += !in_band && a(i, j) != 0.0;
                total += a(i, j);
            }
            CHECK(std::fabs(total - 1.0) < 1e-12);
        }
        CHECK(outside == 0);
        CHECK(check::compare(forward(p), traced.stages.back().values, 0).max_diff == 0);
        CHECK(trace_value_count(p.config) == recorded_value_count(traced));
    }
}

TEST_CASE("window: bad windows are refused by name", "[masks][validation]") {
    CHECK_THROWS_WITH(windowed(5, 4, 1, 0.0), "window: 0 is out of range [1, 4294967295]");
    CHECK_THROWS_WITH(windowed(5, 4, 1, -3.0), "window: -3 is out of range [1, 4294967295]");
    CHECK_THROWS_WITH(windowed(5, 4, 1, 2.5), "window: 2.5 is not a whole number");
    for (const problem_kind k :
         {problem_kind::cross, problem_kind::encoder_layer, problem_kind::designed}) {
        bool takes = false;
        for (const field_rule &f : spec_fields(k, false).fields)
            takes = takes || std::string(f.name) == "window";
        CHECK_FALSE(takes);
    }
}

TEST_CASE("prefix: the first P see each other, the rest are causal", "[masks][known]") {
    const std::vector<std::pair<std::size_t, std::size_t>> want{
        {0, 3}, {0, 3}, {0, 3}, {0, 4}, {0, 5}};
    CHECK(spans_of(masked(5, 4, 1, {{"prefix", 3.0}})) == want);
    // A prefix of 0 is the causal mask; one of T is no mask at all.
    const trace causal = run_traced(windowed(5, 4, 1, std::nullopt, true));
    const trace none = run_traced(windowed(5, 4, 1, std::nullopt));
    CHECK(check::compare(weights_of(run_traced(masked(5, 4, 1, {{"prefix", 0.0}})), 0),
                         weights_of(causal, 0), 0)
              .max_diff == 0);
    CHECK(check::compare(weights_of(run_traced(masked(5, 4, 1, {{"prefix", 5.0}})), 0),
                         weights_of(none, 0), 0)
              .max_diff == 0);
}

TEST_CASE("documents: causal inside each, nothing across, and one document is causal",
          "[masks][known][property]") {
    const std::vector<std::pair<std::size_t, std::size_t>> want{{0, 1}, {0, 2}, {2, 3},
                                                                {2, 4}, {2, 5}, {5, 6}};
    const problem packed = masked(6, 4, 1, {{"documents", std::vector<double>{2, 3, 1}}});
    CHECK(spans_of(packed) == want);
    const trace t = run_traced(packed);
    CHECK(weights_of(t, 0)(4, 1) == 0.0); // no token reads another document
    CHECK(weights_of(t, 0)(5, 5) == 1.0); // a document of one token attends to itself
    const trace one = run_traced(masked(6, 4, 1, {{"documents", std::vector<double>{6}}}));
    const trace causal = run_traced(windowed(6, 4, 1, std::nullopt, true));
    CHECK(check::compare(weights_of(one, 0), weights_of(causal, 0), 0).max_diff == 0);
    CHECK(check::compare(forward(packed), t.stages.back().values, 0).max_diff == 0);
}

TEST_CASE("prefix and documents: bad values are refused by name", "[masks][validation]") {
    CHECK_THROWS_WITH(masked(5, 4, 1, {{"prefix", 6.0}}), "prefix: 6 is out of range [0, 5]");
    CHECK_THROWS_WITH(masked(5, 4, 1, {{"prefix", -1.0}}), "prefix: -1 is out of range [0, 5]");
    CHECK_THROWS_WITH(masked(5, 4, 1, {{"documents", std::vector<double>{2, 2}}}),
                      "documents: lengths sum to 4 tokens, but there are 5 (seqLen)");
    CHECK_THROWS_WITH(masked(5, 4, 1, {{"documents", std::vector<double>{2, 0, 3}}}),
                      "documents[1]: 0 is out of range [1, 5]");
    CHECK_THROWS_WITH(masked(5, 4, 1, {{"documents", std::vector<double>{2.5, 2.5}}}),
                      "documents[0]: 2.5 is not a whole number");
}

TEST_CASE("window in FlashAttention: tiles outside the band are skipped on both sides",
          "[masks][flash]") {
    // T = 8 in tiles of 2 × 2, W = 3: query block [4, 6) sees keys 2 … 5, so key blocks [0, 2)
    // and [6, 8) are skipped; the tiled result still equals ordinary windowed attention.
    const field_values v{{"seqLen", 8.0},    {"dModel", 8.0},    {"dK", 4.0},    {"dV", 4.0},
                         {"blockRows", 2.0}, {"blockCols", 2.0}, {"window", 3.0}};
    const problem p = problem_of(problem_kind::flash, false, v, true);
    const trace t = run_traced(p);
    std::vector<std::pair<std::size_t, std::size_t>> tiles; // (query block, key block) starts
    for (const stage &s : t.stages)
        if (s.id == stage_id::tile_scores)
            tiles.emplace_back(s.tile->query_begin, s.tile->key_begin);
    const std::vector<std::pair<std::size_t, std::size_t>> want{{0, 0}, {2, 0}, {2, 2}, {4, 2},
                                                                {4, 4}, {6, 4}, {6, 6}};
    CHECK(tiles == want);
    REQUIRE(t.checks.max_difference.has_value());
    CHECK(*t.checks.max_difference <= 1e-12);
    CHECK(trace_value_count(p.config) == recorded_value_count(t));
    for (const stage &s : t.stages) // no tile came out NaN
        for (double x : s.values.get())
            CHECK_FALSE(std::isnan(x));
}

// The hostile review of 2026-12-06, section C: validKeys ending before the first key a window or
// a document lets a query see. Each row of that section is refused, naming validKeys, the rule
// that starts the query's keys, and the least validKeys that leaves every query a key.
TEST_CASE("validKeys before a query's first visible key is refused by name",
          "[masks][validation]") {
    using docs = std::vector<double>;
    const auto self = [](double t, double d, field_values masks) {
        field_values v{{"seqLen", t}, {"dModel", d}, {"numHeads", 1.0}};
        v.merge(masks);
        return v;
    };
    const auto refuses = [](problem_kind kind, bool explicit_matrices, const field_values &v,
                            const std::string &message) {
        CHECK_THROWS_WITH(problem_of(kind, explicit_matrices, v, true), message);
        CHECK_THROWS_WITH(problem_of(kind, explicit_matrices, v, false), message); // forward too
    };
    const std::string doc1_at = "its document, documents[1], starts it at key ";
    // 16: documents [2, 3] with validKeys 2 (T 5, 2 heads): rows 2–4 would see no key.
    refuses(problem_kind::self, false,
            {{"seqLen", 5.0},
             {"dModel", 8.0},
             {"numHeads", 2.0},
             {"seed", 3.0},
             {"documents", docs{2, 3}},
             {"validKeys", 2.0}},
            "validKeys: 2 leaves query 2 no key: " + doc1_at +
                "2, but only keys 0 to 1 are valid; give validKeys of at least 3, or leave it out");
    // 17: a window of 1 over 2 tokens with validKeys 1.
    refuses(problem_kind::self, false, self(2, 2, {{"window", 1.0}, {"validKeys", 1.0}}),
            "validKeys: 1 leaves query 1 no key: window 1 starts it at key 1, but only key 0 is "
            "valid; give validKeys of at least 2, or leave it out");
    // 18 and 19: documents [1, 2] with validKeys 1, self-attention and its backward pass.
    const std::string row_18 = "validKeys: 1 leaves query 1 no key: " + doc1_at +
                               "1, but only key 0 is valid; give validKeys of at least 2, or "
                               "leave it out";
    refuses(problem_kind::self, false, self(3, 2, {{"documents", docs{1, 2}}, {"validKeys", 1.0}}),
            row_18);
    refuses(problem_kind::backward, false,
            self(3, 4, {{"documents", docs{1, 2}}, {"validKeys", 1.0}, {"numHeads", 2.0}}), row_18);
    // 20: explicit matrices, a window of 1 and validKeys 1.
    const row_list i2{{1, 0}, {0, 1}};
    refuses(problem_kind::self, true,
            {{"X", i2},
             {"W_Q", std::vector<row_list>{i2}},
             {"W_K", std::vector<row_list>{i2}},
             {"W_V", std::vector<row_list>{i2}},
             {"window", 1.0},
             {"validKeys", 1.0}},
            "validKeys: 1 leaves query 1 no key: window 1 starts it at key 1, but only key 0 is "
            "valid; give validKeys of at least 2, or leave it out");
    // 21 (and 26, explain's: the same problem is refused before any cell is read).
    const std::string row_21 = "validKeys: 1 leaves query 1 no key: window 1 starts it at key 1, "
                               "but only key 0 is valid; give validKeys of at least 5, or leave it "
                               "out";
    refuses(problem_kind::self, false, self(5, 8, {{"window", 1.0}, {"validKeys", 1.0}}), row_21);
    // 22: documents [3, 2] with validKeys 2: the second document starts at key 3.
    refuses(problem_kind::self, false, self(5, 8, {{"documents", docs{3, 2}}, {"validKeys", 2.0}}),
            "validKeys: 2 leaves query 3 no key: " + doc1_at +
                "3, but only keys 0 to 1 are valid; give validKeys of at least 4, or leave it out");
    // 23: a prefix of 1 and a window of 1 with validKeys 1.
    refuses(problem_kind::self, false,
            self(3, 2, {{"prefix", 1.0}, {"window", 1.0}, {"validKeys", 1.0}}),
            "validKeys: 1 leaves query 1 no key: window 1 starts it at key 1, but only key 0 is "
            "valid; give validKeys of at least 3, or leave it out");
    // 24: causal, a window of 2, validKeys 1 (the review's forward call).
    refuses(problem_kind::self, false,
            self(5, 8, {{"window", 2.0}, {"validKeys", 1.0}, {"causal", true}}),
            "validKeys: 1 leaves query 2 no key: window 2 starts it at key 1, but only key 0 is "
            "valid; give validKeys of at least 4, or leave it out");
    // 25: the backward pass with a window of 1 and validKeys 1.
    refuses(problem_kind::backward, false,
            self(3, 4, {{"window", 1.0}, {"validKeys", 1.0}, {"numHeads", 2.0}}),
            "validKeys: 1 leaves query 1 no key: window 1 starts it at key 1, but only key 0 is "
            "valid; give validKeys of at least 3, or leave it out");
    // A window and a document that start a query's keys at the same key are both named.
    refuses(problem_kind::self, false,
            self(4, 2, {{"documents", docs{2, 2}}, {"window", 1.0}, {"validKeys", 2.0}}),
            "validKeys: 2 leaves query 2 no key: window 1 and its document, documents[1], start "
            "it at key 2, but only keys 0 to 1 are valid; give validKeys of at least 4, or leave "
            "it out");
}

TEST_CASE("validKeys at the least the message names leaves every query a key",
          "[masks][property]") {
    // The edge of each refusal above is accepted: every row of weights sums to 1.
    const std::vector<field_values> edges{
        {{"documents", std::vector<double>{2, 3}}, {"validKeys", 3.0}},
        {{"window", 1.0}, {"validKeys", 5.0}},
        {{"documents", std::vector<double>{3, 2}}, {"validKeys", 4.0}},
        {{"window", 2.0}, {"validKeys", 4.0}, {"causal", true}}};
    for (const field_values &masks : edges) {
        const trace t = run_traced(masked(5, 8, 2, masks));
        for (int h : {0, 1}) {
            const matrix &w = weights_of(t, h);
            for (std::size_t i = 0; i < rows(w); ++i) {
                CAPTURE(h, i);
                double total = 0.0;
                for (std::size_t j = 0; j < cols(w); ++j)
                    total += w(i, j);
                CHECK(std::fabs(total - 1.0) < 1e-12);
            }
        }
    }
}

// M's cell (i, j) under one named rule, written from the rule's definition (not from mask.cpp):
// the conjunction of a stage's terms must be its M, cell for cell.
namespace {
bool allows(const std::string &rule, std::size_t i, std::size_t j, const attention_config &c) {
    if (rule == "causal")
        return j <= i;
    if (rule == "prefix")
        return j <= i || j < *c.prefix;
    if (rule == "window")
        return j + *c.window > i;
    if (rule == "padding")
        return j < *c.valid_keys;
    REQUIRE(rule == "documents");
    std::size_t doc_of_i = 0, doc_of_j = 0, end = 0;
    for (const std::size_t len : c.documents) {
        end += len;
        doc_of_i += i >= end;
        doc_of_j += j >= end;
    }
    return doc_of_i == doc_of_j;
}
} // namespace

TEST_CASE("the masked stage names its rules, and M is their conjunction cell for cell",
          "[masks][terms]") {
    using rules = std::vector<std::string>;
    // Every mask field alone and in pairs (and one triple), with the rules the engine must name.
    const std::vector<std::pair<field_values, rules>> cases{
        {{{"causal", true}}, {"causal"}},
        {{{"window", 3.0}}, {"causal", "window"}},
        {{{"prefix", 3.0}}, {"prefix"}},
        {{{"documents", std::vector<double>{3, 4}}}, {"causal", "documents"}},
        {{{"causal", true}, {"validKeys", 5.0}}, {"causal", "padding"}},
        {{{"window", 2.0}, {"documents", std::vector<double>{4, 3}}},
         {"causal", "window", "documents"}},
        {{{"prefix", 2.0}, {"validKeys", 6.0}}, {"prefix", "padding"}},
        {{{"window", 3.0}, {"validKeys", 6.0}}, {"causal", "window", "padding"}},
        {{{"documents", std::vector<double>{2, 5}}, {"validKeys", 6.0}},
         {"causal", "documents", "padding"}},
        {{{"causal", true}, {"window", 4.0}, {"validKeys", 6.0}}, {"causal", "window", "padding"}},
    };
    for (const auto &[fields, named] : cases) {
        const problem p = masked(7, 8, 2, fields);
        const trace t = run_traced(p);
        for (int h : {0, 1}) {
            const stage &s = check::stage_of(t, stage_id::masked, h);
            CAPTURE(named, h);
            CHECK(s.terms == named);
            const matrix &m = s.operands.at(1).values;
            for (std::size_t i = 0; i < 7; ++i)
                for (std::size_t j = 0; j < 7; ++j) {
                    bool seen = true;
                    for (const std::string &r : s.terms)
                        seen = seen && allows(r, i, j, p.config);
                    CAPTURE(i, j);
                    CHECK(m(i, j) == (seen ? 0.0 : -check::inf));
                }
        }
    }
    // Beside the masked stage, only scaled holds a term here ("scale": ÷√d_k).
    for (const stage &s : run_traced(masked(7, 8, 2, {{"window", 3.0}})).stages)
        CHECK(s.terms == (s.id == stage_id::masked   ? std::vector<std::string>{"causal", "window"}
                          : s.id == stage_id::scaled ? std::vector<std::string>{"scale"}
                                                     : std::vector<std::string>{}));
}

TEST_CASE("add_term: only a term the stage's entry declares", "[masks][terms]") {
    const trace t = run_traced(masked(5, 4, 1, {{"window", 2.0}}));
    stage x = t.stages.front(), m = check::stage_of(t, stage_id::masked, 0);
    CHECK_THROWS_WITH(add_term(x, "causal"),
                      "stage x: term \"causal\" is not declared in its entry");
    CHECK_THROWS_AS(add_term(m, "sinusoidal"), std::logic_error);
    add_term(m, "padding");
    CHECK(m.terms == std::vector<std::string>{"causal", "window", "padding"});
}
