// QK-norm (Qwen3, Gemma 3): per head, each row of q and of k divided by its root mean square over
// d_k columns, times a gain per column, before RoPE; the scores read the normalised rows; each row
// of gain 1 has mean square ms / (ms + ε); the engine reports the bound on |S̃| this gives and each
// head's largest; decoding with a cache normalises every new key and query the same way; the
// untraced pass has the traced pass's bits; gains without qkNorm, of the wrong length or not
// finite are refused by name.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "attention/engine.hpp"
#include "attention/explain.hpp"
#include "attention/spec_reader.hpp"
#include "check.hpp"

using namespace attention;

namespace {

field_values normed(double heads, double kv_heads, bool causal) {
    return {{"seqLen", 6.0},         {"dModel", 8.0}, {"numHeads", heads}, {"numKvHeads", kv_heads},
            {"causal", causal},      {"weightScale", 1.0}, {"qkNorm", true}};
}

problem self_problem(const field_values &v) {
    return problem_of(problem_kind::self, false, v, true);
}

// Row i of x / √(mean(x²) + 1e-6) · gain, written out here from the definition. x: (P, DK).
double rms_cell(const matrix &x, std::size_t i, std::size_t a, double gain) {
    double squares = 0;
    for (std::size_t b = 0; b < cols(x); ++b)
        squares += x(i, b) * x(i, b);
    return x(i, a) / std::sqrt(squares / double(cols(x)) + 1e-6) * gain;
}

} // namespace

TEST_CASE("qkNorm: q_norm per head and k_norm per K/V head, the rows the scores read",
          "[qk-norm][known]") {
    const trace t = run_traced(self_problem(normed(4, 2, true))); // d_k = 2, groups of 2
    for (int h = 0; h < 4; ++h) {
        const stage &qn = check::stage_of(t, stage_id::q_norm, h);
        const matrix &q = check::stage_of(t, stage_id::q, h).values;
        REQUIRE(qn.operands.size() == 2);
        CHECK(qn.operands[0].name == "Q");
        CHECK(qn.operands[1].name == "λ_Q");
        for (std::size_t i = 0; i < 6; ++i)
            for (std::size_t a = 0; a < 2; ++a)
                CHECK(qn.values(i, a) == Approx(rms_cell(q, i, a, 1)).margin(1e-14));
        const stage &scores = check::stage_of(t, stage_id::scores, h);
        CHECK(scores.operands[0].name == "q_norm");
        CHECK(scores.operands[1].name == "k_norm");
        CHECK(scores.operands[1].head == h / 2 * 2); // the group's first head recorded k_norm
    }
    CHECK(std::count_if(t.stages.begin(), t.stages.end(),
                        [](const stage &s) { return s.id == stage_id::k_norm; }) == 2);
    const stage &kn = check::stage_of(t, stage_id::k_norm, 2);
    const matrix &k = check::stage_of(t, stage_id::k, 2).values;
    for (std::size_t i = 0; i < 6; ++i)
        CHECK(kn.values(i, 1) == Approx(rms_cell(k, i, 1, 1)).margin(1e-14));
}

TEST_CASE("qkNorm: with gain 1 each row's mean square is ms / (ms + ε)", "[qk-norm][property]") {
    field_values v = normed(2, 2, false);
    v["dModel"] = 16.0; // d_k = 8
    v["weightScale"] = 0.01; // small rows, where ε shows
    const trace t = run_traced(self_problem(v));
    for (const stage_id id : {stage_id::q_norm, stage_id::k_norm}) {
        const stage &n = check::stage_of(t, id, 1);
        const matrix &x = n.operands[0].values; // (T, 8)
        for (std::size_t i = 0; i < rows(x); ++i) {
            double before = 0, after = 0;
            for (std::size_t a = 0; a < 8; ++a)
                before += x(i, a) * x(i, a) / 8, after += n.values(i, a) * n.values(i, a) / 8;
            CHECK(after == Approx(before / (before + 1e-6)).margin(1e-12));
        }
    }
}

TEST_CASE("qkNorm: before RoPE, which turns the normalised rows", "[qk-norm][rope]") {
    field_values v = normed(2, 2, true);
    v["rope"] = true;
    const trace t = run_traced(self_problem(v));
    const stage &q_rot = check::stage_of(t, stage_id::q_rot, 1);
    CHECK(q_rot.operands[0].name == "q_norm");
    CHECK(check::stage_of(t, stage_id::k_rot, 0).operands[0].name == "k_norm");
    CHECK(check::stage_of(t, stage_id::scores, 1).operands[0].name == "q_rot");
    // A turn keeps each row's length: the turned rows keep the normalised mean square.
    const matrix &qn = check::stage_of(t, stage_id::q_norm, 1).values;
    for (std::size_t i = 0; i < 6; ++i)
        CHECK(q_rot.values(i, 0) * q_rot.values(i, 0) + q_rot.values(i, 1) * q_rot.values(i, 1) ==
              Approx(qn(i, 0) * qn(i, 0) + qn(i, 1) * qn(i, 1)).margin(1e-14));
}

TEST_CASE("qkNorm: given gains multiply each column; the bound follows them",
          "[qk-norm][gains]") {
    field_values v = normed(2, 1, false);
    v["qNormGain"] = std::vector<double>{2, -0.5, 1, 1};
    v["kNormGain"] = std::vector<double>{1, 3, 1, 0.25};
    v["dModel"] = 8.0;
    v["dK"] = 4.0;
    const trace t = run_traced(self_problem(v));
    const stage &qn = check::stage_of(t, stage_id::q_norm, 1);
    const matrix &q = check::stage_of(t, stage_id::q, 1).values;
    CHECK(qn.values(3, 0) == Approx(rms_cell(q, 3, 0, 2)).margin(1e-14));
    CHECK(qn.values(3, 1) == Approx(rms_cell(q, 3, 1, -0.5)).margin(1e-14));
    CHECK(check::stage_of(t, stage_id::k_norm, 0).operands[1].values(0, 1) == 3);
    // max |λ_Q·λ_K| = 2 (columns 0 and 1 both): d_k · 2 / √d_k = 4.
    REQUIRE(t.checks.qk_norm_bound);
    CHECK(*t.checks.qk_norm_bound == 4);
    REQUIRE(t.checks.qk_norm_largest.size() == 2);
    for (int h : {0, 1}) {
        const matrix &s = check::stage_of(t, stage_id::scaled, h).values;
        CHECK(t.checks.qk_norm_largest[std::size_t(h)] == xt::amax(xt::abs(s))());
        CHECK(t.checks.qk_norm_largest[std::size_t(h)] <= 4);
    }
}

TEST_CASE("qkNorm: gain 1 bounds |S̃| by √d_k however large the weights", "[qk-norm][checks]") {
    field_values v = normed(2, 2, false);
    v["weightScale"] = 10.0;
    const trace t = run_traced(self_problem(v)); // d_k = 4
    CHECK(*t.checks.qk_norm_bound == 2);
    for (double largest : t.checks.qk_norm_largest) {
        CHECK(largest <= 2);
        CHECK(largest > 0.5);
    }
    CHECK(run_traced(self_problem({{"seqLen", 4.0}, {"dModel", 8.0}})).checks.qk_norm_largest.empty());
}

TEST_CASE("qkNorm: explain takes a normalised cell apart", "[qk-norm][explain]") {
    field_values v = normed(2, 2, false);
    v["qNormGain"] = std::vector<double>{1.5, 1, 1, 1};
    const trace t = run_traced(self_problem(v));
    const cell_explanation e = explain_cell(t, stage_id::q_norm, 1, 4, 0);
    const matrix &q = check::stage_of(t, stage_id::q, 1).values;
    REQUIRE(e.rms);
    CHECK(e.input == q(4, 0));
    CHECK(e.rms->gain == 1.5);
    CHECK(e.rms->eps == 1e-6);
    CHECK(e.rms->row.size() == 4);
    CHECK(e.rms->mean_square ==
          Approx((q(4, 0) * q(4, 0) + q(4, 1) * q(4, 1) + q(4, 2) * q(4, 2) + q(4, 3) * q(4, 3)) / 4)
              .epsilon(1e-15));
    CHECK(e.value == Approx(*e.input / std::sqrt(e.rms->mean_square + 1e-6) * 1.5).epsilon(1e-15));
}

TEST_CASE("qkNorm: traced and untraced passes agree bit for bit", "[qk-norm][forward]") {
    for (const bool causal : {false, true})
        for (const bool rope : {false, true}) {
            field_values v = normed(4, 2, causal);
            if (rope)
                v["rope"] = true;
            const problem p = self_problem(v);
            INFO(check::describe(p.config));
            const trace t = run_traced(p);
            CHECK(check::compare(forward(p), t.stages.back().values, 0).max_diff == 0);
            CHECK(trace_value_count(p.config) == recorded_value_count(t));
        }
}

TEST_CASE("qkNorm: decoding with a cache normalises each new query and key",
          "[qk-norm][kv-cache]") {
    field_values v = normed(4, 2, false);
    v.erase("causal");
    v["rope"] = true;
    v["window"] = 3.0;
    const problem p = problem_of(problem_kind::kv_cache, false, v, true);
    const trace t = run_traced(p);
    REQUIRE(t.checks.max_difference);
    CHECK(*t.checks.max_difference < 1e-12); // every step's row against one causal pass
    const stage &k_rot = check::stage_of(t, stage_id::k_rot, 0, 4);
    CHECK(k_rot.operands[0].name == "k_norm");
    CHECK(check::stage_of(t, stage_id::k_cache, 0, 4).operands[1].name == "k_rot");
    CHECK(check::stage_of(t, stage_id::q_rot, 3, 4).operands[0].name == "q_norm");
    CHECK(trace_value_count(p.config) == recorded_value_count(t));
}

TEST_CASE("qkNorm: gains without it, of the wrong length or not finite are refused by name",
          "[qk-norm][validation]") {
    field_values v = normed(2, 2, false);
    v["qkNorm"] = false;
    v["qNormGain"] = std::vector<double>{1, 1, 1, 1};
    CHECK_THROWS_WITH(self_problem(v), "qNormGain: is a gain of QK-norm; give qkNorm: true with "
                                       "it, or leave it out");
    v["qkNorm"] = true;
    v["kNormGain"] = std::vector<double>{1, 1, 1};
    CHECK_THROWS_WITH(self_problem(v), "kNormGain: 3 gains for d_k = 4 columns; give one per "
                                       "column of a head (dK)");
    v["kNormGain"] = std::vector<double>{1, std::numeric_limits<double>::quiet_NaN(), 1, 1};
    CHECK_THROWS_WITH(self_problem(v), "kNormGain[1]: NaN is not a finite number");
}
