// Logit soft-capping (Gemma 2): the capped stage is κ·tanh(S̃ / κ), after ÷√d_k and before any
// bias or mask; every logit lands within ±κ; a cap of 1e300 changes nothing (to 1e-12); the
// untraced pass has the traced pass's bits and the trace counts the stage; a bad κ, or a cap
// with ALiBi's bias, is refused by name.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "attention/engine.hpp"
#include "attention/explain.hpp"
#include "attention/spec_reader.hpp"
#include "check.hpp"
#include "oracle.hpp"

using namespace attention;

namespace {

field_values capped(double kappa, bool causal, double weight_scale = 1) {
    return {{"seqLen", 6.0},   {"dModel", 8.0},          {"numHeads", 2.0},
            {"causal", causal}, {"weightScale", weight_scale}, {"softcap", kappa}};
}

problem self_problem(field_values v) {
    return problem_of(problem_kind::self, false, v, true);
}

} // namespace

TEST_CASE("softcap: the capped stage is κ·tanh(S̃ / κ), the logits the mask then reads",
          "[softcap][known]") {
    for (const bool causal : {false, true}) {
        CAPTURE(causal);
        const trace t = run_traced(self_problem(capped(0.5, causal)));
        for (int h : {0, 1}) {
            const stage &cap = check::stage_of(t, stage_id::capped, h);
            const matrix &scaled = check::stage_of(t, stage_id::scaled, h).values;
            REQUIRE(cap.operands.size() == 2);
            CHECK(cap.operands[0].name == "scaled");
            CHECK(cap.operands[1].name == "κ");
            CHECK(cap.operands[1].values(0, 0) == 0.5);
            double largest = 0;
            for (std::size_t i = 0; i < 6; ++i)
                for (std::size_t j = 0; j < 6; ++j) {
                    CHECK(cap.values(i, j) == 0.5 * std::tanh(scaled(i, j) / 0.5));
                    CHECK(std::fabs(cap.values(i, j)) <= 0.5); // tanh rounds to ±1 far out
                    largest = std::max(largest, std::fabs(scaled(i, j)));
                }
            CHECK(largest > 0.5); // weight scale 1: the cap bends some logits
            const matrix &cv = cap.values;
            const matrix logits = causal ? matrix(cv + attention_mask(t.config)) : cv;
            check::tensor("weights = softmax(cap)", oracle::softmax_rows(logits),
                          check::stage_of(t, stage_id::weights, h).values, 1e-15);
            CHECK(check::stage_of(t, stage_id::weights, h).operands[0].name ==
                  (causal ? "masked" : "capped"));
        }
        if (causal)
            CHECK(check::stage_of(t, stage_id::masked, 0).operands[0].name == "capped");
    }
}

TEST_CASE("softcap: a cap of 1e300 is no cap", "[softcap][property]") {
    const trace none = run_traced(problem_of(problem_kind::self, false,
                                             {{"seqLen", 6.0},
                                              {"dModel", 8.0},
                                              {"numHeads", 2.0},
                                              {"causal", true},
                                              {"weightScale", 1.0}},
                                             true));
    const trace wide = run_traced(self_problem(capped(1e300, true)));
    check::tensor("output", none.stages.back().values, wide.stages.back().values, 1e-12);
    check::tensor("weights", check::stage_of(none, stage_id::weights, 1).values,
                  check::stage_of(wide, stage_id::weights, 1).values, 1e-12);
}

TEST_CASE("softcap: explain takes a capped cell apart", "[softcap][explain]") {
    const trace t = run_traced(self_problem(capped(0.5, false)));
    const cell_explanation e = explain_cell(t, stage_id::capped, 1, 3, 2);
    const double s = check::stage_of(t, stage_id::scaled, 1).values(3, 2);
    CHECK(e.input == s);
    CHECK(e.cap == 0.5);
    CHECK(e.value == 0.5 * std::tanh(s / 0.5));
}

TEST_CASE("softcap: traced and untraced passes agree bit for bit", "[softcap][forward]") {
    for (const bool causal : {false, true})
        for (const double heads : {1.0, 2.0}) {
            field_values v = capped(0.75, causal);
            v["numHeads"] = heads;
            v["window"] = 3.0;
            const problem p = self_problem(v);
            INFO(check::describe(p.config));
            const trace t = run_traced(p);
            CHECK(check::compare(forward(p), t.stages.back().values, 0).max_diff == 0);
            CHECK(trace_value_count(p.config) == recorded_value_count(t));
        }
}

TEST_CASE("softcap: a cap that caps nothing is refused by name", "[softcap][validation]") {
    for (const double bad : {0.0, -1.0, 1e301, std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN()}) {
        CAPTURE(bad);
        CHECK_THROWS_WITH(self_problem(capped(bad, false)),
                          Catch::Matchers::StartsWith("softcap: ") &&
                              Catch::Matchers::EndsWith(" is out of range (0, 1e+300]; Gemma 2 caps "
                                                        "its attention logits at 50"));
    }
    field_values with_alibi = capped(2, true);
    with_alibi["alibi"] = true;
    CHECK_THROWS_WITH(self_problem(with_alibi),
                      Catch::Matchers::StartsWith("softcap: and alibi together are not stepped here"));
}

TEST_CASE("softcap: the run measures what the cap changed in each head's weights",
          "[softcap][checks]") {
    const trace t = run_traced(self_problem(capped(0.5, true)));
    REQUIRE(t.checks.softcap_change.size() == 2);
    for (int h : {0, 1}) {
        const matrix &scaled = check::stage_of(t, stage_id::scaled, h).values;
        const matrix uncapped = oracle::softmax_rows(scaled + attention_mask(t.config)); // (T, T)
        const matrix &a = check::stage_of(t, stage_id::weights, h).values;
        const double worst = xt::amax(xt::abs(uncapped - a))();
        CHECK(t.checks.softcap_change[std::size_t(h)] == Approx(worst).margin(1e-15));
        CHECK(worst > 0.05); // κ = 0.5 at weight scale 1 moves some weight visibly
    }
    CHECK(run_traced(problem_of(problem_kind::self, false, {{"seqLen", 4.0}, {"dModel", 8.0}}, true))
              .checks.softcap_change.empty());
}
