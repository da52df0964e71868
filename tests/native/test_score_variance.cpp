// The √d_k argument's premise, measured: config.scoreVariance holds, per query head, the
// population variance of S and of S̃ over the scores its queries see. Checked by hand on a
// two-token example, against numpy's S[M == 0].var() redone here from the trace's Q and K, and
// as properties: var(S̃) = var(S) / d_k, a decode pools its steps into the causal pass's value.
#include <catch2/catch.hpp>

#include <cmath>

#include "attention/engine.hpp"
#include "attention/presets.hpp"
#include "attention/score_variance.hpp"
#include "attention/spec.hpp"
#include "attention/spec_reader.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;

namespace {

// X = diag(1, 2), W_Q = W_K = W_V = I (d_k = 2): S = X Xᵀ = [[1, 0], [0, 4]].
explicit_spec two_tokens(bool causal) {
    explicit_spec s;
    s.x = {{1, 0}, {0, 2}};
    s.w_q = s.w_k = s.w_v = {{{1, 0}, {0, 1}}};
    s.causal = causal;
    return s;
}

const stage &stage_of(const trace &t, stage_id id, int head) {
    for (const stage &s : t.stages)
        if (s.id == id && s.head == head)
            return s;
    FAIL("no stage " << name_of(id) << " for head " << head);
    throw;
}

// numpy's way: S = Q @ K.T from the trace's own Q and K, the entries where M is 0, then
// E[S²] − E[S]² (a different formula from the engine's two passes).
double numpy_style(const trace &t, int head, const matrix &q, const matrix &k) {
    const attention_config &c = t.config;
    double sum = 0, squares = 0, n = 0;
    for (std::size_t i = 0; i < rows(q); ++i)
        for (std::size_t j = 0; j < rows(k); ++j) {
            const bool seen = (!c.causal || j <= i) && (!c.valid_keys || j < *c.valid_keys);
            if (!seen)
                continue;
            double s = 0;
            for (std::size_t d = 0; d < cols(q); ++d)
                s += q(i, d) * k(j, d);
            sum += s, squares += s * s, n += 1;
        }
    INFO("head " << head << ", " << n << " scores");
    return squares / n - (sum / n) * (sum / n);
}

} // namespace

TEST_CASE("score variance: two tokens by hand", "[score-variance][known]") {
    const trace full = run_traced(make_problem(two_tokens(false)));
    REQUIRE(full.checks.score_variance.size() == 1);
    const score_spread &all = full.checks.score_variance[0];
    CHECK(all.entries == 4);                          // 1, 0, 0, 4: mean 5/4
    CHECK(std::fabs(all.scores - 43.0 / 16) < 1e-15); // (1 + 25 + 25 + 121) / 64
    CHECK(std::fabs(all.scaled - 43.0 / 32) < 1e-15); // ÷ √2 divides it by 2
    const trace causal = run_traced(make_problem(two_tokens(true)));
    const score_spread &seen = causal.checks.score_variance.at(0);
    CHECK(seen.entries == 3);                         // 1, 0, 4: S₀₁ is masked
    CHECK(std::fabs(seen.scores - 26.0 / 9) < 1e-15); // mean 5/3: (4 + 25 + 49) / 27
    CHECK(std::fabs(seen.scaled - 13.0 / 9) < 1e-15);
}

TEST_CASE("score variance: every head equals numpy's S[M == 0].var()", "[score-variance]") {
    const std::vector<generated_spec> cases{preset("lesson-multi-head"), preset("lesson-causal"),
                                            preset("gqa-4-2"), preset("cross-padding"),
                                            specs::self(6, 12, 3, 5, 2, true)};
    for (generated_spec s : cases)
        for (const double scale : {0.1, 1.0}) {
            s.weight_scale = scale;
            const trace t = run_traced(make_problem(s, true));
            INFO(check::describe(t.config) << ", weightScale " << scale);
            REQUIRE(t.checks.score_variance.size() == t.config.num_heads);
            for (const score_spread &v : t.checks.score_variance) {
                const int h = int(v.head);
                const double want =
                    numpy_style(t, h, stage_of(t, stage_id::q, h).values,
                                stage_of(t, stage_id::scores, h).operands[1].values);
                CHECK(std::fabs(v.scores - want) <= 1e-12 * want);
                CHECK(std::fabs(v.scaled - v.scores / double(t.config.d_k)) <= 1e-12 * v.scaled);
            }
        }
}

TEST_CASE("score variance: a decode pools its steps into the causal pass's value",
          "[score-variance][decode]") {
    generated_spec decode = preset("kv-cache-gqa");
    generated_spec causal = decode;
    causal.kind = problem_kind::self, causal.causal = true;
    const trace steps = run_traced(make_problem(decode, true));
    const trace whole = run_traced(make_problem(causal, true));
    REQUIRE(steps.checks.score_variance.size() == whole.checks.score_variance.size());
    for (std::size_t h = 0; h < steps.checks.score_variance.size(); ++h) {
        const score_spread &a = steps.checks.score_variance[h], &b = whole.checks.score_variance[h];
        CAPTURE(h, a.scores, b.scores);
        CHECK(a.entries == b.entries); // T(T + 1) / 2
        CHECK(std::fabs(a.scores - b.scores) <= 1e-12 * b.scores);
        CHECK(std::fabs(a.scaled - b.scaled) <= 1e-12 * b.scaled);
    }
}

TEST_CASE("score variance: flash records no score stages, so no check", "[score-variance]") {
    CHECK(run_traced(make_problem(preset("flash-causal"), true)).checks.score_variance.empty());
}

// A model's trace holds head n once per layer (its step): each (layer, head) is its own entry,
// over its own layer's scores alone, E[S²] − E[S]² over the causal entries of its stage.
TEST_CASE("score variance: a model's heads are per layer, each over its own layer's scores",
          "[score-variance][model]") {
    const std::vector<double> tokens{20, 8, 14, 7, 5, 3, 21, 14, 7, 5, 3, 21};
    const trace t =
        run_traced(problem_of(problem_kind::model, false,
                              {{"checkpoint", std::string("trained")}, {"tokens", tokens}}, true));
    const std::size_t n = tokens.size();
    REQUIRE(t.checks.score_variance.size() == 4); // 2 layers × 2 heads
    for (const score_spread &v : t.checks.score_variance) {
        REQUIRE(v.layer);
        const stage *scores = nullptr;
        for (const stage &s : t.stages)
            if (s.id == stage_id::scores && s.head == int(v.head) && s.step == int(*v.layer))
                scores = &s;
        REQUIRE(scores);
        double sum = 0, squares = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j)
                sum += scores->values(i, j), squares += scores->values(i, j) * scores->values(i, j);
        const double count = double(n * (n + 1) / 2),
                     var = squares / count - (sum / count) * (sum / count);
        CAPTURE(*v.layer, v.head, v.scores, var);
        CHECK(v.entries == n * (n + 1) / 2);
        CHECK(std::fabs(v.scores - var) <= 1e-12 * var);
    }
    CHECK(t.checks.score_variance[0].scores != t.checks.score_variance[2].scores);
}
