// Numerics at the edges: logits of ±1e300, rows of weights with every key masked (impossible
// through a spec; the closest real rows), T = 1, d_k = 1 and d_model = 1, denormal weights and
// inputs. Every value stays finite (−∞ only where a mask hides a key), and the math's exact
// answers (one-hot and uniform weights, zero scores, zero layer norms) come out exactly.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <xtensor/xview.hpp>

#include "attention/attention.hpp"
#include "attention/engine.hpp"
#include "attention/mask.hpp"
#include "attention/spec.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;
using check::inf;

namespace {

// Where a trace may hold −∞: the masked logits, the mask M, FlashAttention's tile scores, and
// its running max m before a row's first key (the online softmax starts from m = −∞).
bool may_hide(const std::string &name) {
    return name == "masked" || name == "M" || name == "tile_scores" || name == "m";
}

// Every value of every stage and operand is finite, or −∞ where a mask hides a key.
void check_finite(const trace &t) {
    INFO(check::describe(t.config));
    const auto bad_in = [](const matrix &m, bool hides) {
        std::size_t bad = 0;
        for (double v : m)
            bad += !(std::isfinite(v) || (hides && v == -inf));
        return bad;
    };
    for (const stage &s : t.stages) {
        INFO(check::label(s.id, s.head, s.step));
        CHECK(bad_in(s.values, may_hide(name_of(s.id))) == 0);
        for (const operand &o : s.operands) {
            INFO("operand " << o.name << "/" << o.head);
            CHECK(bad_in(o.values, may_hide(o.name)) == 0);
        }
    }
}

attention_config one_feature(std::size_t t, bool causal, bool w_o) {
    attention_config c;
    c.seq_len = c.kv_len = t;
    c.d_model = c.num_heads = c.num_kv_heads = c.d_k = c.d_v = 1;
    c.causal = causal, c.output_projection = w_o;
    return c;
}

// The weights stages of a trace.
std::vector<const stage *> weights_of(const trace &t) {
    std::vector<const stage *> out;
    for (const stage &s : t.stages)
        if (s.id == stage_id::weights)
            out.push_back(&s);
    return out;
}

// Powers of two, so that products are exact: 2^498 · 2^499 = 2^997 ≈ 1.34e300.
const double w498 = std::ldexp(1.0, 498), w499 = std::ldexp(1.0, 499), big = w498 * w499;

std::size_t count_subnormal(const matrix &m) {
    std::size_t n = 0;
    for (double v : m)
        n += std::fpclassify(v) == FP_SUBNORMAL;
    return n;
}

} // namespace

TEST_CASE("edges: logits of +-1e300 give exact one-hot weights and finite outputs", "[edges]") {
    // d_k = 1 and x · 2^498 · 2^499: S_ij = x_i · x_j · 2^997 (±1.3e300). Each row's largest
    // logit beats the next by ≥ 3e299, so exp(S − max) is exactly 1 there and exactly 0
    // elsewhere. (No spec reaches these: explicit entries are capped at ±1e6, so |logits| stay
    // below ~1e33; tests/wasm/edges.test.mjs goes as far as that allows.)
    const matrix x = check::m({{1}, {-1}, {0.5}});
    for (const bool causal : {false, true}) {
        CAPTURE(causal);
        attention_params p{x,
                           {},
                           {check::m({{w498}})},
                           {check::m({{w499}})},
                           {check::m({{1}})},
                           check::m({{big}})};
        trace t;
        t.config = one_feature(3, causal, true);
        const matrix out = multi_head_attention(p, t.config, &t);
        check_finite(t);
        const matrix scores = big * check::m({{1, -1, 0.5}, {-1, 1, -0.5}, {0.5, -0.5, 0.25}});
        check::tensor("scores", check::stage_of(t, stage_id::scores, 0).values, scores, 0);
        check::tensor("scaled (d_k = 1)", check::stage_of(t, stage_id::scaled, 0).values, scores,
                      0);
        // Causal or not, the largest visible logit of each row is the same key.
        check::tensor("weights", check::stage_of(t, stage_id::weights, 0).values,
                      check::m({{1, 0, 0}, {0, 1, 0}, {1, 0, 0}}), 0);
        check::tensor("head", check::stage_of(t, stage_id::head, 0).values,
                      check::m({{1}, {-1}, {1}}), 0);
        check::tensor("output", out, check::m({{big}, {-big}, {big}}), 0);
    }
}

TEST_CASE("edges: a row of equal -1e300 logits gives exactly uniform weights", "[edges]") {
    attention_params p{check::m({{1}, {1}}), {}, {check::m({{w498}})}, {check::m({{-w499}})},
                       {check::m({{3}})},    {}};
    trace t;
    t.config = one_feature(2, false, false);
    multi_head_attention(p, t.config, &t);
    check_finite(t);
    check::tensor("scores", check::stage_of(t, stage_id::scores, 0).values,
                  -big * check::m({{1, 1}, {1, 1}}), 0);
    check::tensor("weights", check::stage_of(t, stage_id::weights, 0).values,
                  check::m({{0.5, 0.5}, {0.5, 0.5}}), 0);
    check::tensor("head", check::stage_of(t, stage_id::head, 0).values, check::m({{3}, {3}}), 0);
}

TEST_CASE("edges: no row can have every key masked: key 0 is visible to every query", "[edges]") {
    // Causal hides j > i ≥ 0 and padding hides j ≥ validKeys ≥ 1, so column 0 of every mask is
    // 0, even for the causal + padding mix no spec can ask for. A fully masked row (softmax of
    // all −∞, 0/0) is therefore impossible by construction; validKeys 0 is refused by name.
    SECTION("validKeys 0 is refused, generated and explicit") {
        CHECK_THROWS_WITH(make_problem(specs::cross(2, 3, 8, 2, 4, 4, 0)),
                          "validKeys: 0 is out of range [1, 3]");
        explicit_spec s;
        s.kind = problem_kind::cross;
        s.x = {{1, 0}, {0, 1}};
        s.x_kv = {{1, 0}, {0, 1}, {1, 1}};
        s.w_q = s.w_k = s.w_v = {{{1, 0}, {0, 1}}};
        s.valid_keys = 0;
        CHECK_THROWS_WITH(make_problem(s), "validKeys: 0 is out of range [1, 3]");
    }
    SECTION("column 0 of every mask is 0") {
        for (std::size_t t = 1; t <= 6; ++t)
            for (std::size_t tkv = 1; tkv <= 6; ++tkv)
                for (std::size_t valid = 1; valid <= tkv; ++valid) {
                    attention_config c;
                    c.seq_len = t, c.kv_len = tkv, c.causal = true, c.valid_keys = valid;
                    const matrix m = attention_mask(c);
                    CAPTURE(t, tkv, valid);
                    for (std::size_t i = 0; i < t; ++i)
                        CHECK(m(i, 0) == 0.0);
                }
    }
}

TEST_CASE("edges: the closest rows to fully masked ones are exact one-hots", "[edges]") {
    SECTION("validKeys = 1: every query puts exactly 1 on key 0 and reads V's row 0") {
        const trace t = run_traced(make_problem(specs::cross(3, 4, 8, 2, 4, 4, 1)));
        check_finite(t);
        for (const stage *w : weights_of(t)) {
            INFO("weights/" << w->head);
            matrix one_hot = xt::zeros<double>({std::size_t(3), std::size_t(4)});
            xt::view(one_hot, xt::all(), 0) = 1.0;
            check::tensor("weights", w->values, one_hot, 0);
            const stage &head = check::stage_of(t, stage_id::head, w->head);
            const matrix &v = check::operand_of(head, "V", w->head);
            for (std::size_t i = 0; i < 3; ++i)
                for (std::size_t j = 0; j < cols(v); ++j)
                    CHECK(head.values(i, j) == v(0, j));
        }
    }
    SECTION("causal row 0 sees key 0 alone") {
        const trace t = run_traced(make_problem(specs::self(4, 8, 2, 4, 4, true)));
        check_finite(t);
        for (const stage *w : weights_of(t)) {
            INFO("weights/" << w->head);
            check::tensor("row 0", xt::view(w->values.get(), xt::range(0, 1), xt::all()),
                          check::m({{1, 0, 0, 0}}), 0);
            const stage &head = check::stage_of(t, stage_id::head, w->head);
            const matrix &v = check::operand_of(head, "V", w->head);
            check::tensor("head row 0", xt::view(head.values.get(), xt::range(0, 1), xt::all()),
                          xt::view(v, xt::range(0, 1), xt::all()), 0);
        }
    }
}

TEST_CASE("edges: a FlashAttention tile row that sees no key keeps m, l and O exactly", "[edges]") {
    // One block of 4 queries against key tiles of 1 under the causal mask: in tile j, rows i < j
    // see no key. Their scores are all −∞; the online softmax must leave them as they were
    // (α = 1, P = 0), not turn them into NaN.
    for (const double b_r : {4.0, 3.0, 2.0}) {
        CAPTURE(b_r);
        const trace t = run_traced(make_problem(specs::flash(4, 6, 3, 2, b_r, 1, true)));
        check_finite(t);
        std::size_t hidden_rows = 0;
        for (const stage &s : t.stages) {
            if (s.id != stage_id::tile_out)
                continue;
            INFO(check::label(s.id, s.head, s.step));
            const stage &sum = check::stage_of(t, stage_id::tile_sum, s.head, s.step);
            const stage &max = check::stage_of(t, stage_id::tile_max, s.head, s.step);
            const stage &scores = check::stage_of(t, stage_id::tile_scores, s.head, s.step);
            const std::size_t key = s.tile->key_begin;
            for (std::size_t r = 0; r < rows(s.values); ++r) {
                if (s.tile->query_begin + r >= key)
                    continue; // this row sees the tile's key
                ++hidden_rows;
                CAPTURE(r);
                CHECK(scores.values(r, 0) == -inf);
                CHECK(max.values(r, 0) == check::operand_of(max, "m", 0)(r, 0));
                CHECK(check::operand_of(sum, "α", 0)(r, 0) == 1.0);
                CHECK(check::operand_of(sum, "P", 0)(r, 0) == 0.0);
                CHECK(sum.values(r, 0) == check::operand_of(sum, "l", 0)(r, 0));
                const matrix &before = check::operand_of(s, "O", 0);
                for (std::size_t j = 0; j < cols(s.values); ++j)
                    CHECK(s.values(r, j) == before(r, j));
            }
        }
        CHECK(hidden_rows > 0);
        REQUIRE(t.checks.max_difference);
        CHECK(*t.checks.max_difference <= 1e-12);
    }
}

TEST_CASE("edges: T = 1 in every kind: weights exactly 1, the value row passes through",
          "[edges]") {
    for (const generated_spec &s :
         {specs::self(1, 4, 2, 2, 2), specs::self(1, 4, 2, 2, 2, true),
          specs::self(1, 4, 4, 1, 1, false, true, 1), specs::cross(1, 1, 4, 2, 2, 2, 1),
          specs::cross(1, 3, 4, 2, 2, 2, 1), specs::encoder(1, 4, 2, 8),
          specs::encoder(1, 4, 2, 8, true), specs::decode(1, 4, 2, 2, 2),
          specs::flash(1, 4, 2, 2, 1, 1), specs::flash(1, 4, 2, 2, 1, 1, true),
          specs::designed({"solo"})}) {
        const problem p = make_problem(s, true);
        const trace t = run_traced(p);
        INFO(check::describe(t.config));
        check_finite(t);
        for (const stage *w : weights_of(t)) {
            INFO("weights/" << w->head);
            CHECK(w->values(0, 0) == 1.0);
            const stage &head = check::stage_of(t, stage_id::head, w->head, w->step);
            const matrix &v = check::operand_of(head, "V", head.operands[1].head);
            check::tensor("head", head.values, xt::view(v, xt::range(0, 1), xt::all()), 0);
        }
        if (t.checks.max_difference) // decoding and tiling: one row, the same numbers both ways
            CHECK(*t.checks.max_difference == 0.0);
        const matrix out = forward(p);
        for (double v : out)
            CHECK(std::isfinite(v));
    }
}

TEST_CASE("edges: d_k = 1 divides by exactly 1, d_model = 1 layer norms are exactly 0", "[edges]") {
    SECTION("scaled equals scores bit for bit") {
        for (const generated_spec &s :
             {specs::self(5, 4, 4, 1, 1), specs::self(3, 1, 1, 1, 1, true),
              specs::cross(2, 3, 4, 4, 1, 1, 2)}) {
            const trace t = run_traced(make_problem(s));
            INFO(check::describe(t.config));
            check_finite(t);
            for (const stage &st : t.stages)
                if (st.id == stage_id::scaled)
                    check::tensor("scaled", st.values,
                                  check::stage_of(t, stage_id::scores, st.head).values, 0);
        }
    }
    SECTION("one feature: x − mean is 0, so both layer norms are exactly 0 and ffn_pre is b1") {
        const trace t = run_traced(make_problem(specs::encoder(3, 1, 1, 4)));
        check_finite(t);
        const matrix zeros = xt::zeros<double>({std::size_t(3), std::size_t(1)});
        check::tensor("norm1", check::stage_of(t, stage_id::norm1).values, zeros, 0);
        check::tensor("norm2", check::stage_of(t, stage_id::norm2).values, zeros, 0);
        const stage &pre = check::stage_of(t, stage_id::ffn_pre);
        const matrix &b1 = check::operand_of(pre, "b1", no_head);
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = 0; j < cols(b1); ++j)
                CHECK(pre.values(i, j) == b1(0, j));
    }
}

TEST_CASE("edges: denormal weights and inputs stay finite, underflowing scores are exactly 0",
          "[edges]") {
    SECTION("weightScale 5e-324 (the smallest double): scores underflow to 0, weights are 1/T") {
        for (generated_spec s : {specs::self(4, 8, 2, 4, 4), specs::self(4, 8, 2, 4, 4, true),
                                 specs::encoder(4, 8, 2, 16), specs::decode(4, 8, 2, 4, 4),
                                 specs::flash(4, 8, 4, 4, 2, 2, true)}) {
            s.weight_scale = 5e-324;
            const trace t = run_traced(make_problem(s));
            INFO(check::describe(t.config));
            check_finite(t);
            for (const stage &st : t.stages)
                if (st.id == stage_id::scores || st.id == stage_id::scaled)
                    for (double v : st.values)
                        CHECK(v == 0.0);
            if (!t.config.causal)
                for (const stage *w : weights_of(t))
                    for (double v : w->values)
                        CHECK(v == 0.25);
            // Decoding gives the same numbers; the tiles add in another order, so FlashAttention
            // may end a subnormal apart.
            if (t.checks.max_difference)
                CHECK(*t.checks.max_difference <= 5e-324);
        }
    }
    SECTION("weightScale 1e-160: subnormal scores, exactly uniform weights") {
        generated_spec s = specs::self(4, 8, 2, 4, 4);
        s.weight_scale = 1e-160;
        const trace t = run_traced(make_problem(s));
        check_finite(t);
        std::size_t subnormal = 0;
        for (const stage &st : t.stages)
            if (st.id == stage_id::scores)
                subnormal += count_subnormal(st.values);
        CHECK(subnormal > 0);
        for (const stage *w : weights_of(t))
            for (double v : w->values)
                CHECK(v == 0.25);
    }
    SECTION("explicit subnormal X: its products underflow to exactly 0") {
        explicit_spec s;
        s.x = {{5e-324, 0}, {0, -5e-324}};
        s.w_q = s.w_k = s.w_v = {{{1, 0}, {0, 1}}};
        s.w_o = row_list{{1, 0}, {0, 1}};
        const trace t = run_traced(make_problem(s));
        check_finite(t);
        CHECK(count_subnormal(check::stage_of(t, stage_id::q, 0).values) == 2);
        check::tensor("scores", check::stage_of(t, stage_id::scores, 0).values,
                      check::m({{0, 0}, {0, 0}}), 0);
        check::tensor("weights", check::stage_of(t, stage_id::weights, 0).values,
                      check::m({{0.5, 0.5}, {0.5, 0.5}}), 0);
        for (double v : check::stage_of(t, stage_id::output).values)
            CHECK(std::fabs(v) <= 5e-324);
    }
}
