// FlashAttention's tiled forward pass: for any tile sizes, causal or not, it gives ordinary
// attention's output; under the causal mask it skips exactly the tiles above the diagonal; its
// running max and sum end as the row max and Σ exp(S − m) of all keys; huge logits stay finite.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <tuple>

#include <xtensor/xview.hpp>

#include "attention/engine.hpp"
#include "attention/flash.hpp"
#include "attention/presets.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;
using check::inf;

namespace {

// Ordinary attention written out: S = Q·Kᵀ / divisor, −∞ above the diagonal when causal, a
// stable softmax (the row max subtracted), then · V. (T, DV).
matrix naive_attention(const matrix &q, const matrix &k, const matrix &v, bool causal,
                       double divisor) {
    matrix out({rows(q), cols(v)}, 0.0);
    for (std::size_t i = 0; i < rows(q); ++i) {
        std::vector<double> s(rows(k), -inf);
        for (std::size_t j = 0; j < rows(k) && !(causal && j > i); ++j) {
            double dot = 0;
            for (std::size_t p = 0; p < cols(q); ++p)
                dot += q(i, p) * k(j, p);
            s[j] = dot / divisor;
        }
        const double max = *std::max_element(s.begin(), s.end());
        double sum = 0;
        for (double &x : s)
            sum += (x = std::exp(x - max));
        for (std::size_t j = 0; j < rows(k); ++j)
            for (std::size_t p = 0; p < cols(v); ++p)
                out(i, p) += s[j] / sum * v(j, p);
    }
    return out;
}

double divisor_of(const attention_config &c) {
    return c.scale_scores ? std::sqrt(double(c.d_k)) : 1.0;
}

// Largest |got − want| relative to the largest |want| (at least 1), as checks reports it.
double relative_difference(const matrix &got, const matrix &want) {
    double worst = 0, scale = 1;
    for (std::size_t i = 0; i < want.size(); ++i) {
        worst = std::max(worst, std::fabs(got.flat(i) - want.flat(i)));
        scale = std::max(scale, std::fabs(want.flat(i)));
    }
    return worst / scale;
}

using span = std::tuple<std::size_t, std::size_t, std::size_t, std::size_t>;

// The tiles of a trace, in the order recorded: (query begin, end, key begin, end).
std::vector<span> tile_spans(const trace &t) {
    std::vector<span> out;
    for (const stage &s : t.stages)
        if (s.id == stage_id::tile_scores)
            out.emplace_back(s.tile->query_begin, s.tile->query_end, s.tile->key_begin,
                             s.tile->key_end);
    return out;
}

const std::pair<double, double> seven_tiles[] = {{1, 1}, {2, 3}, {3, 2}, {7, 7}, {4, 7}};

} // namespace

TEST_CASE("flash: tiles that do and do not divide T give ordinary attention", "[flash]") {
    for (const auto &[b_r, b_c] : seven_tiles)
        for (const bool causal : {false, true})
            for (const double seed : {1.0, 42.0}) {
                generated_spec s = specs::flash(7, 8, 4, 3, b_r, b_c, causal);
                s.seed = seed;
                const problem p = make_problem(s);
                INFO("seed " << seed << ": " << check::describe(p.config));
                const trace t = run_traced(p);
                const matrix &q = check::stage_of(t, stage_id::q, 0).values;
                const matrix &k = check::stage_of(t, stage_id::k, 0).values;
                const matrix &v = check::stage_of(t, stage_id::v, 0).values;
                const matrix want = naive_attention(q, k, v, causal, divisor_of(p.config));
                const matrix &tiled = check::stage_of(t, stage_id::stacked).values;
                CHECK(relative_difference(tiled, want) <= 1e-12);
                CHECK(relative_difference(check::stage_of(t, stage_id::reference).values, want) <=
                      1e-12);
                check::tensor("forward", forward(p), tiled, 0);
                REQUIRE(t.checks.max_difference.has_value());
                CHECK(*t.checks.max_difference ==
                      relative_difference(tiled, check::stage_of(t, stage_id::reference).values));
                CHECK(*t.checks.max_difference <= 1e-12);
            }
}

TEST_CASE("flash: T = 5 in 2 x 2 tiles, by hand: 9 tiles, 6 of them under the causal mask",
          "[flash][known]") {
    // Query blocks [0,2) [2,4) [4,5) (the last short) against key blocks [0,2) [2,4) [4,5).
    // Causal: a tile is skipped when its first key comes after its block's last query:
    // block [0,2) keeps keys [0,2) only; [2,4) keeps [0,2) [2,4); [4,5) keeps all three.
    const std::vector<span> causal{{0, 2, 0, 2}, {2, 4, 0, 2}, {2, 4, 2, 4},
                                   {4, 5, 0, 2}, {4, 5, 2, 4}, {4, 5, 4, 5}};
    CHECK(tile_spans(run_traced(make_problem(specs::flash(5, 8, 4, 4, 2, 2, true)))) == causal);
    std::vector<span> all;
    for (std::size_t i0 : {0, 2, 4})
        for (std::size_t j0 : {0, 2, 4})
            all.emplace_back(i0, std::min<std::size_t>(i0 + 2, 5), j0,
                             std::min<std::size_t>(j0 + 2, 5));
    CHECK(all.size() == 9);
    CHECK(tile_spans(run_traced(make_problem(specs::flash(5, 8, 4, 4, 2, 2, false)))) == all);
}

TEST_CASE("flash: tiles come in loop order, query blocks outer, each ending in block_out",
          "[flash]") {
    for (const auto &[b_r, b_c] : seven_tiles)
        for (const bool causal : {false, true}) {
            const trace t = run_traced(make_problem(specs::flash(7, 8, 4, 3, b_r, b_c, causal)));
            INFO(check::describe(t.config));
            const std::size_t br = std::size_t(b_r), bc = std::size_t(b_c);
            std::vector<std::string> want{"x", "q/0", "k/0", "v/0"};
            std::vector<span> spans;
            int tile = 0;
            for (std::size_t i0 = 0; i0 < 7; i0 += br) {
                const std::size_t i1 = std::min<std::size_t>(7, i0 + br);
                std::size_t last_key = 0;
                for (std::size_t j0 = 0; j0 < 7 && !(causal && j0 > i1 - 1); j0 += bc, ++tile) {
                    last_key = std::min<std::size_t>(7, j0 + bc);
                    spans.emplace_back(i0, i1, j0, last_key);
                    for (const char *id : {"tile_scores", "tile_max", "tile_sum", "tile_out"})
                        want.push_back(std::string(id) + "/0@" + std::to_string(tile));
                }
                want.push_back("block_out/0@" + std::to_string(tile - 1));
                const stage &out = check::stage_of(t, stage_id::block_out, 0, tile - 1);
                CHECK(out.tile->query_begin == i0);
                CHECK(out.tile->query_end == i1);
                CHECK(out.tile->key_begin == 0);
                CHECK(out.tile->key_end == last_key);
                CHECK(rows(out.values) == i1 - i0); // the last block is short when B_r ∤ 7
            }
            want.insert(want.end(), {"stacked", "reference"});
            CHECK(check::labels(t) == want);
            CHECK(tile_spans(t) == spans);
            for (const stage &s : t.stages) {
                if (s.id != stage_id::tile_scores && s.id != stage_id::tile_out)
                    continue;
                CAPTURE(check::label(s.id, s.head, s.step));
                CHECK(rows(s.values) == s.tile->query_end - s.tile->query_begin);
                CHECK(cols(s.values) == (s.id == stage_id::tile_out
                                             ? t.config.d_v
                                             : s.tile->key_end - s.tile->key_begin));
            }
        }
}

TEST_CASE("flash: after a block's last tile, m is the row max and l is sum exp(S - m)",
          "[flash][property]") {
    for (const generated_spec &s : specs::stepped_kinds()) {
        if (s.kind != problem_kind::flash)
            continue;
        const trace t = run_traced(make_problem(s));
        const attention_config &c = t.config;
        INFO(check::describe(c));
        const matrix &q = check::stage_of(t, stage_id::q, 0).values;
        const matrix &k = check::stage_of(t, stage_id::k, 0).values;
        for (const stage &out : t.stages) {
            if (out.id != stage_id::block_out)
                continue;
            const matrix &m = check::stage_of(t, stage_id::tile_max, 0, out.step).values;
            const matrix &l = check::stage_of(t, stage_id::tile_sum, 0, out.step).values;
            check::tensor("block_out's l", out.operands.at(1).values, l, 0);
            for (std::size_t r = 0; r < rows(m); ++r) {
                const std::size_t i = out.tile->query_begin + r;
                CAPTURE(out.step, i);
                std::vector<double> s_row; // row i of S over every key it may see
                for (std::size_t j = 0; j < c.seq_len && !(c.causal && j > i); ++j) {
                    double dot = 0;
                    for (std::size_t p = 0; p < c.d_k; ++p)
                        dot += q(i, p) * k(j, p);
                    s_row.push_back(dot / divisor_of(c));
                }
                const double max = *std::max_element(s_row.begin(), s_row.end());
                double sum = 0;
                for (double x : s_row)
                    sum += std::exp(x - max);
                CHECK(std::fabs(m(r, 0) - max) <= 1e-12 * std::max(1.0, std::fabs(max)));
                CHECK(std::fabs(l(r, 0) - sum) <= 1e-12 * sum);
            }
        }
    }
}

TEST_CASE("flash: logits of +-1e300 stay finite and give the stable softmax's output",
          "[flash][property]") {
    // d_k = 1 (divisor 1): S_ij = q_i · k_j = ±1e300, ±5e299, ±2.5e299. Keys 1, 3, 5 tie for
    // the largest logit of a positive query, key 0 for a negative one.
    const matrix q = check::m({{1e150}, {-1e150}, {1e150}, {-1e150}, {1e150}, {1e150}});
    const matrix k = check::m({{-1e150}, {1e150}, {0.5e150}, {1e150}, {-0.25e150}, {1e150}});
    const matrix v = check::m({{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}});
    for (const auto &[b_r, b_c] : {std::pair<std::size_t, std::size_t>{2, 2}, {1, 4}, {3, 1}})
        for (const bool causal : {false, true}) {
            attention_config c;
            c.kind = problem_kind::flash;
            c.seq_len = c.kv_len = 6, c.d_model = 1, c.num_heads = c.num_kv_heads = 1;
            c.d_k = 1, c.d_v = 2, c.block_rows = b_r, c.block_cols = b_c, c.causal = causal;
            INFO(check::describe(c));
            trace t;
            t.config = c;
            const matrix out = tiled_attention(q, k, v, c, &t);
            for (const stage &s : t.stages)
                for (double x : s.values)
                    CHECK((std::isfinite(x) || (s.id == stage_id::tile_scores && x == -inf)));
            check::tensor("tiled vs stable", out, naive_attention(q, k, v, causal, 1.0), 1e-12);
            // By hand: row 0 sees keys 1, 3, 5 equally (without the mask) or key 0 alone.
            const matrix row0 = causal ? check::m({{1, 2}}) : check::m({{7, 8}});
            const matrix got0 = xt::view(out, xt::range(0, 1), xt::all());
            check::tensor("row 0", got0, row0, 1e-12);
        }
}

TEST_CASE("flash: floats held, the whole T x T scores against one tile and its rows' m, l",
          "[flash]") {
    // T², then B_r · B_c + 2 · B_r: one query block is live at a time, so only its B_r rows'
    // m and l are (not 2T), whatever T is.
    CHECK(floats_held(5, 2, 2).standard == 25);
    CHECK(floats_held(5, 2, 2).tiled == 8);  // 4 + 4
    CHECK(floats_held(5, 2, 3).tiled == 10); // 6 + 4
    CHECK(floats_held(2048, 64, 64).standard == 4194304);
    CHECK(floats_held(2048, 64, 64).tiled == 4224); // 4096 + 128
    CHECK(floats_held(2048, 2, 2).tiled == floats_held(5, 2, 2).tiled);
    CHECK(floats_held(7, 7, 7).tiled == 63); // one tile of all 49 scores, + 14
    CHECK(floats_held(3, 8, 8).tiled == 15); // blocks no larger than T: 9 + 6
    CHECK(floats_held(1, 1, 1).standard == 1);
    CHECK(floats_held(1, 1, 1).tiled == 3);
}
