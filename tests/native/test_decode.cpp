// KV-cache decoding: token by token, each step projecting only the new token and reading every
// earlier key and value from the cache, gives one causal forward pass's rows; the cache holds
// every earlier step's k_new and v_new; what the cache costs in bytes and saves in work.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include <xtensor/xview.hpp>

#include "attention/decode.hpp"
#include "attention/engine.hpp"
#include "attention/presets.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;
using check::stage_of;

namespace {

// Seeds × sizes × ± W_O; K/V heads from H (multi-head) down to 1 (multi-query).
std::vector<generated_spec> sweep() {
    // T, D, H, DK, DV, H_kv
    const double shapes[][6] = {{1, 4, 1, 4, 4, 1},  {2, 4, 2, 2, 2, 1}, {5, 16, 4, 4, 4, 2},
                                {6, 12, 4, 3, 5, 1}, {7, 8, 2, 4, 2, 2}, {9, 6, 3, 2, 2, 3},
                                {4, 10, 6, 2, 3, 3}, {12, 8, 8, 2, 2, 4}};
    std::vector<generated_spec> out;
    for (const auto &sh : shapes)
        for (const double seed : {0.0, 42.0, 12345.0})
            for (const bool w_o : {true, false}) {
                generated_spec s = specs::decode(sh[0], sh[1], sh[2], sh[3], sh[4], sh[5], w_o);
                s.seed = seed;
                out.push_back(s);
            }
    return out;
}

// The same weights through one causal forward pass: what decoding must reproduce.
trace causal_run(const problem &p) {
    attention_config c = p.config;
    c.kind = problem_kind::self;
    c.causal = true;
    trace t;
    multi_head_attention(p.params, c, &t);
    return t;
}

matrix row_of(const matrix &m, std::size_t i) {
    return xt::view(m, xt::range(i, i + 1), xt::all());
}

} // namespace

TEST_CASE("decode: the stacked steps equal one causal forward pass", "[decode][property]") {
    for (const generated_spec &s : sweep()) {
        const problem p = make_problem(s);
        INFO("seed " << s.seed << ": " << check::describe(p.config));
        const trace t = run_traced(p);
        // One causal pass, returned whole: (T, D) with W_O, else the heads side by side.
        attention_config c = p.config;
        c.kind = problem_kind::self;
        const matrix want = multi_head_attention(p.params, c);
        const matrix &stacked = stage_of(t, stage_id::stacked).values;
        check::tensor("stacked vs causal", stacked, want, 1e-12);
        check::tensor("causal_reference", stage_of(t, stage_id::causal_reference).values, want, 0);
        check::tensor("forward", forward(p), stacked, 0);
        // checks report the same differences, overall and row by row.
        REQUIRE(t.checks.step_differences.size() == p.config.seq_len);
        double worst = 0;
        for (std::size_t r = 0; r < p.config.seq_len; ++r) {
            double row = 0;
            for (std::size_t j = 0; j < cols(want); ++j)
                row = std::max(row, std::fabs(stacked(r, j) - want(r, j)));
            CHECK(t.checks.step_differences[r] == row);
            worst = std::max(worst, row);
        }
        REQUIRE(t.checks.max_difference.has_value());
        CHECK(*t.checks.max_difference == worst);
        CHECK(worst <= 1e-12);
    }
}

TEST_CASE("decode: step t's cache has t+1 rows, row r being step r's k_new and v_new", "[decode]") {
    for (const generated_spec &s : sweep()) {
        const trace t = run_traced(make_problem(s));
        const attention_config &c = t.config;
        INFO(check::describe(c));
        for (std::size_t g = 0; g < c.num_kv_heads; ++g) {
            const int head = int(g * group_size(c)); // the group's first query head
            for (int step = 0; step < int(c.seq_len); ++step) {
                CAPTURE(g, step);
                const stage &keys = stage_of(t, stage_id::k_cache, head, step);
                const stage &values = stage_of(t, stage_id::v_cache, head, step);
                CHECK(keys.kv_head == int(g));
                REQUIRE(rows(keys.values) == std::size_t(step) + 1);
                REQUIRE(rows(values.values) == std::size_t(step) + 1);
                for (int r = 0; r <= step; ++r) {
                    CAPTURE(r);
                    check::tensor("k_cache row", row_of(keys.values, r),
                                  stage_of(t, stage_id::k_new, head, r).values, 0);
                    check::tensor("v_cache row", row_of(values.values, r),
                                  stage_of(t, stage_id::v_new, head, r).values, 0);
                }
                // Its operands: the cache before this step and the new row appended.
                CHECK(rows(keys.operands.at(0).values) == std::size_t(step));
                check::tensor("k_new operand", keys.operands.at(1).values,
                              stage_of(t, stage_id::k_new, head, step).values, 0);
            }
        }
    }
}

TEST_CASE("decode: step t scores one query against t+1 keys, unmasked", "[decode]") {
    for (const generated_spec &s : sweep()) {
        const trace t = run_traced(make_problem(s));
        INFO(check::describe(t.config));
        for (const stage &st : t.stages) {
            CAPTURE(check::label(st.id, st.head, st.step));
            CHECK(st.id != stage_id::masked); // the cache holds no future key to hide
            if (st.id == stage_id::scores || st.id == stage_id::weights) {
                CHECK(rows(st.values) == 1);
                CHECK(cols(st.values) == std::size_t(st.step) + 1);
            }
        }
    }
}

TEST_CASE("decode: q, k_new and v_new at step t are row t of the causal pass's Q, K, V",
          "[decode]") {
    for (const generated_spec &s : sweep()) {
        const problem p = make_problem(s);
        INFO(check::describe(p.config));
        const trace t = run_traced(p), causal = causal_run(p);
        const std::size_t group = group_size(p.config);
        for (int step = 0; step < int(p.config.seq_len); ++step) {
            CAPTURE(step);
            check::tensor("x_t", stage_of(t, stage_id::x_t, no_head, step).values,
                          row_of(p.params.x, step), 0);
            for (int h = 0; h < int(p.config.num_heads); ++h) {
                CAPTURE(h);
                check::tensor("q", stage_of(t, stage_id::q, h, step).values,
                              row_of(stage_of(causal, stage_id::q, h).values, step), 0);
                if (h % group != 0)
                    continue;
                check::tensor("k_new", stage_of(t, stage_id::k_new, h, step).values,
                              row_of(stage_of(causal, stage_id::k, h).values, step), 0);
                check::tensor("v_new", stage_of(t, stage_id::v_new, h, step).values,
                              row_of(stage_of(causal, stage_id::v, h).values, step), 0);
            }
        }
    }
}

TEST_CASE("decode: the cache holds (t+1)·(d_k+d_v)·H_kv doubles of 8 bytes", "[decode]") {
    for (const generated_spec &s : sweep()) {
        const trace t = run_traced(make_problem(s));
        const attention_config &c = t.config;
        INFO(check::describe(c));
        REQUIRE(t.checks.cache_bytes.size() == c.seq_len);
        for (std::size_t step = 0; step < c.seq_len; ++step)
            CHECK(t.checks.cache_bytes[step] ==
                  double((step + 1) * (c.d_k + c.d_v) * c.num_kv_heads * 8));
    }
    // kv-cache-gqa: d_k = d_v = 4, 2 K/V heads: 8 · 2 · 8 = 128 bytes a token.
    const trace gqa = run_traced(make_problem(preset("kv-cache-gqa")));
    CHECK(gqa.checks.cache_bytes == std::vector<double>{128, 256, 384, 512, 640});
}

TEST_CASE("decode: multiply-adds of each step, by hand", "[decode][known]") {
    // D = 4, H = 2, H_kv = 1, d_k = d_v = 2, T = 3. Per step t, with the cache:
    // q 2·4·2 = 16, k and v of the new token 1·4·(2+2) = 16, scores and weights · V
    // 2·(t+1)·(2+2) = 8(t+1), W_O 2·2·4 = 16: 56, 64, 72. Recomputing K and V of every token
    // multiplies the 16 by t+1: 56, 80, 104. Without W_O, 16 less each.
    for (const bool w_o : {true, false}) {
        CAPTURE(w_o);
        const trace t = run_traced(make_problem(specs::decode(3, 4, 2, 2, 2, 1, w_o)));
        const double less = w_o ? 0 : 16;
        const std::vector<double> cached{56 - less, 64 - less, 72 - less};
        const std::vector<double> recomputed{56 - less, 80 - less, 104 - less};
        CHECK(t.checks.macs_cached == cached);
        CHECK(t.checks.macs_recomputed == recomputed);
        for (std::size_t step = 0; step < 3; ++step) {
            CHECK(decode_macs(t.config, step, true) == cached[step]);
            CHECK(decode_macs(t.config, step, false) == recomputed[step]);
        }
    }
}

TEST_CASE("decode: summed over the steps the cache saves work once T > 1", "[decode][property]") {
    for (const double tokens : {1.0, 2.0, 3.0, 8.0, 17.0})
        for (const double kv_heads : {1.0, 2.0, 4.0}) {
            const problem p = make_problem(specs::decode(tokens, 8, 4, 2, 2, kv_heads));
            INFO(check::describe(p.config));
            double cached = 0, recomputed = 0;
            for (std::size_t step = 0; step < p.config.seq_len; ++step) {
                cached += decode_macs(p.config, step, true);
                recomputed += decode_macs(p.config, step, false);
            }
            if (tokens == 1)
                CHECK(cached == recomputed); // the first token has nothing cached to reuse
            else
                CHECK(cached < recomputed);
        }
}
