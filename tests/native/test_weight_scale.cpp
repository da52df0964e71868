// weightScale: every drawn weight and bias (W_Q, W_K, W_V, W_O, W1, W2, b1, b2) is randn ·
// weightScale, in the engine's order, while X is drawn unscaled. Checked bit for bit against
// numpy's generator drawn here: randn · 1 is the normal itself, which randn · 0.1 · 10 need not
// be, so "ten times the default weights" holds only to rounding.
#include <catch2/catch.hpp>

#include <cmath>

#include "attention/presets.hpp"
#include "attention/rng.hpp"
#include "attention/spec.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;

namespace {

generated_spec scaled(generated_spec s, double scale) {
    s.weight_scale = scale;
    return s;
}

// The problem's draws redone with numpy_random: X (X_q, X_kv), each W_Q, W_K, W_V, W_O, then
// W1, W2, b1, b2; each checked exactly.
void check_draws(const problem &p) {
    const attention_config &c = p.config;
    INFO(check::describe(c) << ", weightScale " << c.weight_scale);
    numpy_random rng(42);
    const double s = c.weight_scale;
    check::tensor("X", p.params.x, rng.randn(c.seq_len, c.d_model), 0);
    if (c.kind == problem_kind::cross)
        check::tensor("X_kv", p.params.x_kv, rng.randn(c.kv_len, c.d_model), 0);
    for (const matrix &w : p.params.w_q)
        check::tensor("W_Q", w, rng.randn(c.d_model, c.d_k) * s, 0);
    for (const matrix &w : p.params.w_k)
        check::tensor("W_K", w, rng.randn(c.d_model, c.d_k) * s, 0);
    for (const matrix &w : p.params.w_v)
        check::tensor("W_V", w, rng.randn(c.d_model, c.d_v) * s, 0);
    if (c.output_projection)
        check::tensor("W_O", p.params.w_o, rng.randn(c.num_heads * c.d_v, c.d_model) * s, 0);
    if (c.kind != problem_kind::encoder_layer)
        return;
    check::tensor("W1", p.ffn.w1, rng.randn(c.d_model, c.d_ff) * s, 0);
    check::tensor("W2", p.ffn.w2, rng.randn(c.d_ff, c.d_model) * s, 0);
    check::tensor("b1", p.ffn.b1, rng.randn(1, c.d_ff) * s, 0);
    check::tensor("b2", p.ffn.b2, rng.randn(1, c.d_model) * s, 0);
}

} // namespace

TEST_CASE("weightScale: every kind draws randn · weightScale, X unscaled", "[weight-scale][rng]") {
    const std::vector<generated_spec> kinds{preset("lesson-multi-head"), preset("gqa-4-2"),
                                            preset("cross-padding"),     preset("encoder-layer"),
                                            preset("kv-cache-gqa"),      preset("flash-causal")};
    for (const generated_spec &s : kinds)
        for (const double scale : {0.1, 1.0, 2.5, 10.0, 1e-3})
            check_draws(make_problem(scaled(s, scale)));
}

TEST_CASE("weightScale: the default is 0.1, and 1 gives ten times its weights to rounding",
          "[weight-scale]") {
    const problem lesson = make_problem(preset("lesson-multi-head"));
    const problem one = make_problem(scaled(preset("lesson-multi-head"), 1));
    CHECK(lesson.config.weight_scale == 0.1);
    CHECK(one.config.weight_scale == 1.0);
    check::tensor("X", one.params.x, lesson.params.x, 0);
    std::size_t inexact = 0;
    double worst = 0; // largest |w₁ − 10·w₀.₁| / |w₁|
    for (std::size_t h = 0; h < 4; ++h)
        for (std::size_t i = 0; i < lesson.params.w_q[h].size(); ++i) {
            const double a = one.params.w_q[h].flat(i), b = 10 * lesson.params.w_q[h].flat(i);
            inexact += a != b;
            worst = std::max(worst, std::fabs(a - b) / std::fabs(a));
        }
    INFO(inexact << " of 256 W_Q entries differ from 10 × the default's; worst relative " << worst);
    CHECK(worst <= 4.5e-16); // two roundings of half an ulp each
}

TEST_CASE("weightScale: the designed heads and explicit specs draw nothing to scale",
          "[weight-scale][designed]") {
    // The designed weights are built (s = 8·√d_k, 1, 0.25) whatever weight_scale says.
    const problem built = make_problem(scaled(specs::designed({"a", "b"}), 5));
    const problem plain = make_problem(specs::designed({"a", "b"}));
    check::tensor("W_Q/0", built.params.w_q[0], plain.params.w_q[0], 0);
    check::tensor("W_O", built.params.w_o, plain.params.w_o, 0);
    CHECK(built.params.w_q[0](0, 0) == 8 * std::sqrt(2.0));
}
