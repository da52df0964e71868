// Caller input that must be refused: each bad field throws std::invalid_argument whose
// message names the field, the value and the rule.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "attention/engine.hpp"
#include "attention/explain.hpp"
#include "attention/presets.hpp"
#include "attention/spec.hpp"
#include "attention/validation.hpp"

using namespace attention;
using Catch::Contains;

namespace {

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

generated_spec small() {
    generated_spec s;
    s.seq_len = 3, s.d_model = 4, s.num_heads = 2;
    return s;
}

// A valid explicit spec: T = 2, D = 2, one head with DK = DV = 2, and W_O.
explicit_spec two_by_two() {
    explicit_spec s;
    s.x = {{1, 2}, {3, 4}};
    s.w_q = s.w_k = s.w_v = {{{1, 0}, {0, 1}}};
    s.w_o = row_list{{1, 0}, {0, 1}};
    return s;
}

} // namespace

TEST_CASE("validation: js_number prints numbers as JavaScript does", "[validation]") {
    // The messages quote caller values; the page shows them next to the JS the caller wrote.
    CHECK(js_number(0) == "0");
    CHECK(js_number(-1) == "-1");
    CHECK(js_number(2.5) == "2.5");
    CHECK(js_number(0.1) == "0.1");
    CHECK(js_number(not_a_number) == "NaN");
    CHECK(js_number(inf) == "Infinity");
    CHECK(js_number(-inf) == "-Infinity");
    CHECK(js_number(1025) == "1025");
    CHECK(js_number(4294967296.0) == "4294967296");
    CHECK(js_number(1e21) == "1e+21");
    // JavaScript writes whole numbers below 1e21 in full: String(2000) is "2000", not "2e+03".
    CHECK(js_number(2000) == "2000");
    CHECK(js_number(1e9) == "1000000000");
    CHECK(js_number(2e6) == "2000000");
    CHECK(js_number(-1e20) == "-100000000000000000000");
    CHECK(js_number(1.5e21) == "1.5e+21");
    CHECK(js_number(-0.0) == "0");
    // Small numbers: plain down to 1e-6, exponent form below it (String(1e-7) is "1e-7").
    CHECK(js_number(0.000001) == "0.000001");
    CHECK(js_number(0.000123) == "0.000123");
    CHECK(js_number(1e-7) == "1e-7");
    CHECK(js_number(-2.5e-7) == "-2.5e-7");
    CHECK(js_number(1.23e-18) == "1.23e-18");
    CHECK(js_number(5e-324) == "5e-324");
    CHECK(js_number(1.7976931348623157e308) == "1.7976931348623157e+308");
    CHECK(js_number(0.1 + 0.2) == "0.30000000000000004");
    CHECK(js_number(123.456) == "123.456");
}

TEST_CASE("validation: seqLen must be a whole number in [1, 1024]", "[validation]") {
    generated_spec s = small();
    auto with = [&](double v) {
        s.seq_len = v;
        return s;
    };
    CHECK_THROWS_AS(make_problem(with(0)), std::invalid_argument);
    CHECK_THROWS_WITH(make_problem(with(0)), Contains("seqLen: 0 is out of range [1, 1024]"));
    CHECK_THROWS_WITH(make_problem(with(-1)), Contains("seqLen: -1 is out of range [1, 1024]"));
    CHECK_THROWS_WITH(make_problem(with(2.5)), Contains("seqLen: 2.5 is not a whole number"));
    CHECK_THROWS_WITH(make_problem(with(not_a_number)),
                      Contains("seqLen: NaN is not a finite number"));
    CHECK_THROWS_WITH(make_problem(with(inf)), Contains("seqLen: Infinity is not a finite number"));
    CHECK_THROWS_WITH(make_problem(with(1025)), Contains("seqLen: 1025 is out of range [1, 1024]"));
    CHECK_THROWS_WITH(make_problem(with(1e9)),
                      Contains("seqLen: 1000000000 is out of range [1, 1024]"));
    CHECK_THROWS_WITH(make_problem(with(1e-7)), Contains("seqLen: 1e-7 is not a whole number"));
    CHECK_NOTHROW(make_problem(with(1)));
}

TEST_CASE("validation: dModel, numHeads, dK and dV", "[validation]") {
    generated_spec s = small();
    SECTION("dModel 0 and 1025") {
        s.d_model = 0;
        CHECK_THROWS_WITH(make_problem(s), Contains("dModel: 0 is out of range [1, 1024]"));
        s.d_model = 1025;
        CHECK_THROWS_WITH(make_problem(s), Contains("dModel: 1025 is out of range [1, 1024]"));
    }
    SECTION("numHeads 0, 65 and 3 with dModel 16") {
        s.num_heads = 0;
        CHECK_THROWS_WITH(make_problem(s), Contains("numHeads: 0 is out of range [1, 64]"));
        s.num_heads = 65;
        CHECK_THROWS_WITH(make_problem(s), Contains("numHeads: 65 is out of range [1, 64]"));
        s.d_model = 16, s.num_heads = 3;
        CHECK_THROWS_WITH(make_problem(s), Contains("numHeads: 3 does not divide dModel 16"));
    }
    SECTION("dK and dV out of range or fractional") {
        s.d_k = 0;
        CHECK_THROWS_WITH(make_problem(s), Contains("dK: 0 is out of range [1, 1024]"));
        s.d_k = 1025;
        CHECK_THROWS_WITH(make_problem(s), Contains("dK: 1025 is out of range [1, 1024]"));
        s.d_k = 1.5;
        CHECK_THROWS_WITH(make_problem(s), Contains("dK: 1.5 is not a whole number"));
        s.d_k = 2, s.d_v = 0;
        CHECK_THROWS_WITH(make_problem(s), Contains("dV: 0 is out of range [1, 1024]"));
        s.d_v = 1025;
        CHECK_THROWS_WITH(make_problem(s), Contains("dV: 1025 is out of range [1, 1024]"));
        s.d_v = 1.5;
        CHECK_THROWS_WITH(make_problem(s), Contains("dV: 1.5 is not a whole number"));
        s.d_v = -inf;
        CHECK_THROWS_WITH(make_problem(s), Contains("dV: -Infinity is not a finite number"));
    }
    SECTION("too many weights for the budget") {
        s.d_model = 1024, s.num_heads = 64, s.d_k = 1024, s.d_v = 1024;
        CHECK_THROWS_WITH(make_problem(s),
                          Contains("weights:") && Contains("above the limit 16777216"));
    }
}

TEST_CASE("validation: seed must be a whole number in [0, 2^32 - 1]", "[validation]") {
    generated_spec s = small();
    s.seed = -1;
    CHECK_THROWS_WITH(make_problem(s), Contains("seed: -1 is out of range [0, 4294967295]"));
    s.seed = 4294967296.0;
    CHECK_THROWS_WITH(make_problem(s),
                      Contains("seed: 4294967296 is out of range [0, 4294967295]"));
    s.seed = 0.5;
    CHECK_THROWS_WITH(make_problem(s), Contains("seed: 0.5 is not a whole number"));
    s.seed = not_a_number;
    CHECK_THROWS_WITH(make_problem(s), Contains("seed: NaN is not a finite number"));
    s.seed = 4294967295.0;
    CHECK_NOTHROW(make_problem(s));
}

TEST_CASE("validation: unknown preset names the known ones", "[validation]") {
    CHECK_THROWS_AS(preset("lesson-nope"), std::invalid_argument);
    CHECK_THROWS_WITH(preset("lesson-nope"), Contains("preset: \"lesson-nope\" is not one of") &&
                                                 Contains("lesson-self-attention") &&
                                                 Contains("lesson-multi-head") &&
                                                 Contains("lesson-causal"));
    CHECK_THROWS_AS(preset(""), std::invalid_argument);
}

TEST_CASE("validation: explicit X must be a non-empty rectangle of finite, bounded numbers",
          "[validation]") {
    explicit_spec s = two_by_two();
    REQUIRE_NOTHROW(make_problem(s));
    SECTION("empty") {
        s.x = {};
        CHECK_THROWS_WITH(make_problem(s), Contains("X: needs at least one row and one column"));
        s.x = {{}};
        CHECK_THROWS_WITH(make_problem(s), Contains("X: needs at least one row and one column"));
    }
    SECTION("ragged") {
        s.x = {{1, 2}, {3}};
        CHECK_THROWS_WITH(make_problem(s), Contains("X: row 1 has 1 values but row 0 has 2"));
    }
    SECTION("NaN, Infinity, -Infinity") {
        s.x = {{1, not_a_number}, {3, 4}};
        CHECK_THROWS_WITH(make_problem(s), Contains("X[0][1]: NaN is not a finite number"));
        s.x = {{1, 2}, {inf, 4}};
        CHECK_THROWS_WITH(make_problem(s), Contains("X[1][0]: Infinity is not a finite number"));
        s.x = {{1, 2}, {3, -inf}};
        CHECK_THROWS_WITH(make_problem(s), Contains("X[1][1]: -Infinity is not a finite number"));
    }
    SECTION("|v| > 1e6") {
        s.x = {{1, 2}, {3, 1000001}};
        CHECK_THROWS_WITH(make_problem(s), Contains("X[1][1]: 1000001 is outside [-1e6, 1e6]"));
        s.x = {{-1000000.5, 2}, {3, 4}};
        CHECK_THROWS_WITH(make_problem(s), Contains("X[0][0]: -1000000.5 is outside [-1e6, 1e6]"));
        s.x = {{1e6, -1e6}, {3, 4}};
        CHECK_NOTHROW(make_problem(s));
    }
    SECTION("more than 1024 rows") {
        s.x = row_list(1025, {1, 2});
        CHECK_THROWS_WITH(make_problem(s), Contains("X: 1025 rows, more than the limit 1024"));
    }
}

TEST_CASE("validation: explicit weights must match X and each other", "[validation]") {
    explicit_spec s = two_by_two();
    SECTION("W_Q with no matrices") {
        s.w_q = {};
        CHECK_THROWS_WITH(make_problem(s), Contains("W_Q: 0 matrices"));
    }
    SECTION("W_K more than W_Q, and W_V a count other than W_K's") {
        s.w_k.push_back(s.w_k[0]);
        CHECK_THROWS_WITH(make_problem(s),
                          Contains("W_K: 2 matrices; give one per K/V head, a number that divides "
                                   "W_Q's 1"));
        s = two_by_two();
        s.w_v = {};
        CHECK_THROWS_WITH(make_problem(s), Contains("W_V: 0 matrices, but W_K has 1 (one W_K and "
                                                    "one W_V per K/V head)"));
    }
    SECTION("W_Q rows differ from X's columns") {
        s.w_q = {{{1, 0}, {0, 1}, {1, 1}}};
        CHECK_THROWS_WITH(make_problem(s), Contains("W_Q[0]: shape (3, 2) should be (2, 2)"));
    }
    SECTION("W_K's d_k differs from W_Q's") {
        s.w_k = {{{1, 0, 0}, {0, 1, 0}}};
        CHECK_THROWS_WITH(make_problem(s), Contains("W_K[0]: shape (2, 3) should be (2, 2)"));
    }
    SECTION("a second head of another width") {
        s.w_q = {{{1, 0}, {0, 1}}, {{1}, {0}}};
        s.w_k = s.w_v = {{{1, 0}, {0, 1}}, {{1, 0}, {0, 1}}};
        CHECK_THROWS_WITH(make_problem(s),
                          Contains("W_Q[1]: shape (2, 1) should be (2, 2) (d_model = 2 rows like "
                                   "X's columns, 2 columns like W_Q[0])"));
    }
    SECTION("NaN and ragged rows inside a weight") {
        s.w_v = {{{1, 0}, {0, not_a_number}}};
        CHECK_THROWS_WITH(make_problem(s), Contains("W_V[0][1][1]: NaN is not a finite number"));
        s = two_by_two();
        s.w_k = {{{1, 0}, {0}}};
        CHECK_THROWS_WITH(make_problem(s), Contains("W_K[0]: row 1 has 1 values but row 0 has 2"));
        s = two_by_two();
        s.w_v = {{{1, 0}, {0}}};
        CHECK_THROWS_WITH(make_problem(s), Contains("W_V[0]: row 1 has 1 values but row 0 has 2"));
    }
    SECTION("validKeys past X's rows") {
        s.valid_keys = 5;
        CHECK_THROWS_WITH(make_problem(s), Contains("validKeys: 5 is out of range [1, 2]"));
    }
    SECTION("W_O of the wrong shape") {
        s.w_o = row_list{{1, 0, 0}, {0, 1, 0}};
        CHECK_THROWS_WITH(make_problem(s), Contains("W_O: shape (2, 3) should be (2, 2)"));
        s.w_o = row_list{{1, 0}};
        CHECK_THROWS_WITH(make_problem(s), Contains("W_O: shape (1, 2) should be (2, 2)"));
        s.w_o = row_list{{1, inf}, {0, 1}};
        CHECK_THROWS_WITH(make_problem(s), Contains("W_O[0][1]: Infinity is not a finite number"));
    }
}

TEST_CASE("validation: the trace budget refuses run_traced but not forward",
          "[validation][budget]") {
    // GPT-2 small's attention at full context: 12 heads of 1024 × 1024 scores and more.
    generated_spec s;
    s.seq_len = 1024, s.d_model = 768, s.num_heads = 12;
    const problem p = make_problem(s);
    CAPTURE(trace_value_count(p.config));
    CHECK(trace_value_count(p.config) > limits::max_trace_values);
    CHECK_THROWS_WITH(check_trace_budget(p.config),
                      Contains("trace: 1024 tokens and 12 heads need"));
    CHECK_THROWS_WITH(run_traced(p), Contains("above the trace budget of 16777216"));
    const matrix out = forward(p);
    CHECK(rows(out) == 1024);
    CHECK(cols(out) == 768);
    std::size_t non_finite = 0;
    for (double v : out)
        non_finite += !std::isfinite(v);
    CHECK(non_finite == 0);
}

TEST_CASE("validation: explain_cell refuses missing stages and cells", "[validation][explain]") {
    const trace t = run_traced(make_problem(preset("lesson-multi-head")));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::masked, 0, 0, 0),
                      Contains("stage: no stage \"masked\" for head 0"));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::norm1, no_head, 0, 0),
                      Contains("stage: no stage \"norm1\""));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::q, 4, 0, 0), Contains("for head 4"));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::q, no_head, 0, 0),
                      Contains("stage: no stage \"q\""));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::output, 0, 0, 0),
                      Contains("stage: no stage \"output\" for head 0"));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::q, 1, 5, 0),
                      Contains("cell: (5, 0) is outside q's shape (5, 4)"));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::q, 1, 0, 4),
                      Contains("cell: (0, 4) is outside q's shape (5, 4)"));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::output, no_head, 0, 16),
                      Contains("outside output's shape (5, 16)"));
    CHECK_THROWS_AS(explain_cell(t, stage_id::weights, 3, 99, 99), std::invalid_argument);
}

TEST_CASE("validation: explain_cell finds a group's k under its first query head",
          "[validation][explain][gqa]") {
    // gqa-4-2: K/V head 1 is projected when query head 2 first needs it.
    const trace t = run_traced(make_problem(preset("gqa-4-2")));
    CHECK_NOTHROW(explain_cell(t, stage_id::k, 2, 0, 0));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::k, 1, 0, 0),
                      Contains("stage: no stage \"k\" for head 1"));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::v, 3, 0, 0),
                      Contains("stage: no stage \"v\" for head 3"));
}
