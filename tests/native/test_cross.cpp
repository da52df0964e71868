// Cross-attention: queries from X_q, keys and values from X_kv, so every score matrix is
// (T_q, T_kv); no causal mask; padding keys (j ≥ validKeys) get −∞ logits and exactly 0 weight.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "attention/engine.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;
using check::inf;
using check::label;
using check::m;
using check::operand_of;
using check::stage_of;

namespace {

// X_q = I (2 queries), X_kv = [[1, 0], [0, 1], [1, 1]] (3 keys), one head, DK = DV = 2,
// W_Q = √2·ln 2 · I, W_K = I, W_V = [[1, 2], [3, 4]].
explicit_spec two_queries_three_keys() {
    const double c = std::sqrt(2.0) * std::log(2.0);
    explicit_spec s;
    s.kind = problem_kind::cross;
    s.x = {{1, 0}, {0, 1}};
    s.x_kv = {{1, 0}, {0, 1}, {1, 1}};
    s.w_q = {{{c, 0}, {0, c}}};
    s.w_k = {{{1, 0}, {0, 1}}};
    s.w_v = {{{1, 2}, {3, 4}}};
    return s;
}

} // namespace

TEST_CASE("cross: two queries over three keys, by hand", "[cross][known]") {
    // Q = c·I, K = X_kv, so scores = c·[[1, 0, 1], [0, 1, 1]] and scaled = ln 2·[[1, 0, 1], [0, 1,
    // 1]]. Row 0: exp → [2, 1, 2], sum 5 → [0.4, 0.2, 0.4].  Row 1: [1, 2, 2] / 5 → [0.2, 0.4,
    // 0.4]. V = X_kv·W_V = [[1, 2], [3, 4], [4, 6]]. head row 0 = 0.4·[1, 2] + 0.2·[3, 4] + 0.4·[4,
    // 6] = [2.6, 4.0] head row 1 = 0.2·[1, 2] + 0.4·[3, 4] + 0.4·[4, 6] = [3.0, 4.4]
    const problem p = make_problem(two_queries_three_keys());
    CHECK(p.config.seq_len == 2);
    CHECK(p.config.kv_len == 3);
    const trace t = run_traced(p);
    const double ln2 = std::log(2.0);
    check::tensor("v", stage_of(t, stage_id::v, 0).values, m({{1, 2}, {3, 4}, {4, 6}}), 0);
    check::tensor("scaled", stage_of(t, stage_id::scaled, 0).values,
                  m({{ln2, 0, ln2}, {0, ln2, ln2}}), 1e-15);
    check::tensor("weights", stage_of(t, stage_id::weights, 0).values,
                  m({{0.4, 0.2, 0.4}, {0.2, 0.4, 0.4}}), 1e-15);
    check::tensor("head", forward(p), m({{2.6, 4.0}, {3.0, 4.4}}), 1e-14);
}

TEST_CASE("cross: validKeys = 2 hides the third key, by hand", "[cross][known]") {
    // Row 0: exp → [2, 1, 0] / 3;  row 1: [1, 2, 0] / 3.
    // head row 0 = ⅔·[1, 2] + ⅓·[3, 4] = [5/3, 8/3];  row 1 = ⅓·[1, 2] + ⅔·[3, 4] = [7/3, 10/3].
    explicit_spec s = two_queries_three_keys();
    s.valid_keys = 2;
    const trace t = run_traced(make_problem(s));
    const double ln2 = std::log(2.0);
    const stage &masked = stage_of(t, stage_id::masked, 0);
    check::tensor("masked", masked.values, m({{ln2, 0, -inf}, {0, ln2, -inf}}), 1e-15);
    check::tensor("M", operand_of(masked, "M", no_head), m({{0, 0, -inf}, {0, 0, -inf}}), 0);
    check::tensor("weights", stage_of(t, stage_id::weights, 0).values,
                  m({{2.0 / 3, 1.0 / 3, 0}, {1.0 / 3, 2.0 / 3, 0}}), 1e-15);
    check::tensor("head", stage_of(t, stage_id::head, 0).values,
                  m({{5.0 / 3, 8.0 / 3}, {7.0 / 3, 10.0 / 3}}), 1e-14);
}

TEST_CASE("cross: one key gets all of every query's weight", "[cross][property]") {
    // T_q = 4, T_kv = 1: each softmax row is [1], so each head row is V's only row.
    const trace t = run_traced(make_problem(specs::cross(4, 1, 6, 2, 3, 3)));
    for (int h = 0; h < 2; ++h) {
        CAPTURE(h);
        check::tensor("weights", stage_of(t, stage_id::weights, h).values, m({{1}, {1}, {1}, {1}}),
                      0);
        const matrix &v = stage_of(t, stage_id::v, h).values;
        const matrix want = m({{v(0, 0), v(0, 1), v(0, 2)},
                               {v(0, 0), v(0, 1), v(0, 2)},
                               {v(0, 0), v(0, 1), v(0, 2)},
                               {v(0, 0), v(0, 1), v(0, 2)}});
        check::tensor("head", stage_of(t, stage_id::head, h).values, want, 0);
    }
}

TEST_CASE("cross: Q comes from X_q, K and V from X_kv", "[cross]") {
    for (const generated_spec &s :
         {specs::cross(2, 5, 8, 2, 4, 3), specs::cross(6, 3, 4, 1, 2, 2)}) {
        const problem p = make_problem(s);
        INFO(check::describe(p.config));
        const trace t = run_traced(p);
        check::tensor("x_q stage", stage_of(t, stage_id::x_q).values, p.params.x, 0);
        check::tensor("x_kv stage", stage_of(t, stage_id::x_kv).values, p.params.x_kv, 0);
        for (int h = 0; h < int(p.config.num_heads); ++h) {
            CAPTURE(h);
            const stage &q = stage_of(t, stage_id::q, h), &k = stage_of(t, stage_id::k, h);
            const stage &v = stage_of(t, stage_id::v, h);
            check::tensor("X_q operand", operand_of(q, "X_q", no_head), p.params.x, 0);
            check::tensor("X_kv operand of k", operand_of(k, "X_kv", no_head), p.params.x_kv, 0);
            check::tensor("X_kv operand of v", operand_of(v, "X_kv", no_head), p.params.x_kv, 0);
            check::tensor("q", q.values, check::naive_matmul(p.params.x, p.params.w_q[h]), 1e-13);
            check::tensor("k", k.values, check::naive_matmul(p.params.x_kv, p.params.w_k[h]),
                          1e-13);
            check::tensor("v", v.values, check::naive_matmul(p.params.x_kv, p.params.w_v[h]),
                          1e-13);
        }
    }
}

TEST_CASE("cross: scores, weights and heads have T_q rows and T_kv columns", "[cross]") {
    // T_q = 3, T_kv = 5, D = 8, H = 2, DK = 4, DV = 2, with W_O.
    const trace t = run_traced(make_problem(specs::cross(3, 5, 8, 2, 4, 2)));
    const std::map<stage_id, std::string> want{
        {stage_id::x_q, "(3, 8)"},    {stage_id::x_kv, "(5, 8)"},    {stage_id::q, "(3, 4)"},
        {stage_id::k, "(5, 4)"},      {stage_id::v, "(5, 2)"},       {stage_id::scores, "(3, 5)"},
        {stage_id::scaled, "(3, 5)"}, {stage_id::weights, "(3, 5)"}, {stage_id::head, "(3, 2)"},
        {stage_id::concat, "(3, 4)"}, {stage_id::output, "(3, 8)"}};
    for (const stage &s : t.stages) {
        CAPTURE(label(s.id, s.head));
        CHECK(check::shape(s.values) == want.at(s.id));
    }
    CHECK(check::shape(stage_of(t, stage_id::weights, 1).totals) == "(3, 1)");
}

TEST_CASE("cross: no causal mask, and no mask stage without padding", "[cross]") {
    const problem p = make_problem(specs::cross(4, 4, 8, 2, 4, 4));
    CHECK_FALSE(p.config.causal);
    CHECK_FALSE(has_mask(p.config));
    const trace t = run_traced(p);
    for (const stage &s : t.stages)
        CHECK(s.id != stage_id::masked);
    // Query 0 attends to every key, the later ones too: nothing above the diagonal is 0.
    const matrix &w = stage_of(t, stage_id::weights, 0).values;
    for (std::size_t j = 0; j < 4; ++j)
        CHECK(w(0, j) > 0.0);
}

TEST_CASE("cross: validKeys masks keys >= validKeys and rows still sum to 1", "[cross][property]") {
    for (const double valid : {1.0, 2.0, 4.0, 5.0}) {
        const trace t = run_traced(make_problem(specs::cross(3, 5, 6, 2, 3, 3, valid)));
        INFO(check::describe(t.config));
        for (const stage &s : t.stages) {
            if (s.id != stage_id::masked && s.id != stage_id::weights)
                continue;
            CAPTURE(label(s.id, s.head));
            const matrix &before =
                operand_of(s, s.id == stage_id::masked ? "scaled" : "masked", s.head);
            for (std::size_t i = 0; i < 3; ++i) {
                double sum = 0;
                for (std::size_t j = 0; j < 5; ++j) {
                    CAPTURE(i, j);
                    const double v = s.values(i, j);
                    sum += v;
                    if (s.id == stage_id::masked)
                        CHECK(v == (double(j) >= valid ? -inf : before(i, j)));
                    else if (double(j) >= valid)
                        CHECK((v == 0.0 && !std::signbit(v))); // exactly +0
                    else
                        CHECK(v > 0.0);
                }
                if (s.id == stage_id::weights) {
                    CHECK(std::fabs(sum - 1.0) <= 1e-12);
                    CHECK(s.totals(i, 0) == sum);
                }
            }
        }
    }
}
