// ALiBi: Press et al.'s slopes (8 heads: 1/2 … 1/256; head counts that are no power of two),
// the bias B_ij = −m·(i − j) under a causal mask and −m·|i − j| without, added after ÷√d_k as
// its own stage; a constant added to a row of B changes no weight (so −m·(i − j) acts as +m·j);
// the untraced pass has the traced pass's bits and the trace counts the stage.
#include <catch2/catch.hpp>

#include <cmath>

#include "attention/alibi.hpp"
#include "attention/engine.hpp"
#include "attention/fields.hpp"
#include "attention/spec_reader.hpp"
#include "attention/mask.hpp"
#include "check.hpp"
#include "oracle.hpp"

using namespace attention;

namespace {

problem with_alibi(double t, double d, double h, bool causal, double weight_scale = 1) {
    return problem_of(problem_kind::self, false,
                      {{"seqLen", t},
                       {"dModel", d},
                       {"numHeads", h},
                       {"causal", causal},
                       {"alibi", true},
                       {"weightScale", weight_scale}},
                      true);
}

} // namespace

TEST_CASE("alibi: Press et al.'s slopes", "[alibi][known]") {
    const std::vector<double> eight = alibi_slopes(8);
    for (std::size_t h = 0; h < 8; ++h)
        CHECK(eight[h] == std::ldexp(1.0, -int(h) - 1)); // 1/2, 1/4, … 1/256, exactly
    // 12 heads: the 8 slopes of 8, then every other slope of 16 (2^−0.5, 2^−1.5, 2^−2.5, 2^−3.5).
    const std::vector<double> twelve = alibi_slopes(12);
    REQUIRE(twelve.size() == 12);
    for (std::size_t h = 0; h < 4; ++h)
        CHECK(std::fabs(twelve[8 + h] - std::pow(2.0, -0.5 - double(h))) < 1e-15);
    CHECK(alibi_slopes(1) == std::vector<double>{std::ldexp(1.0, -8)});
    const std::vector<double> six = alibi_slopes(6); // 1/4, 1/16, 1/64, 1/256, then 1/2, 1/8
    CHECK(six == std::vector<double>{0.25, 1.0 / 16, 1.0 / 64, 1.0 / 256, 0.5, 0.125});
}

TEST_CASE("alibi: the bias stage is S̃ + B, B by the distance", "[alibi][known]") {
    for (const bool causal : {false, true}) {
        CAPTURE(causal);
        const trace t = run_traced(with_alibi(5, 8, 2, causal));
        const stage &b = check::stage_of(t, stage_id::biased, 1);
        const matrix &scaled = check::stage_of(t, stage_id::scaled, 1).values;
        const double m = alibi_slopes(2)[1]; // 1/16
        for (std::size_t i = 0; i < 5; ++i)
            for (std::size_t j = 0; j < 5; ++j) {
                const double d = double(i) - double(j);
                CHECK(b.operands[1].values(i, j) == -m * (causal ? d : std::fabs(d)));
                CHECK(b.values(i, j) == scaled(i, j) + b.operands[1].values(i, j));
            }
        CHECK(check::stage_of(t, stage_id::weights, 1).operands[0].name ==
              (causal ? "masked" : "biased"));
    }
}

TEST_CASE("alibi: a constant added to a row changes no weight", "[alibi][property]") {
    // Under the causal mask −m·(i − j) = −m·i + m·j: the −m·i of row i is a constant.
    const trace t = run_traced(with_alibi(6, 8, 2, true));
    const attention_config &c = t.config;
    for (int h : {0, 1}) {
        const matrix &scaled = check::stage_of(t, stage_id::scaled, h).values;
        matrix shifted = scaled + attention_mask(c); // (T, T)
        const double m = alibi_slopes(2)[std::size_t(h)];
        for (std::size_t i = 0; i < 6; ++i)
            for (std::size_t j = 0; j < 6; ++j)
                shifted(i, j) += m * double(j);
        check::tensor("weights with +m·j", oracle::softmax_rows(shifted),
                      check::stage_of(t, stage_id::weights, h).values, 1e-12);
    }
}

TEST_CASE("alibi: traced and untraced passes agree bit for bit", "[alibi][forward]") {
    for (const bool causal : {false, true})
        for (const double heads : {1.0, 3.0, 4.0}) {
            const problem p = with_alibi(9, 12, heads, causal);
            INFO(check::describe(p.config));
            const trace t = run_traced(p);
            CHECK(check::compare(forward(p), t.stages.back().values, 0).max_diff == 0);
            CHECK(trace_value_count(p.config) == recorded_value_count(t));
        }
}
