#include "attention/model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "attention/ops.hpp"
#include "attention/rng.hpp"
#include "attention/validation.hpp"

namespace attention {

attention_config layer_config(const model_config &m) {
    attention_config c;
    c.seq_len = c.kv_len = m.seq_len;
    c.d_model = m.d_model;
    c.num_heads = c.num_kv_heads = m.num_heads;
    c.d_k = m.d_k, c.d_v = m.d_v;
    c.causal = c.output_projection = true;
    return c;
}

namespace {

template <class Params, class Matrix> std::vector<Matrix *> matrices_in(Params &p) {
    std::vector<Matrix *> out{&p.w_e, &p.w_p};
    for (auto &layer : p.layers) {
        for (auto *heads : {&layer.w_q, &layer.w_k, &layer.w_v})
            for (auto &w : *heads)
                out.push_back(&w);
        out.push_back(&layer.w_o);
    }
    out.push_back(&p.w_u);
    return out;
}

} // namespace

std::vector<matrix *> matrices_of(model_params &p) {
    return matrices_in<model_params, matrix>(p);
}

std::vector<const matrix *> matrices_of(const model_params &p) {
    return matrices_in<const model_params, const matrix>(p);
}

std::vector<std::string> matrix_names(const model_config &c) {
    std::vector<std::string> out{"W_E", "W_P"};
    for (std::size_t l = 0; l < c.num_layers; ++l) {
        const std::string layer = "layers[" + std::to_string(l) + "].";
        for (const char *w : {"W_Q", "W_K", "W_V"})
            for (std::size_t h = 0; h < c.num_heads; ++h)
                out.push_back(layer + w + "[" + std::to_string(h) + "]");
        out.push_back(layer + "W_O");
    }
    out.push_back("W_U");
    return out;
}

model_params zeros_like(const model_config &c) {
    const std::size_t d = c.d_model;
    model_params p{
        matrix({c.vocab, d}, 0.0), matrix({c.seq_len, d}, 0.0), {}, matrix({d, c.vocab}, 0.0)};
    for (std::size_t l = 0; l < c.num_layers; ++l) {
        attention_params layer;
        layer.w_q.assign(c.num_heads, matrix({d, c.d_k}, 0.0));
        layer.w_k.assign(c.num_heads, matrix({d, c.d_k}, 0.0));
        layer.w_v.assign(c.num_heads, matrix({d, c.d_v}, 0.0));
        layer.w_o = matrix({c.num_heads * c.d_v, d}, 0.0);
        p.layers.push_back(std::move(layer));
    }
    return p;
}

model init_model(const model_config &c, std::uint32_t seed) {
    model m{c, zeros_like(c)};
    numpy_random rng(seed);
    for (matrix *w : matrices_of(m.params))
        *w = rng.randn(rows(*w), cols(*w), 1 / std::sqrt(double(rows(*w))));
    return m;
}

namespace {

// Row i of `to` += row j of `from` (the same number of columns).
void add_row(matrix &to, std::size_t i, const matrix &from, std::size_t j) {
    for (std::size_t k = 0; k < cols(to); ++k)
        to(i, k) += from(j, k);
}

} // namespace

sequence_pass forward_sequence(const model &m, const std::vector<std::size_t> &inputs) {
    const model_params &p = m.params;
    attention_config c = layer_config(m.config);
    c.seq_len = c.kv_len = inputs.size(); // n ≤ T tokens: the first n positions
    sequence_pass s;
    matrix x({inputs.size(), m.config.d_model}); // (n, D)
    for (std::size_t t = 0; t < inputs.size(); ++t) {
        std::copy_n(&p.w_p(t, 0), cols(x), &x(t, 0));
        add_row(x, t, p.w_e, inputs[t]);
    }
    for (const attention_params &layer : p.layers) {
        s.layers.push_back(attention_forward(x, layer, c));
        s.residual.push_back(x);
        x += matmul(s.layers.back().concat, layer.w_o); // (n, H·DV) @ (H·DV, D) → (n, D)
    }
    s.logits = matmul(x, p.w_u); // (n, D) @ (D, V) → (n, V)
    s.residual.push_back(std::move(x));
    return s;
}

namespace {

std::vector<std::size_t> inputs_of(const std::vector<std::size_t> &tokens) {
    return {tokens.begin(), tokens.end() - 1};
}

// Row t of logits as probabilities (in place), returning −log p(target) computed stably as
// log Σ exp(l − max) − (l_target − max).
double cross_entropy_row(double *logits, std::size_t n, std::size_t target) {
    const double max = *std::max_element(logits, logits + n);
    double total = 0;
    for (std::size_t j = 0; j < n; ++j)
        total += std::exp(logits[j] - max);
    const double loss = std::log(total) - (logits[target] - max);
    softmax_row(logits, n, logits);
    return loss;
}

double mask_total(const token_batch &b) {
    return xt::sum(b.mask)();
}

void add_to(model_params &total, const attention_gradients &g, std::size_t layer) {
    attention_params &w = total.layers[layer];
    for (std::size_t h = 0; h < g.w_q.size(); ++h)
        w.w_q[h] += g.w_q[h], w.w_k[h] += g.w_k[h], w.w_v[h] += g.w_v[h];
    w.w_o += g.w_o;
}

} // namespace

loss_gradients loss_and_gradients(const model &m, const token_batch &b) {
    validate_model(m), validate_batch(m.config, b);
    const model_params &p = m.params;
    const attention_config c = layer_config(m.config);
    const double counted = mask_total(b);
    loss_gradients out{0, zeros_like(m.config)};
    for (std::size_t s = 0; s < b.tokens.size(); ++s) {
        const std::vector<std::size_t> &tokens = b.tokens[s];
        sequence_pass pass = forward_sequence(m, inputs_of(tokens));
        matrix &d_logits = pass.logits; // (T, V): becomes (softmax − one-hot) · w_t / Σ w
        for (std::size_t t = 0; t + 1 < tokens.size(); ++t) {
            const double w = b.mask(s, t) / counted;
            double *row = &d_logits(t, 0);
            out.loss += w * cross_entropy_row(row, m.config.vocab, tokens[t + 1]);
            row[tokens[t + 1]] -= 1;
            for (std::size_t j = 0; j < m.config.vocab; ++j)
                row[j] *= w;
        }
        out.grads.w_u += matmul_at(pass.residual.back(), d_logits); // (D, T) @ (T, V)
        matrix d_x = matmul_bt(d_logits, p.w_u);                    // (T, V) @ (V, D) → (T, D)
        for (std::size_t l = p.layers.size(); l-- > 0;) {
            // x_{l+1} = x_l + MHA_l(x_l): the residual passes d_x on, the branch adds its dX.
            const attention_gradients g = attention_backward(pass.layers[l], p.layers[l], d_x, c);
            add_to(out.grads, g, l);
            d_x += g.x;
        }
        out.grads.w_p += d_x;
        for (std::size_t t = 0; t + 1 < tokens.size(); ++t)
            add_row(out.grads.w_e, tokens[t], d_x, t);
    }
    return out;
}

double loss_of(const model &m, const token_batch &b) {
    validate_model(m), validate_batch(m.config, b);
    const double counted = mask_total(b);
    double loss = 0;
    for (std::size_t s = 0; s < b.tokens.size(); ++s) {
        sequence_pass pass = forward_sequence(m, inputs_of(b.tokens[s]));
        for (std::size_t t = 0; t < m.config.seq_len; ++t)
            loss += b.mask(s, t) / counted *
                    cross_entropy_row(&pass.logits(t, 0), m.config.vocab, b.tokens[s][t + 1]);
    }
    return loss;
}

} // namespace attention
