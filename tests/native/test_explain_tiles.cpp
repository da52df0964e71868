// explain_cell on FlashAttention's tiles, every cell of every flash preset and sweep config:
// a tile's scores (Σ terms ÷ divisor, −∞ exactly where the causal mask hides the key), the
// running max, sum and output after the tile, and a block's output O / l.
#include <catch2/catch.hpp>

#include <cmath>

#include "explain_sweep.hpp"

using namespace attention;
using check::inf;
using sweep::check_terms;
using sweep::for_each_cell;
using sweep::near;
using sweep::op;

TEST_CASE("explain tiles: tile_scores: terms / divisor is the value, masked iff -inf",
          "[explain][flash]") {
    std::size_t hidden = 0;
    const std::size_t cells =
        for_each_cell({rules::scaled_dot_rows}, [&](const trace &t, const stage &s, std::size_t i,
                                                    std::size_t j, const cell_explanation &e) {
            check_terms(e, op(s, 0), i); // Q_i's row i
            for (std::size_t p = 0; p < e.terms.size(); ++p)
                CHECK(e.terms[p].b == op(s, 1)(j, p)); // K_j's row j: Q_i · K_jᵀ
            CHECK(e.divisor == (t.config.scale_scores ? std::sqrt(double(t.config.d_k)) : 1.0));
            REQUIRE(s.tile.has_value());
            const bool future = s.tile->key_begin + j > s.tile->query_begin + i;
            CHECK(e.masked == (t.config.causal && future));
            CHECK(e.masked == (e.value == -inf));
            if (!e.masked)
                CHECK(near(e.sum / e.divisor, e.value));
            hidden += e.masked;
        });
    CHECK(cells > 0);
    CHECK(hidden > 0);
}

TEST_CASE("explain tiles: tile_max: max(previous m, the row's max) is the value",
          "[explain][flash]") {
    std::size_t first_tiles = 0;
    const std::size_t cells =
        for_each_cell({rules::running_max}, [&](const trace &, const stage &s, std::size_t i,
                                                std::size_t, const cell_explanation &e) {
            CHECK(e.previous == op(s, 0)(i, 0));
            double row_max = -inf;
            for (std::size_t k = 0; k < cols(op(s, 1)); ++k)
                row_max = std::max(row_max, op(s, 1)(i, k));
            REQUIRE(e.row_max.has_value());
            CHECK(*e.row_max == row_max);
            CHECK(std::max(e.previous, *e.row_max) == e.value);
            CHECK(std::isfinite(e.value)); // key 0 is in every block's first tile
            first_tiles += e.previous == -inf;
        });
    CHECK(cells > 0);
    CHECK(first_tiles > 0);
}

TEST_CASE("explain tiles: tile_sum: alpha * previous l + sum of the row of P is the value",
          "[explain][flash]") {
    const std::size_t cells =
        for_each_cell({rules::running_sum}, [](const trace &t, const stage &s, std::size_t i,
                                               std::size_t, const cell_explanation &e) {
            CHECK(e.previous == op(s, 0)(i, 0));
            CHECK(e.alpha == op(s, 1)(i, 0));
            REQUIRE(e.row.size() == cols(op(s, 2)));
            double sum = 0;
            for (std::size_t k = 0; k < e.row.size(); ++k) {
                CHECK(e.row[k] == op(s, 2)(i, k));
                sum += e.row[k];
            }
            CHECK(sum == e.sum);
            CHECK(near(e.alpha * e.previous + e.sum, e.value));
            // α = exp(m before − m after) and P = exp(S − m after), from the same tile's max.
            const stage &max = check::stage_of(t, stage_id::tile_max, s.head, s.step);
            const stage &scores = check::stage_of(t, stage_id::tile_scores, s.head, s.step);
            const double m_before = op(max, 0)(i, 0), m_after = max.values(i, 0);
            CHECK(near(e.alpha, std::exp(m_before - m_after)));
            for (std::size_t k = 0; k < e.row.size(); ++k)
                CHECK(near(e.row[k], std::exp(scores.values(i, k) - m_after)));
        });
    CHECK(cells > 0);
}

TEST_CASE("explain tiles: tile_out: alpha * previous O + sum of P * V is the value",
          "[explain][flash]") {
    const std::size_t cells =
        for_each_cell({rules::running_out}, [](const trace &, const stage &s, std::size_t i,
                                               std::size_t j, const cell_explanation &e) {
            CHECK(e.previous == op(s, 0)(i, j));
            CHECK(e.alpha == op(s, 1)(i, 0));
            check_terms(e, op(s, 2), i); // P's row i
            for (std::size_t p = 0; p < e.terms.size(); ++p)
                CHECK(e.terms[p].b == op(s, 3)(p, j)); // V_j's column j
            CHECK(near(e.alpha * e.previous + e.sum, e.value));
        });
    CHECK(cells > 0);
}

TEST_CASE("explain tiles: block_out: input / divisor is the value", "[explain][flash]") {
    const std::size_t cells =
        for_each_cell({rules::divide_rows}, [](const trace &, const stage &s, std::size_t i,
                                               std::size_t j, const cell_explanation &e) {
            REQUIRE(e.input.has_value());
            CHECK(*e.input == op(s, 0)(i, j));
            CHECK(e.divisor == op(s, 1)(i, 0));
            CHECK(e.divisor >= 1.0); // l counts exp(0) = 1 for the row's max
            CHECK(*e.input / e.divisor == e.value);
        });
    CHECK(cells > 0);
}
