// explain_cell on every cell of every stage of every preset (and of a sweep of every kind, decode
// steps included): each of the lesson's cell rules, its parts put back together, gives the
// cell's value. The tiled rules of FlashAttention are in test_explain_tiles.cpp.
#include <catch2/catch.hpp>

#include <cmath>

#include "explain_sweep.hpp"

using namespace attention;
using check::inf;
using check::label;

using sweep::check_terms;
using sweep::for_each_cell;
using sweep::near;
using sweep::op;

TEST_CASE("explain: dot stages: the terms add up to the value", "[explain]") {
    const std::size_t cells = for_each_cell(
        {rules::dot, rules::dot_rows},
        [](const trace &, const stage &s, std::size_t i, std::size_t j, const cell_explanation &e) {
            check_terms(e, sweep::left_of(s), i);
            const bool rows_of_b = entry(s.id).cell == rules::dot_rows; // Q · Kᵀ reads K's rows
            const matrix b = sweep::right_of(s);
            for (std::size_t p = 0; p < e.terms.size(); ++p)
                CHECK(e.terms[p].b == (rows_of_b ? b(j, p) : b(p, j)));
            CHECK(e.divisor == 1.0);
            CHECK(near(e.sum, e.value));
            CHECK_FALSE(e.softmax.has_value());
            CHECK_FALSE(e.bias.has_value());
        });
    CHECK(cells > 0);
}

TEST_CASE("explain: scaled: the scores' sum over the divisor is the value", "[explain]") {
    const std::size_t cells = for_each_cell({rules::scaled_dot}, [](const trace &t, const stage &s,
                                                                    std::size_t i, std::size_t,
                                                                    const cell_explanation &e) {
        // The scores' first operand: Q, or q_rot under RoPE (and q_rope after it in MLA).
        check_terms(e, sweep::left_of(check::stage_of(t, stage_id::scores, s.head, s.step)), i);
        const double widths = double(t.config.d_k + t.config.d_rope);
        CHECK(e.divisor == (t.config.scale_scores ? std::sqrt(widths) : 1.0));
        CHECK(near(e.sum / e.divisor, e.value));
    });
    CHECK(cells > 0);
}

TEST_CASE("explain: mask: input + M is the value, masked iff M = -inf", "[explain]") {
    std::size_t hidden = 0;
    const std::size_t cells =
        for_each_cell({rules::mask}, [&](const trace &, const stage &s, std::size_t i,
                                         std::size_t j, const cell_explanation &e) {
            REQUIRE(e.input.has_value());
            REQUIRE(e.mask.has_value());
            CHECK(*e.input == op(s, 0)(i, j));
            CHECK((*e.mask == 0.0 || *e.mask == -inf));
            CHECK(*e.input + *e.mask == e.value);
            CHECK(e.masked == (*e.mask == -inf));
            CHECK_FALSE(e.softmax.has_value());
            hidden += e.masked;
        });
    CHECK(cells > 0);
    CHECK(hidden > 0);
}

TEST_CASE("explain: softmax: exps[col] / expSum is the weight", "[explain]") {
    std::size_t hidden = 0;
    const std::size_t cells =
        for_each_cell({rules::softmax}, [&](const trace &, const stage &s, std::size_t i,
                                            std::size_t j, const cell_explanation &e) {
            REQUIRE(e.softmax.has_value());
            const softmax_parts &p = *e.softmax;
            REQUIRE(p.logits.size() == cols(s.values));
            REQUIRE(p.exps.size() == cols(s.values));
            // A head with a sink: ζ joins the max, and its exp(ζ − max) comes first in the sum.
            double max = p.zeta.value_or(-inf), sum = p.sink.value_or(0.0);
            CHECK(p.sink.has_value() == p.zeta.has_value());
            for (std::size_t k = 0; k < p.logits.size(); ++k) {
                CHECK(p.logits[k] == op(s, 0)(i, k));
                max = std::max(max, p.logits[k]);
                sum += p.exps[k];
            }
            CHECK(p.max == max);
            CHECK(p.exp_sum == sum);
            CHECK(near(p.exps[j], std::exp(p.logits[j] - p.max)));
            CHECK(near(p.exps[j] / p.exp_sum, e.value));
            CHECK(e.masked == (p.logits[j] == -inf));
            if (e.masked)
                CHECK(p.exps[j] == 0.0);
            hidden += e.masked;
        });
    CHECK(cells > 0);
    CHECK(hidden > 0);
}

TEST_CASE("explain: concat: a cell is its source head's cell", "[explain]") {
    const std::size_t cells =
        for_each_cell({rules::copy_column}, [](const trace &t, const stage &s, std::size_t i,
                                               std::size_t j, const cell_explanation &e) {
            CHECK(e.source_head == int(j / t.config.d_v));
            CHECK(e.source_col == j % t.config.d_v);
            const stage &head = check::stage_of(t, stage_id::head, e.source_head, s.step);
            CHECK(head.values(i, e.source_col) == e.value);
        });
    CHECK(cells > 0);
}

TEST_CASE("explain: sum: the addends add to the value", "[explain]") {
    const std::size_t cells =
        for_each_cell({rules::sum}, [](const trace &, const stage &s, std::size_t i, std::size_t j,
                                       const cell_explanation &e) {
            REQUIRE(e.addends.size() == s.operands.size());
            double total = 0;
            for (std::size_t k = 0; k < e.addends.size(); ++k) {
                CHECK(e.addends[k] == op(s, k)(i, j));
                total += e.addends[k];
            }
            if (e.addends.size() == 2) // X + PE, residuals, ALiBi's bias: one addition
                CHECK(total == e.value);
            else // d_x: the parts, summed group by group in the pass
                CHECK(near(total, e.value));
        });
    CHECK(cells > 0);
}

TEST_CASE("explain: the backward pass's cells: products down columns, the softmax's backward "
          "pass, the division, a head's column",
          "[explain][backward]") {
    std::size_t cells = for_each_cell(
        {rules::dot_cols, rules::group_dot_cols},
        [](const trace &, const stage &s, std::size_t i, std::size_t j, const cell_explanation &e) {
            const std::size_t pairs =
                entry(s.id).cell == rules::dot_cols ? 1 : s.operands.size() / 2;
            REQUIRE(e.terms.size() == pairs * rows(op(s, 0)));
            double sum = 0;
            for (std::size_t h = 0; h < pairs; ++h)
                for (std::size_t p = 0; p < rows(op(s, 0)); ++p) {
                    const product_term &t = e.terms[h * rows(op(s, 0)) + p];
                    CHECK(t.a == op(s, h)(p, i));
                    CHECK(t.b == op(s, pairs + h)(p, j));
                    sum += t.product;
                }
            CHECK(sum == e.sum);
            CHECK(near(e.sum, e.value));
        });
    cells +=
        for_each_cell({rules::softmax_backward}, [](const trace &, const stage &s, std::size_t i,
                                                    std::size_t j, const cell_explanation &e) {
            REQUIRE(e.weight.has_value());
            CHECK(*e.weight == op(s, 0)(i, j));
            CHECK(*e.input == op(s, 1)(i, j));
            CHECK(e.terms.size() == cols(op(s, 0)));
            CHECK(*e.weight * (*e.input - e.sum) == e.value);
            if (e.masked)
                CHECK(e.value == 0.0);
        });
    cells += for_each_cell({rules::divide}, [](const trace &, const stage &s, std::size_t i,
                                               std::size_t j, const cell_explanation &e) {
        CHECK(*e.input == op(s, 0)(i, j));
        CHECK(*e.input / e.divisor == e.value);
    });
    cells += for_each_cell({rules::head_column}, [](const trace &t, const stage &s, std::size_t i,
                                                    std::size_t j, const cell_explanation &e) {
        CHECK(e.source_col == std::size_t(s.head) * t.config.d_v + j);
        CHECK(op(s, 0)(i, e.source_col) == e.value);
    });
    CHECK(cells > 0);
}

TEST_CASE("explain: norm: (input - mean) / (std + eps) is the value", "[explain]") {
    const std::size_t cells =
        for_each_cell({rules::norm}, [](const trace &, const stage &s, std::size_t i, std::size_t j,
                                        const cell_explanation &e) {
            REQUIRE(e.norm.has_value());
            REQUIRE(e.input.has_value());
            const norm_parts &n = *e.norm;
            const std::size_t d = cols(s.values);
            REQUIRE(n.row.size() == d);
            double mean = 0, var = 0;
            for (std::size_t k = 0; k < d; ++k) {
                CHECK(n.row[k] == op(s, 0)(i, k));
                mean += n.row[k] / double(d);
            }
            for (double v : n.row)
                var += (v - mean) * (v - mean) / double(d);
            CHECK(*e.input == n.row[j]);
            CHECK(n.eps == 1e-6);
            CHECK(near(n.mean, mean));
            CHECK(near(n.std_dev, std::sqrt(var)));
            CHECK(near((*e.input - n.mean) / (n.std_dev + n.eps), e.value));
        });
    CHECK(cells > 0);
}

TEST_CASE("explain: affine: Σ terms + bias is the value", "[explain]") {
    const std::size_t cells =
        for_each_cell({rules::affine}, [](const trace &, const stage &s, std::size_t i,
                                          std::size_t j, const cell_explanation &e) {
            check_terms(e, op(s, 0), i);
            REQUIRE(e.bias.has_value());
            CHECK(*e.bias == op(s, 2)(0, j));
            CHECK(near(e.sum + *e.bias, e.value));
        });
    CHECK(cells > 0);
}

TEST_CASE("explain: relu: max(0, input) is the value", "[explain]") {
    std::size_t clamped = 0;
    const std::size_t cells =
        for_each_cell({rules::relu}, [&](const trace &, const stage &s, std::size_t i,
                                         std::size_t j, const cell_explanation &e) {
            REQUIRE(e.input.has_value());
            CHECK(*e.input == op(s, 0)(i, j));
            CHECK(std::max(0.0, *e.input) == e.value);
            clamped += *e.input < 0;
        });
    CHECK(cells > 0);
    CHECK(clamped > 0);
}

TEST_CASE("explain: drawn inputs carry only their value", "[explain]") {
    const std::size_t cells =
        for_each_cell({rules::none}, [](const trace &, const stage &, std::size_t, std::size_t,
                                        const cell_explanation &e) {
            CHECK(e.terms.empty());
            CHECK_FALSE(e.softmax.has_value());
            CHECK_FALSE(e.input.has_value());
            CHECK_FALSE(e.norm.has_value());
            CHECK(e.addends.empty());
            CHECK(e.source_head == no_head);
            CHECK_FALSE(e.row_max.has_value());
            CHECK(e.row.empty());
            CHECK(e.divisor == 1.0);
        });
    CHECK(cells > 0);
}
