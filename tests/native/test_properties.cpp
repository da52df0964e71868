// Properties that hold for every input: softmax rows are distributions, the causal mask
// hides exactly the future, the stable softmax ignores shifts and survives huge logits.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "attention/engine.hpp"
#include "attention/ops.hpp"
#include "attention/spec.hpp"
#include "check.hpp"
#include "oracle.hpp"
#include "specs.hpp"

using namespace attention;
using check::inf;
using oracle::softmax_rows;

namespace {

// A spread of generated problems: single and multi-head, causal or not, d_k ≠ d_v.
std::vector<generated_spec> sweep_specs() {
    std::vector<generated_spec> out;
    const double shapes[][5] = {{1, 1, 1, 1, 1},  {2, 4, 2, 2, 2},   {5, 8, 1, 4, 4},
                                {7, 12, 3, 5, 2}, {16, 16, 4, 4, 4}, {33, 8, 2, 3, 6}};
    for (const auto &sh : shapes)
        for (const bool causal : {false, true})
            for (const double seed : {0.0, 42.0, 4294967295.0}) {
                generated_spec s;
                s.seq_len = sh[0], s.d_model = sh[1], s.num_heads = sh[2], s.d_k = sh[3],
                s.d_v = sh[4];
                s.causal = causal, s.seed = seed;
                out.push_back(s);
            }
    return out;
}

std::string describe(const generated_spec &s) {
    std::ostringstream o;
    o << "seed " << s.seed << ", T " << s.seq_len << ", D " << s.d_model << ", H " << s.num_heads
      << ", DK " << *s.d_k << ", DV " << *s.d_v << (s.causal ? ", causal" : "");
    return o.str();
}

} // namespace

TEST_CASE("attention: every row of weights sums to 1", "[attention][property]") {
    std::vector<generated_spec> all = sweep_specs();
    for (const generated_spec &s : specs::every_kind())
        all.push_back(s);
    for (const generated_spec &s : all) {
        const trace t = run_traced(make_problem(s));
        INFO(check::describe(t.config));
        for (const stage &st : t.stages) {
            if (st.id != stage_id::weights)
                continue;
            CAPTURE(st.head);
            REQUIRE(check::shape(st.totals) == "(" + std::to_string(rows(st.values)) + ", 1)");
            for (std::size_t i = 0; i < rows(st.values); ++i) {
                double sum = 0;
                for (std::size_t j = 0; j < cols(st.values); ++j)
                    sum += st.values(i, j);
                CAPTURE(i, sum, st.totals(i, 0));
                CHECK(std::fabs(sum - 1.0) <= 1e-12);
                CHECK(st.totals(i, 0) == sum); // the row total the trace carries, summed in order
            }
        }
    }
}

TEST_CASE("attention: the causal mask hides exactly the future", "[attention][property]") {
    for (generated_spec s : sweep_specs()) {
        if (!s.causal)
            continue;
        INFO(describe(s));
        const trace t = run_traced(make_problem(s));
        const matrix *scaled = nullptr;
        for (const stage &st : t.stages) {
            if (st.id == stage_id::scaled)
                scaled = &st.values.get();
            if (st.id != stage_id::masked && st.id != stage_id::weights)
                continue;
            const bool is_masked = st.id == stage_id::masked;
            CAPTURE(name_of(st.id), st.head);
            REQUIRE(scaled);
            std::size_t wrong_above = 0, wrong_below = 0;
            for (std::size_t i = 0; i < rows(st.values); ++i)
                for (std::size_t j = 0; j < cols(st.values); ++j) {
                    const double v = st.values(i, j);
                    if (j > i)
                        wrong_above += is_masked ? v != -inf : v != 0.0 || std::signbit(v);
                    else if (is_masked)
                        wrong_below += v != (*scaled)(i, j);
                    else
                        wrong_below += !(v > 0.0); // every visible token gets some weight
                }
            CHECK(wrong_above == 0);
            CHECK(wrong_below == 0);
        }
    }
}

TEST_CASE("softmax: a constant shift per row changes nothing", "[ops][property]") {
    std::mt19937 g(7);
    SECTION("exactly, when the shifted logits are exact") {
        // Multiples of 1/8 shifted by these constants stay exact in float64, so s − max is
        // the same number before and after the shift and so is every weight.
        std::uniform_int_distribution<int> eighths(-64, 64);
        matrix s({6, 9});
        for (double &v : s)
            v = eighths(g) / 8.0;
        const matrix w = softmax_rows(s);
        for (const double c : {1000.0, -1e6, 1099511627776.0 /* 2^40 */}) {
            CAPTURE(c);
            matrix shifted = s;
            for (std::size_t i = 0; i < rows(s); ++i)
                for (std::size_t j = 0; j < cols(s); ++j)
                    shifted(i, j) += c * double(i + 1);
            check::tensor("softmax(s + c)", softmax_rows(shifted), w, 0);
        }
    }
    SECTION("to rounding, for arbitrary logits") {
        std::normal_distribution<double> normal(0, 3);
        matrix s({5, 7});
        for (double &v : s)
            v = normal(g);
        matrix shifted = s;
        for (std::size_t i = 0; i < rows(s); ++i)
            for (std::size_t j = 0; j < cols(s); ++j)
                shifted(i, j) += 37.25 * (double(i) - 2.0);
        check::tensor("softmax(s + c)", softmax_rows(shifted), softmax_rows(s), 1e-13);
    }
}

TEST_CASE("softmax: 1e300 logits stay finite", "[ops][property]") {
    // Without the max subtraction exp(1e300) = ∞ and ∞/∞ = NaN.
    const matrix w = softmax_rows(check::m({{1e300, 0, -1e300},
                                            {1e300, 1e300, 1e300},
                                            {-1e300, -1e300, 0},
                                            {1.7e308, -1.7e308, 1.7e308}}));
    const double third = 1.0 / 3.0;
    check::tensor("softmax", w,
                  check::m({{1, 0, 0}, {third, third, third}, {0, 0, 1}, {0.5, 0, 0.5}}), 1e-16);
    for (double v : w)
        CHECK(std::isfinite(v));
}

TEST_CASE("attention: scale_scores = false makes scaled equal scores", "[attention][property]") {
    for (const bool causal : {false, true}) {
        CAPTURE(causal);
        generated_spec s;
        s.seq_len = 6, s.d_model = 12, s.num_heads = 3, s.causal = causal, s.scale_scores = false;
        const trace t = run_traced(make_problem(s));
        const matrix *scores = nullptr;
        std::size_t checked = 0;
        for (const stage &st : t.stages) {
            if (st.id == stage_id::scores)
                scores = &st.values.get();
            if (st.id != stage_id::scaled)
                continue;
            CAPTURE(st.head);
            check::tensor("scaled", st.values, *scores, 0);
            CHECK(st.eq.numeric == "(6, 6) ÷ 1 → (6, 6)");
            CHECK(st.eq.symbolic == "(T, T) ÷ 1 → (T, T)");
            ++checked;
        }
        CHECK(checked == 3);
    }
}
