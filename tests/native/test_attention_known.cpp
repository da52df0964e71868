// Self-attention on a 2-token problem small enough to work out by hand, and the
// multi-head pass reducing to self_attention when there is nothing to mix.
#include <catch2/catch.hpp>

#include <cmath>

#include <xtensor/xbuilder.hpp>

#include "attention/attention.hpp"
#include "attention/ops.hpp"
#include "attention/spec.hpp"
#include "check.hpp"

using namespace attention;
using check::inf;
using check::m;
using check::stage_of;

namespace {

// T = T_kv = D = DK = DV = 2, one head.
attention_config two_tokens(bool causal) {
    attention_config c;
    c.seq_len = 2, c.kv_len = 2, c.d_model = 2, c.num_heads = 1, c.num_kv_heads = 1;
    c.d_k = 2, c.d_v = 2;
    c.causal = causal;
    return c;
}

} // namespace

TEST_CASE("self_attention: two tokens worked out by hand", "[attention][known]") {
    // X = I, W_Q = c·I with c = √2·ln 3, W_K = I, W_V = [[1, 2], [3, 4]].
    // Q = X·W_Q = c·I, K = I, V = W_V.
    // scores = Q·Kᵀ = c·I;  scaled = c·I / √2 = ln 3 · I.
    // softmax([ln 3, 0]) = [3/4, 1/4] and softmax([0, ln 3]) = [1/4, 3/4].
    // head = weights·V = [[¾·1 + ¼·3, ¾·2 + ¼·4],   = [[1.5, 2.5],
    //                    [¼·1 + ¾·3, ¼·2 + ¾·4]]      [2.5, 3.5]]
    const double c = std::sqrt(2.0) * std::log(3.0), ln3 = std::log(3.0);
    const matrix x = m({{1, 0}, {0, 1}}), w_q = m({{c, 0}, {0, c}}), w_k = x,
                 w_v = m({{1, 2}, {3, 4}});
    trace t;
    t.config = two_tokens(false);
    const head_result r = self_attention(x, w_q, w_k, w_v, two_tokens(false), &t, 0);
    check::tensor("q", stage_of(t, stage_id::q, 0).values, w_q, 0);
    check::tensor("k", stage_of(t, stage_id::k, 0).values, w_k, 0);
    check::tensor("v", stage_of(t, stage_id::v, 0).values, w_v, 0);
    check::tensor("scores", stage_of(t, stage_id::scores, 0).values, w_q, 0);
    check::tensor("scaled", stage_of(t, stage_id::scaled, 0).values, m({{ln3, 0}, {0, ln3}}),
                  1e-15);
    check::tensor("weights", r.weights, m({{0.75, 0.25}, {0.25, 0.75}}), 1e-15);
    check::tensor("head", r.output, m({{1.5, 2.5}, {2.5, 3.5}}), 1e-14);
    // Each row of weights carries its total: 3/4 + 1/4 = 1.
    check::tensor("weights totals", stage_of(t, stage_id::weights, 0).totals, m({{1}, {1}}), 0);
}

TEST_CASE("self_attention: two tokens with a causal mask, by hand", "[attention][known]") {
    // As above, but token 0 may not see token 1:
    // masked = scaled + M = [[ln 3, 0], [0, ln 3]] + [[0, −∞], [0, 0]] = [[ln 3, −∞], [0, ln 3]]
    // → weights [[1, 0], [1/4, 3/4]];  head = [[1, 2], [¼·1 + ¾·3, ¼·2 + ¾·4]] = [[1, 2],
    // [2.5, 3.5]].
    const double c = std::sqrt(2.0) * std::log(3.0), ln3 = std::log(3.0);
    const matrix x = m({{1, 0}, {0, 1}}), w_v = m({{1, 2}, {3, 4}});
    trace t;
    t.config = two_tokens(true);
    const head_result r = self_attention(x, m({{c, 0}, {0, c}}), x, w_v, two_tokens(true), &t, 0);
    const stage &masked = stage_of(t, stage_id::masked, 0);
    check::tensor("masked", masked.values, m({{ln3, -inf}, {0, ln3}}), 1e-15);
    REQUIRE(masked.operands.size() == 2);
    CHECK(masked.operands[0].name == "scaled");
    CHECK(masked.operands[1].name == "M");
    CHECK(masked.operands[1].head == no_head);
    check::tensor("scaled operand", masked.operands[0].values, m({{ln3, 0}, {0, ln3}}), 1e-15);
    check::tensor("M operand", masked.operands[1].values, m({{0, -inf}, {0, 0}}), 0);
    check::tensor("weights", r.weights, m({{1, 0}, {0.25, 0.75}}), 1e-15);
    check::tensor("head", r.output, m({{1, 2}, {2.5, 3.5}}), 1e-14);
}

TEST_CASE("self_attention: without scaling the logits are the raw scores", "[attention][known]") {
    // scale_scores = false: X = I, W_Q = ln 3 · I, W_K = I → scores = ln 3 · I, weights as above.
    attention_config cfg = two_tokens(false);
    cfg.scale_scores = false;
    const double ln3 = std::log(3.0);
    const matrix x = m({{1, 0}, {0, 1}});
    const head_result r = self_attention(x, m({{ln3, 0}, {0, ln3}}), x, x, cfg);
    check::tensor("weights", r.weights, m({{0.75, 0.25}, {0.25, 0.75}}), 1e-15);
}

TEST_CASE("multi_head_attention: one head and W_O = I equals self_attention",
          "[attention][property]") {
    for (const bool causal : {false, true}) {
        CAPTURE(causal);
        // One head with d_v = d_model, so that W_O (h·d_v, d_model) can be the identity.
        generated_spec s;
        s.seq_len = 6, s.d_model = 8, s.num_heads = 1, s.d_k = 3, s.d_v = 8, s.causal = causal;
        problem p = make_problem(s);
        p.params.w_o = xt::eye<double>(8);
        const head_result single =
            self_attention(p.params.x, p.params.w_q[0], p.params.w_k[0], p.params.w_v[0], p.config);
        check::tensor("with W_O = I", multi_head_attention(p.params, p.config), single.output, 0);
        p.config.output_projection = false;
        check::tensor("without W_O", multi_head_attention(p.params, p.config), single.output, 0);
    }
}
