// Multi-head latent attention (DeepSeek-V2 §2.1): the stages in their order with their shapes and
// equations; each head's keys and values up from the one latent; the scores' two terms, and the
// absorbed path (q · W_UKᵀ against c_kv, weights · c_kv through W_UV) giving the same matrices; with
// dRope 0 it is multi-head attention whose K and V are c_kv · W_UK and c_kv · W_UV; the untraced
// pass has the traced pass's bits; the cache per token; every bad field refused by name.
#include <catch2/catch.hpp>

#include <cmath>

#include "attention/attention.hpp"
#include "attention/budget.hpp"
#include "attention/engine.hpp"
#include "attention/explain.hpp"
#include "attention/mla.hpp"
#include "attention/spec_reader.hpp"
#include "check.hpp"

using namespace attention;

namespace {

field_values latent_fields(double d_rope, bool causal) {
    return {{"seqLen", 6.0},  {"dModel", 12.0},  {"numHeads", 3.0}, {"dK", 4.0},
            {"dV", 2.0},      {"dLatent", 5.0},  {"dRope", d_rope}, {"causal", causal},
            {"weightScale", 0.7}, {"seed", 9.0}};
}

problem latent_problem(const field_values &v) {
    return problem_of(problem_kind::mla, false, v, true);
}

} // namespace

TEST_CASE("mla: the stages in order, with their shapes and equations", "[mla]") {
    const trace t = run_traced(latent_problem(latent_fields(2, true)));
    const std::vector<std::string> head0{"q/0", "q_rope/0", "k/0", "v/0", "q_absorbed/0", "scores/0",
                                         "scaled/0", "masked/0", "weights/0", "latent_head/0", "head/0"};
    std::vector<std::string> want{"x", "c_kv", "k_rope"};
    for (int h = 0; h < 3; ++h)
        for (const std::string &s : head0)
            want.push_back(s.substr(0, s.size() - 1) + std::to_string(h));
    want.push_back("concat");
    want.push_back("output");
    CHECK(check::labels(t) == want);
    CHECK(check::stage_of(t, stage_id::c_kv, no_head).eq.symbolic == "(T, d_model) @ (d_model, d_c) → (T, d_c)");
    CHECK(check::stage_of(t, stage_id::k, 1).eq.numeric == "(6, 5) @ (5, 4) → (6, 4)");
    const stage &scores = check::stage_of(t, stage_id::scores, 2);
    CHECK(scores.eq.symbolic == "(T, d_k) @ (d_k, T) + (T, d_r) @ (d_r, T) → (T, T)");
    CHECK(scores.terms == std::vector<std::string>{"decoupled-rope"});
    CHECK(check::stage_of(t, stage_id::scaled, 0).eq.symbolic == "(T, T) ÷ √(d_k + d_r) → (T, T)");
    CHECK(check::stage_of(t, stage_id::q_absorbed, 0).eq.numeric == "(6, 4) @ (5, 4)ᵀ → (6, 5)");
    CHECK(check::stage_of(t, stage_id::latent_head, 0).eq.numeric == "(6, 6) @ (6, 5) → (6, 5)");
    CHECK(check::stage_of(t, stage_id::head, 0).eq.symbolic == "(T, d_c) @ (d_c, d_v) → (T, d_v)");
    CHECK(check::stage_of(t, stage_id::k_rope, no_head).eq.numeric == "rotate((6, 12) @ (12, 2)) → (6, 2)");
    CHECK(recorded_value_count(t) == trace_value_count(t.config));
}

TEST_CASE("mla: keys and values up from the latent; the scores' two terms; absorbed = unabsorbed",
          "[mla]") {
    const problem p = latent_problem(latent_fields(2, true));
    const trace t = run_traced(p);
    const latent_params &w = p.params.latent;
    const matrix c_kv = check::naive_matmul(p.params.x, w.w_dkv); // (T, DC)
    check::tensor("c_kv", check::stage_of(t, stage_id::c_kv, no_head).values, c_kv, 1e-15);
    const matrix &k_rope = check::stage_of(t, stage_id::k_rope, no_head).values; // (T, DR)
    for (int h = 0; h < 3; ++h) {
        const matrix q = check::naive_matmul(p.params.x, p.params.w_q[h]);
        const matrix k = check::naive_matmul(c_kv, w.w_uk[h]);
        const matrix v = check::naive_matmul(c_kv, w.w_uv[h]);
        check::tensor("k", check::stage_of(t, stage_id::k, h).values, k, 1e-15);
        check::tensor("v", check::stage_of(t, stage_id::v, h).values, v, 1e-15);
        const matrix &q_rope = check::stage_of(t, stage_id::q_rope, h).values;
        const matrix two_terms = matrix(check::naive_matmul(q, xt::transpose(k)) +
                                        check::naive_matmul(q_rope, xt::transpose(k_rope)));
        check::tensor("scores", check::stage_of(t, stage_id::scores, h).values, two_terms, 1e-14);
        const matrix scaled = two_terms / std::sqrt(4.0 + 2.0);
        check::tensor("scaled", check::stage_of(t, stage_id::scaled, h).values, scaled, 1e-14);
        const matrix &a = check::stage_of(t, stage_id::weights, h).values;
        check::tensor("head", check::stage_of(t, stage_id::head, h).values, check::naive_matmul(a, v), 1e-14);
        check::tensor("latent_head", check::stage_of(t, stage_id::latent_head, h).values,
                      check::naive_matmul(a, c_kv), 1e-14);
        CHECK(a(0, 1) == 0.0); // causal
    }
    REQUIRE(t.checks.absorbed_difference);
    INFO(*t.checks.absorbed_difference);
    CHECK(*t.checks.absorbed_difference <= 1e-12); // scores of tens: rounding of 1e-14
    CHECK(*t.checks.absorbed_difference > 0.0); // two roundings, not one matrix read twice
    // The explanation of a score adds both terms' products in one sum.
    const cell_explanation e = explain_cell(t, stage_id::scores, 1, 3, 2, no_step);
    CHECK(e.terms.size() == 4 + 2);
    CHECK(std::fabs(e.sum - e.value) <= 1e-15);
}

TEST_CASE("mla: without RoPE it is multi-head attention with K = c_kv · W_UK, V = c_kv · W_UV",
          "[mla]") {
    const problem p = latent_problem(latent_fields(0, false));
    const trace t = run_traced(p);
    CHECK(check::stage_of(t, stage_id::scores, 0).eq.symbolic == "(T, d_k) @ (d_k, T) → (T, T)");
    CHECK(check::stage_of(t, stage_id::scaled, 0).eq.symbolic == "(T, T) ÷ √d_k → (T, T)");
    attention_params mha = p.params;
    mha.latent = {};
    for (std::size_t h = 0; h < 3; ++h) {
        mha.w_k.push_back(check::naive_matmul(p.params.latent.w_dkv, p.params.latent.w_uk[h]));
        mha.w_v.push_back(check::naive_matmul(p.params.latent.w_dkv, p.params.latent.w_uv[h]));
    }
    attention_config c = p.config;
    c.kind = problem_kind::self;
    check::tensor("output", forward(p), multi_head_attention(mha, c), 1e-14);
    CHECK((forward(p) == t.stages.back().values.get())); // untraced: the traced bits
    const problem roped = latent_problem(latent_fields(2, true));
    CHECK((forward(roped) == run_traced(roped).stages.back().values.get()));
}

TEST_CASE("mla: the cache per token beside MHA and GQA at the same sizes", "[mla]") {
    const latent_cache_floats f = latent_cache(latent_problem(latent_fields(2, true)).config);
    CHECK(f.mla == 5 + 2);
    CHECK(f.mha == 3 * (4 + 2));
    REQUIRE(f.gqa.size() == 1);
    CHECK(f.gqa[0] == std::pair<std::size_t, std::size_t>{1, 6});
}

TEST_CASE("mla: bad fields refused by name", "[mla]") {
    const auto refuses = [](field_values v, const std::string &start) {
        CHECK_THROWS_WITH(latent_problem(v), Catch::StartsWith(start));
    };
    field_values v = latent_fields(2, true);
    v["dRope"] = 3.0;
    refuses(v, "dRope: 3 is odd");
    v = latent_fields(2, true);
    v.erase("dLatent");
    refuses(v, "dLatent: is missing");
    v["dLatent"] = 0.0;
    refuses(v, "dLatent: 0 is out of range");
    v["dLatent"] = 1e6;
    refuses(v, "dLatent: 1000000 is out of range");
    v = latent_fields(0, false);
    v["rope"] = true;
    refuses(v, "rope: turns MLA's decoupled RoPE part, and dRope is 0");
}
