// Learned attention sinks (gpt-oss): one more, virtual key per query head with logit ζ and no
// value. The weights are exp(L − μ) / (exp(ζ − μ) + Σ exp(L − μ)), μ the larger of the row's max
// and ζ; the sink stage holds each row's share, and the weights' row totals are 1 less it; ζ of
// −1e300 is ordinary attention; sinks: true draws randn(h) after every other draw; the untraced
// pass has the traced pass's bits; a wrong count or a non-finite ζ is refused by name.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "attention/engine.hpp"
#include "attention/explain.hpp"
#include "attention/rng.hpp"
#include "attention/spec_reader.hpp"
#include "check.hpp"

using namespace attention;

namespace {

field_values with_sinks(field_value sinks, bool causal = true) {
    return {{"seqLen", 6.0}, {"dModel", 8.0}, {"numHeads", 2.0}, {"causal", causal}, {"sinks", sinks}};
}

problem self_problem(const field_values &v) {
    return problem_of(problem_kind::self, false, v, true);
}

} // namespace

TEST_CASE("sinks: the weights and the sink's share, by the formula", "[sinks][known]") {
    for (const bool causal : {false, true}) {
        CAPTURE(causal);
        const std::vector<double> zeta{1.5, -0.5};
        const trace t = run_traced(self_problem(with_sinks(zeta, causal)));
        for (int h : {0, 1}) {
            const stage &w = check::stage_of(t, stage_id::weights, h);
            const stage &sink = check::stage_of(t, stage_id::sink, h);
            const matrix &logits = w.operands[0].values; // (T, T): L, or S̃ without a mask
            REQUIRE(sink.operands.size() == 2);
            CHECK(sink.operands[1].name == "ζ");
            CHECK(sink.operands[1].values(0, 0) == zeta[std::size_t(h)]);
            for (std::size_t i = 0; i < 6; ++i) {
                double mu = zeta[std::size_t(h)];
                for (std::size_t j = 0; j < 6; ++j)
                    mu = std::max(mu, logits(i, j));
                double total = std::exp(zeta[std::size_t(h)] - mu);
                for (std::size_t j = 0; j < 6; ++j)
                    total += std::exp(logits(i, j) - mu);
                for (std::size_t j = 0; j < 6; ++j)
                    CHECK(w.values(i, j) == Approx(std::exp(logits(i, j) - mu) / total).epsilon(1e-14));
                CHECK(sink.values(i, 0) ==
                      Approx(std::exp(zeta[std::size_t(h)] - mu) / total).epsilon(1e-14));
                CHECK(w.totals(i, 0) + sink.values(i, 0) == Approx(1.0).epsilon(1e-15));
            }
        }
    }
}

TEST_CASE("sinks: a sink of −1e300 is ordinary attention", "[sinks][property]") {
    const trace none = run_traced(self_problem({{"seqLen", 6.0}, {"dModel", 8.0}, {"numHeads", 2.0}, {"causal", true}}));
    const trace far = run_traced(self_problem(with_sinks(std::vector<double>{-1e300, -1e300})));
    check::tensor("output", none.stages.back().values, far.stages.back().values, 1e-12);
    CHECK(check::stage_of(far, stage_id::sink, 1).values(3, 0) == 0.0);
}

TEST_CASE("sinks: true draws one logit per head after every other draw", "[sinks][draws]") {
    const problem drawn = self_problem(with_sinks(true));
    const problem plain = self_problem({{"seqLen", 6.0}, {"dModel", 8.0}, {"numHeads", 2.0}, {"causal", true}});
    CHECK(drawn.params.w_o == plain.params.w_o); // the matrices as without sinks
    numpy_random rng(42);
    const std::size_t before = 6 * 8 + 3 * 2 * 8 * 4 + 8 * 8; // X, W_Q, W_K, W_V per head, W_O
    for (std::size_t k = 0; k < before; ++k)
        rng.gauss();
    const matrix zeta = rng.randn(1, 2);
    CHECK(drawn.config.sinks == std::vector<double>{zeta(0, 0), zeta(0, 1)});
}

TEST_CASE("sinks: explain takes a weight and a share apart, ζ in the sum", "[sinks][explain]") {
    const trace t = run_traced(self_problem(with_sinks(std::vector<double>{2.0, 0.0})));
    const cell_explanation w = explain_cell(t, stage_id::weights, 0, 4, 1);
    REQUIRE(w.softmax);
    CHECK(w.softmax->zeta == 2.0);
    double sum = *w.softmax->sink;
    for (double x : w.softmax->exps)
        sum += x;
    CHECK(w.softmax->exp_sum == Approx(sum).epsilon(1e-15));
    CHECK(w.value == Approx(w.softmax->exps[1] / w.softmax->exp_sum).epsilon(1e-14));
    const cell_explanation s = explain_cell(t, stage_id::sink, 0, 4, 0);
    CHECK(s.value == Approx(*s.softmax->sink / s.softmax->exp_sum).epsilon(1e-14));
}

TEST_CASE("sinks: traced and untraced passes agree bit for bit", "[sinks][forward]") {
    for (const bool causal : {false, true}) {
        field_values v = with_sinks(std::vector<double>{0.5, -1.0}, causal);
        v["softcap"] = 0.2;
        const problem p = self_problem(v);
        const trace t = run_traced(p);
        CHECK(check::compare(forward(p), t.stages.back().values, 0).max_diff == 0);
        CHECK(trace_value_count(p.config) == recorded_value_count(t));
    }
}

TEST_CASE("sinks: a wrong count or a non-finite logit is refused by name", "[sinks][validation]") {
    CHECK_THROWS_WITH(self_problem(with_sinks(std::vector<double>{1.0})),
                      "sinks: 1 logits for 2 query heads; give one per head (numHeads), or true to "
                      "draw them");
    CHECK_THROWS_WITH(
        self_problem(with_sinks(std::vector<double>{0.0, std::numeric_limits<double>::quiet_NaN()})),
        "sinks[1]: NaN is not a finite number");
}
