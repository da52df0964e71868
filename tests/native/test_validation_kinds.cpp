// The fields of the new kinds, refused by name and rule: numKvHeads, queryLen / keyLen,
// validKeys, dFF, skip, blockRows / blockCols; head sizes when dModel does not split; explicit
// cross and GQA shapes; what decoding and tiling fix (causal, one head); steps in explain_cell.
#include <catch2/catch.hpp>

#include <limits>
#include <stdexcept>

#include "attention/engine.hpp"
#include "attention/explain.hpp"
#include "attention/presets.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;
using Catch::Contains;

namespace {

// A valid explicit cross spec: 2 queries, 3 keys, D = 2, one head of DK = DV = 2.
explicit_spec cross_2x3() {
    explicit_spec s;
    s.kind = problem_kind::cross;
    s.x = {{1, 0}, {0, 1}};
    s.x_kv = {{1, 0}, {0, 1}, {1, 1}};
    s.w_q = s.w_k = s.w_v = {{{1, 0}, {0, 1}}};
    return s;
}

// A valid explicit self spec with 4 query heads and 2 K/V heads of width 1.
explicit_spec grouped() {
    explicit_spec s;
    s.x = {{1, 0}, {0, 1}};
    s.w_q = std::vector<row_list>(4, row_list{{1}, {0}});
    s.w_k = s.w_v = std::vector<row_list>(2, row_list{{0}, {1}});
    return s;
}

} // namespace

TEST_CASE("validation kinds: numKvHeads divides numHeads and is at most numHeads",
          "[validation][gqa]") {
    generated_spec s = specs::self(3, 8, 4, 2, 2);
    auto with = [&](double v) {
        s.num_kv_heads = v;
        return s;
    };
    CHECK_THROWS_WITH(make_problem(with(3)),
                      Contains("numKvHeads: 3 does not divide numHeads 4 (each K/V head serves a "
                               "whole group of query heads)"));
    CHECK_THROWS_WITH(make_problem(with(8)), Contains("numKvHeads: 8 is out of range [1, 4]"));
    CHECK_THROWS_WITH(make_problem(with(0)), Contains("numKvHeads: 0 is out of range [1, 4]"));
    CHECK_THROWS_WITH(make_problem(with(1.5)), Contains("numKvHeads: 1.5 is not a whole number"));
    for (const double ok : {1.0, 2.0, 4.0})
        CHECK(make_problem(with(ok)).config.num_kv_heads == std::size_t(ok));
}

TEST_CASE("validation kinds: queryLen, keyLen and validKeys", "[validation][cross]") {
    generated_spec s = specs::cross(2, 4, 8, 2, 4, 4);
    s.seq_len = 0;
    CHECK_THROWS_WITH(make_problem(s), Contains("queryLen: 0 is out of range [1, 1024]"));
    s = specs::cross(2, 1025, 8, 2, 4, 4);
    CHECK_THROWS_WITH(make_problem(s), Contains("keyLen: 1025 is out of range [1, 1024]"));
    s = specs::cross(2, 4, 8, 2, 4, 4, 0);
    CHECK_THROWS_WITH(make_problem(s), Contains("validKeys: 0 is out of range [1, 4]"));
    s.valid_keys = 5;
    CHECK_THROWS_WITH(make_problem(s), Contains("validKeys: 5 is out of range [1, 4]"));
    s.valid_keys = 2.5;
    CHECK_THROWS_WITH(make_problem(s), Contains("validKeys: 2.5 is not a whole number"));
    s.valid_keys = 4;
    CHECK(make_problem(s).config.valid_keys == std::optional<std::size_t>(4));
}

TEST_CASE("validation kinds: dFF is a whole number in [1, 4096] within the weight budget",
          "[validation][encoder]") {
    generated_spec s = specs::encoder(2, 8, 2, 0);
    CHECK_THROWS_WITH(make_problem(s), Contains("dFF: 0 is out of range [1, 4096]"));
    s.d_ff = 4097;
    CHECK_THROWS_WITH(make_problem(s), Contains("dFF: 4097 is out of range [1, 4096]"));
    s.d_ff = 1e9;
    CHECK_THROWS_WITH(make_problem(s), Contains("dFF: 1000000000 is out of range [1, 4096]"));
    s.d_ff = 7.5;
    CHECK_THROWS_WITH(make_problem(s), Contains("dFF: 7.5 is not a whole number"));
    // D = 1024, 2 heads of 1024, DFF = 4096: attention 4 · 2 · 1024² = 8,388,608 weights (fine
    // alone), plus W1, W2 2 · 1024 · 4096 = 8,388,608 and b1, b2 5,120: 16,782,336 > 2²⁴.
    s = specs::encoder(1, 1024, 2, 4096);
    s.d_k = s.d_v = 1024;
    CHECK_THROWS_WITH(make_problem(s),
                      Contains("weights: 16782336 values") && Contains("above the limit 16777216"));
    generated_spec attention_only = specs::self(1, 1024, 2, 1024, 1024);
    CHECK_NOTHROW(make_problem(attention_only));
}

TEST_CASE("validation kinds: skip is a whole number in [0, 2^24]", "[validation]") {
    generated_spec s = specs::self(2, 4, 1, 2, 2);
    s.skip = -1;
    CHECK_THROWS_WITH(make_problem(s), Contains("skip: -1 is out of range [0, 16777216]"));
    s.skip = 1.5;
    CHECK_THROWS_WITH(make_problem(s), Contains("skip: 1.5 is not a whole number"));
    s.skip = 16777217;
    CHECK_THROWS_WITH(make_problem(s), Contains("skip: 16777217 is out of range [0, 16777216]"));
    s.skip = 3;
    CHECK_NOTHROW(make_problem(s));
}

TEST_CASE("validation kinds: dModel must split into heads only when dK or dV is missing",
          "[validation]") {
    generated_spec s = specs::self(2, 16, 3, 5, 4);
    const problem given = make_problem(s); // both given: 16 / 3 never needed
    CHECK(given.config.d_k == 5);
    CHECK(given.config.d_v == 4);
    const char *rule = "numHeads: 3 does not divide dModel 16; give dK and dV";
    s.d_v.reset();
    CHECK_THROWS_WITH(make_problem(s), Contains(rule));
    s.d_v = 4, s.d_k.reset();
    CHECK_THROWS_WITH(make_problem(s), Contains(rule));
    s.d_v.reset();
    CHECK_THROWS_WITH(make_problem(s), Contains(rule));
}

TEST_CASE("validation kinds: explicit W_K and W_V counts for grouped heads", "[validation][gqa]") {
    explicit_spec s = grouped();
    CHECK(make_problem(s).config.num_kv_heads == 2);
    s.w_k = s.w_v = std::vector<row_list>(3, row_list{{0}, {1}});
    CHECK_THROWS_WITH(make_problem(s),
                      Contains("W_K: 3 matrices; give one per K/V head, a number that divides "
                               "W_Q's 4 (as many as W_Q for multi-head, 1 for multi-query)"));
    s.w_k = s.w_v = std::vector<row_list>(8, row_list{{0}, {1}});
    CHECK_THROWS_WITH(make_problem(s), Contains("W_K: 8 matrices; give one per K/V head"));
    s.w_k = s.w_v = {};
    CHECK_THROWS_WITH(make_problem(s), Contains("W_K: 0 matrices; give one per K/V head"));
    s = grouped();
    s.w_v.pop_back();
    CHECK_THROWS_WITH(make_problem(s), Contains("W_V: 1 matrices, but W_K has 2 (one W_K and one "
                                                "W_V per K/V head)"));
    s = grouped();
    s.w_v[1] = {{0, 1}, {1, 0}};
    CHECK_THROWS_WITH(make_problem(s),
                      Contains("W_V[1]: shape (2, 2) should be (2, 1)") && Contains("like W_V[0]"));
}

TEST_CASE("validation kinds: explicit cross shapes", "[validation][cross]") {
    explicit_spec s = cross_2x3();
    const problem p = make_problem(s);
    CHECK(p.config.seq_len == 2);
    CHECK(p.config.kv_len == 3);
    s.x_kv = {{1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    CHECK_THROWS_WITH(
        make_problem(s),
        Contains("X_kv: shape (3, 3) should be (3, 2) (d_model = 2 columns like X_q)"));
    s = cross_2x3();
    s.x_kv = {};
    CHECK_THROWS_WITH(make_problem(s), Contains("X_kv: needs at least one row and one column"));
    s = cross_2x3();
    s.x = {{1, 0}, {0}};
    CHECK_THROWS_WITH(make_problem(s), Contains("X_q: row 1 has 1 values but row 0 has 2"));
    s = cross_2x3();
    s.valid_keys = 4;
    CHECK_THROWS_WITH(make_problem(s), Contains("validKeys: 4 is out of range [1, 3]"));
    s.valid_keys = 0;
    CHECK_THROWS_WITH(make_problem(s), Contains("validKeys: 0 is out of range [1, 3]"));
}

TEST_CASE("validation kinds: blockRows and blockCols are whole numbers in [1, seqLen]",
          "[validation][flash]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const bool rows_field : {true, false}) {
        const char *name = rows_field ? "blockRows" : "blockCols";
        CAPTURE(name);
        auto with = [&](double v) {
            generated_spec s = specs::flash(5, 8, 4, 4, 2, 2);
            (rows_field ? s.block_rows : s.block_cols) = v;
            return s;
        };
        const std::string field = std::string(name) + ": ";
        CHECK_THROWS_WITH(make_problem(with(0)), Contains(field + "0 is out of range [1, 5]"));
        CHECK_THROWS_WITH(make_problem(with(6)), Contains(field + "6 is out of range [1, 5]"));
        CHECK_THROWS_WITH(make_problem(with(-2)), Contains(field + "-2 is out of range [1, 5]"));
        CHECK_THROWS_WITH(make_problem(with(1.5)), Contains(field + "1.5 is not a whole number"));
        CHECK_THROWS_WITH(make_problem(with(nan)), Contains(field + "NaN is not a finite number"));
        const problem whole = make_problem(with(5)); // one tile may span every token
        CHECK((rows_field ? whole.config.block_rows : whole.config.block_cols) == 5);
    }
    generated_spec other = specs::self(5, 8, 1, 4, 4);
    other.block_rows = other.block_cols = 0; // only flash reads them
    CHECK(make_problem(other).config.block_rows == 0);
}

TEST_CASE("validation kinds: decoding is causal, flash has one head and no W_O",
          "[validation][decode][flash]") {
    generated_spec decode = specs::decode(3, 8, 2, 4, 4);
    decode.causal = false;
    const problem d = make_problem(decode);
    CHECK(d.config.causal);
    CHECK(d.config.output_projection);
    CHECK(d.params.w_o.size() == 64); // W_O: (H·DV, D) = (8, 8)
    generated_spec flash = specs::flash(3, 8, 4, 4, 1, 1);
    flash.output_projection = true;
    const problem f = make_problem(flash);
    CHECK_FALSE(f.config.output_projection);
    CHECK(f.config.num_heads == 1);
    CHECK(f.params.w_o.size() == 0);
    CHECK(f.params.w_q.size() == 1);
}

TEST_CASE("validation kinds: explain_cell needs the step of a stepped stage",
          "[validation][explain][decode][flash]") {
    const trace t = run_traced(make_problem(preset("kv-cache-gqa")));
    CHECK_NOTHROW(explain_cell(t, stage_id::k_cache, 0, 2, 3, 2));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::k_cache, 0, 0, 0),
                      Contains("stage: no stage \"k_cache\" for head 0 in this trace"));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::k_cache, 0, 0, 0, 5),
                      Contains("stage: no stage \"k_cache\" for head 0 at step 5 in this trace"));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::k_cache, 1, 0, 0, 0),
                      Contains("no stage \"k_cache\" for head 1 at step 0")); // group of head 0
    CHECK_THROWS_WITH(explain_cell(t, stage_id::k_cache, 0, 3, 0, 2),
                      Contains("cell: (3, 0) is outside k_cache's shape (3, 4)"));
    CHECK_THROWS_WITH(explain_cell(t, stage_id::stacked, no_head, 0, 0, 0),
                      Contains("no stage \"stacked\" for head -1 at step 0"));
    const trace flash = run_traced(make_problem(preset("flash-causal")));
    CHECK_NOTHROW(explain_cell(flash, stage_id::tile_out, 0, 0, 3, 5));
    CHECK_THROWS_WITH(explain_cell(flash, stage_id::tile_out, 0, 0, 0, 6),
                      Contains("no stage \"tile_out\" for head 0 at step 6"));
    CHECK_THROWS_WITH(explain_cell(flash, stage_id::block_out, 0, 0, 0, 1),
                      Contains("no stage \"block_out\" for head 0 at step 1")); // not a block's end
    const trace plain = run_traced(make_problem(preset("lesson-multi-head")));
    CHECK_THROWS_WITH(explain_cell(plain, stage_id::q, 0, 0, 0, 0),
                      Contains("no stage \"q\" for head 0 at step 0"));
}
