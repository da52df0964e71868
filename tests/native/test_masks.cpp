// Masks as spans: a sliding window of W (query i sees i − W < j ≤ i). A window as long as the
// sequence is the causal mask, bit for bit; a window of 1 makes each token attend to itself
// alone; every weight outside the band is exactly 0 and each row sums to 1; the untraced pass,
// which leaves the hidden scores and terms out on both sides of the band (past the GEMM's first
// 256-deep slice too), has the traced pass's bits; bad windows are refused by name.
#include <catch2/catch.hpp>

#include <cmath>

#include "attention/engine.hpp"
#include "attention/fields.hpp"
#include "attention/mask.hpp"
#include "check.hpp"

using namespace attention;

namespace {

problem windowed(double t, double d, double h, std::optional<double> window, bool causal = false) {
    field_values v{{"seqLen", t}, {"dModel", d}, {"numHeads", h}, {"causal", causal}};
    if (window)
        v.emplace("window", *window);
    return problem_of(problem_kind::self, false, v, true);
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
         {problem_kind::cross, problem_kind::encoder_layer, problem_kind::kv_cache,
          problem_kind::flash, problem_kind::designed}) {
        bool takes = false;
        for (const field_rule &f : spec_fields(k, false).fields)
            takes = takes || std::string(f.name) == "window";
        CHECK_FALSE(takes);
    }
}
