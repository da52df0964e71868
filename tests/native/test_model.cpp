// The attention-only model: its draw (numpy's order and scale), its forward pass against the
// layers run one by one, its loss and gradients against central finite differences of the loss
// for every entry of every parameter, and bad models and batches refused by name.
#include <catch2/catch.hpp>

#include <cmath>

#include "attention/model.hpp"
#include "attention/ops.hpp"
#include "attention/rng.hpp"

using namespace attention;

namespace {

model_config small_config(std::size_t layers, std::size_t heads) {
    return {5, 4, 6, layers, heads, 3, 2}; // V, T, D, L, H, DK, DV
}

// Two sequences of T + 1 tokens and a mask with a hidden position and unequal weights.
token_batch small_batch() {
    token_batch b{{{0, 3, 1, 4, 2}, {2, 2, 0, 1, 3}}, matrix({2, 4}, 1.0)};
    b.mask(0, 1) = 0, b.mask(1, 2) = 0.5;
    return b;
}

} // namespace

TEST_CASE("model: init draws each matrix in order as randn(rows, cols) * (1 / sqrt(rows))",
          "[model]") {
    const model m = init_model(small_config(2, 2), 7);
    numpy_random rng(7);
    const std::vector<const matrix *> drawn = matrices_of(m.params);
    REQUIRE(drawn.size() == 2 + 2 * (3 * 2 + 1) + 1);
    REQUIRE(matrix_names(m.config)[3] == "layers[0].W_Q[1]");
    for (const matrix *w : drawn) {
        const matrix expected = rng.randn(rows(*w), cols(*w)) * (1 / std::sqrt(double(rows(*w))));
        REQUIRE(*w == expected); // bit for bit, as numpy draws randn(rows, cols) * (1 / sqrt(rows))
    }
}

TEST_CASE("model: the forward pass is the embeddings plus each layer's attention, then W_U",
          "[model]") {
    const model m = init_model(small_config(2, 2), 3);
    const std::vector<std::size_t> inputs{1, 4, 0, 2};
    const sequence_pass s = forward_sequence(m, inputs);
    matrix x = m.params.w_p;
    for (std::size_t t = 0; t < 4; ++t)
        for (std::size_t j = 0; j < 6; ++j)
            x(t, j) += m.params.w_e(inputs[t], j);
    attention_config c = layer_config(m.config);
    for (const attention_params &layer : m.params.layers) {
        attention_params p = layer;
        p.x = x;
        x = x + multi_head_attention(p, c); // the chapters' own pass, with the causal mask and W_O
    }
    const matrix logits = matmul(x, m.params.w_u);
    REQUIRE(xt::amax(xt::abs(s.logits - logits))() <= 1e-14);
}

TEST_CASE("model: every gradient equals central finite differences of the loss", "[model]") {
    for (const auto &[layers, heads] : {std::pair{1, 1}, {2, 2}, {2, 3}}) {
        model m = init_model(small_config(layers, heads), 11);
        const token_batch b = small_batch();
        const loss_gradients g = loss_and_gradients(m, b);
        REQUIRE(g.loss == Approx(loss_of(m, b)).epsilon(1e-14));
        const std::vector<std::string> names = matrix_names(m.config);
        const std::vector<matrix *> params = matrices_of(m.params);
        const std::vector<const matrix *> grads = matrices_of(g.grads);
        constexpr double step = 1e-5;
        for (std::size_t i = 0; i < params.size(); ++i) {
            double worst = 0;
            for (std::size_t k = 0; k < params[i]->size(); ++k) {
                const double kept = params[i]->flat(k);
                params[i]->flat(k) = kept + step;
                const double up = loss_of(m, b);
                params[i]->flat(k) = kept - step;
                const double down = loss_of(m, b);
                params[i]->flat(k) = kept;
                const double fd = (up - down) / (2 * step), gk = grads[i]->flat(k);
                worst = std::max(worst, std::fabs(fd - gk) /
                                            std::max({1.0, std::fabs(fd), std::fabs(gk)}));
            }
            INFO(layers << " layers, " << heads << " heads, " << names[i] << ": worst " << worst);
            CHECK(worst <= 1e-6);
        }
    }
}

TEST_CASE("model: the loss of a uniform prediction is ln V", "[model]") {
    model m = init_model(small_config(1, 1), 1);
    m.params.w_u.fill(0); // every logit 0
    CHECK(loss_of(m, small_batch()) == Approx(std::log(5.0)).epsilon(1e-15));
}

TEST_CASE("model: bad models and batches are refused by name", "[model]") {
    const model m = init_model(small_config(2, 2), 1);
    const auto refused = [&](const model &bad, const token_batch &b, const std::string &message) {
        REQUIRE_THROWS_WITH(loss_and_gradients(bad, b), message);
    };
    token_batch b = small_batch();
    b.tokens[1][3] = 5;
    refused(m, b, "tokens[1][3]: 5 is outside the vocabulary [0, 4]");
    b = small_batch();
    b.tokens[0].pop_back();
    refused(
        m, b,
        "tokens[0]: 4 tokens; each sequence holds seqLen + 1 = 5 (the inputs and the last target)");
    b = small_batch();
    b.mask = matrix({2, 3}, 1.0);
    refused(m, b,
            "mask: shape (2, 3) should be (2, 4) (one weight per sequence and input position)");
    b.mask = matrix({2, 4}, 0.0);
    refused(m, b, "mask: sums to 0; at least one position must count");
    b.mask(0, 0) = NAN;
    refused(m, b, "mask: holds NaN; every weight must be finite and ≥ 0");
    model bad = m;
    bad.params.layers[1].w_k[0](2, 1) = INFINITY;
    refused(bad, small_batch(),
            "model.params.layers[1].W_K[0]: holds Infinity; every value must be finite");
    bad = m;
    bad.params.w_u = matrix({6, 4}, 0.0);
    refused(bad, small_batch(),
            "model.params.W_U: shape (6, 4) should be (6, 5) by the model's config");
    bad = m;
    bad.params.layers.pop_back();
    refused(bad, small_batch(), "model.params.layers: 1 layers, but config.numLayers is 2");
    bad = m;
    bad.config.vocab = 1;
    refused(bad, small_batch(), "model.config.vocab: 1 is out of range [2, 256]");
}
