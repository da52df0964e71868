// What a model and a batch must be before the model reads it; each message names the field.
#include "attention/model.hpp"

#include <cmath>
#include <stdexcept>

#include "attention/validation.hpp"

namespace attention {

namespace {

void check_range(const std::string &field, std::size_t v, std::size_t lo, std::size_t hi) {
    whole_number(field, double(v), lo, hi);
}

} // namespace

void validate_config(const model_config &c, const std::string &field) {
    using L = model_limits;
    check_range(field + ".vocab", c.vocab, 2, L::max_vocab);
    check_range(field + ".seqLen", c.seq_len, 2, L::max_seq_len);
    check_range(field + ".dModel", c.d_model, 1, L::max_d_model);
    check_range(field + ".numLayers", c.num_layers, 1, L::max_layers);
    check_range(field + ".numHeads", c.num_heads, 1, L::max_heads);
    check_range(field + ".dK", c.d_k, 1, L::max_d_model);
    check_range(field + ".dV", c.d_v, 1, L::max_d_model);
}

void validate_model(const model &m, const std::string &field) {
    validate_config(m.config, field + ".config");
    const model_params shapes = zeros_like(m.config);
    const std::vector<const matrix *> want = matrices_of(shapes), have = matrices_of(m.params);
    const std::vector<std::string> names = matrix_names(m.config);
    if (m.params.layers.size() != m.config.num_layers)
        reject(field + ".params.layers", std::to_string(m.params.layers.size()) +
                                             " layers, but config.numLayers is " +
                                             std::to_string(m.config.num_layers));
    for (std::size_t l = 0; l < m.config.num_layers; ++l) {
        const attention_params &layer = m.params.layers[l];
        for (const auto &[name, heads] :
             {std::pair{"W_Q", &layer.w_q}, {"W_K", &layer.w_k}, {"W_V", &layer.w_v}})
            if (heads->size() != m.config.num_heads)
                reject(field + ".params.layers[" + std::to_string(l) + "]." + name,
                       std::to_string(heads->size()) + " heads, but config.numHeads is " +
                           std::to_string(m.config.num_heads));
    }
    for (std::size_t i = 0; i < want.size(); ++i) {
        const std::string at = field + ".params." + names[i];
        require_shape(at, *have[i], rows(*want[i]), cols(*want[i]), "by the model's config");
        for (const double v : *have[i])
            if (!std::isfinite(v))
                reject(at, "holds " + js_number(v) + "; every value must be finite");
    }
}

void validate_batch(const model_config &c, const token_batch &b) {
    const std::size_t n = b.tokens.size();
    check_range("tokens", n, 1, model_limits::max_batch);
    for (std::size_t s = 0; s < n; ++s) {
        const std::string row = "tokens[" + std::to_string(s) + "]";
        if (b.tokens[s].size() != c.seq_len + 1)
            reject(row, std::to_string(b.tokens[s].size()) +
                            " tokens; each sequence holds seqLen + 1 = " +
                            std::to_string(c.seq_len + 1) + " (the inputs and the last target)");
        for (std::size_t t = 0; t < b.tokens[s].size(); ++t)
            if (b.tokens[s][t] >= c.vocab)
                reject(row + "[" + std::to_string(t) + "]", std::to_string(b.tokens[s][t]) +
                                                                " is outside the vocabulary [0, " +
                                                                std::to_string(c.vocab - 1) + "]");
    }
    require_shape("mask", b.mask, n, c.seq_len, "(one weight per sequence and input position)");
    double total = 0;
    for (const double w : b.mask) {
        if (!std::isfinite(w) || w < 0)
            reject("mask", "holds " + js_number(w) + "; every weight must be finite and ≥ 0");
        total += w;
    }
    if (total == 0)
        reject("mask", "sums to 0; at least one position must count");
}

} // namespace attention
