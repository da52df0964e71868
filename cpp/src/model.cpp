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

// x₀: each input's row of W_E plus its position's row of W_P, recorded as embedded with them.
// → (n, D).
matrix embedded(const model_params &p, const std::vector<std::size_t> &inputs, trace *out) {
    const std::size_t n = inputs.size(), d = cols(p.w_e);
    matrix e({n, d}), pos({n, d}); // (n, D) each
    for (std::size_t t = 0; t < n; ++t) {
        std::copy_n(&p.w_e(inputs[t], 0), d, &e(t, 0));
        std::copy_n(&p.w_p(t, 0), d, &pos(t, 0));
    }
    matrix x = e + pos;
    if (out) {
        const dim rows{n, "T"}, width{d, "d_model"};
        record(out, stage_id::embedded, {}, {rows, width}, x,
               operand{"E", no_head, std::move(e), axes_of(rows, width)},
               operand{"P", no_head, std::move(pos), axes_of(rows, width)});
    }
    return x;
}

// The stages recorded since `first` belong to layer l.
void mark_layer(trace &t, std::size_t first, int l) {
    for (std::size_t s = first; s < t.stages.size(); ++s)
        t.stages[s].step = l;
}

} // namespace

sequence_pass forward_sequence(const model &m, const std::vector<std::size_t> &inputs, trace *out) {
    const attention_config c = model_pass_config(m.config, inputs.size());
    const dim t{inputs.size(), "T"}, d{c.d_model, "d_model"};
    sequence_pass s;
    matrix x = embedded(m.params, inputs, out); // (n, D)
    // x_{l+1} = x_l + MHA_l(x_l): causal, ÷√d_k, W_O; no norm, no MLP.
    for (std::size_t l = 0; l < c.num_layers; ++l) {
        const std::size_t first = out ? out->stages.size() : 0;
        s.layers.emplace_back();
        const matrix attended =
            multi_head_attention(x, m.params.layers[l], c, out, &s.layers.back()); // (n, D)
        matrix next = x + attended;                                                // (n, D)
        if (out) {
            record(out, stage_id::residual, {}, {t, d}, next,
                   operand{"X", no_head, x, axes_of(t, d)},
                   operand{name_of(stage_id::output), no_head, attended, axes_of(t, d)});
            mark_layer(*out, first, int(l));
        }
        s.residual.push_back(std::move(x));
        x = std::move(next);
    }
    s.logits = matmul(x, m.params.w_u); // (n, D) @ (D, V) → (n, V)
    s.residual.push_back(std::move(x));
    return s;
}

attention_config model_pass_config(const model_config &m, std::size_t n) {
    attention_config c = layer_config(m);
    c.kind = problem_kind::model;
    c.seq_len = c.kv_len = n;
    c.vocab = m.vocab;
    c.num_layers = m.num_layers;
    return c;
}

next_token next_token_losses(const matrix &logits, const std::vector<std::size_t> &tokens) {
    next_token out{matrix(logits.shape()), {}}; // (n, V)
    for (std::size_t t = 0; t < rows(logits); ++t) {
        softmax_row(&logits(t, 0), cols(logits), &out.probabilities(t, 0));
        if (t + 1 < tokens.size())
            out.losses.push_back(-std::log(out.probabilities(t, tokens[t + 1])));
    }
    return out;
}

namespace {

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
        const sequence_pass pass = forward_sequence(m, sequence_inputs(tokens));
        next_token next = next_token_losses(pass.logits, tokens);
        matrix &d_logits = next.probabilities; // (T, V): becomes (softmax − one-hot) · w_t / Σ w
        for (std::size_t t = 0; t + 1 < tokens.size(); ++t) {
            const double w = b.mask(s, t) / counted;
            double *row = &d_logits(t, 0);
            out.loss += w * next.losses[t];
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

std::vector<std::size_t> sequence_inputs(const std::vector<std::size_t> &sequence) {
    return {sequence.begin(), sequence.end() - 1};
}

double mask_total(const token_batch &b) {
    return xt::sum(b.mask)();
}

double loss_of(const model &m, const token_batch &b) {
    validate_model(m), validate_batch(m.config, b);
    const double counted = mask_total(b);
    double loss = 0;
    for (std::size_t s = 0; s < b.tokens.size(); ++s)
        loss = add_sequence_loss(loss, b, s, forward_sequence(m, sequence_inputs(b.tokens[s])), counted);
    return loss;
}

double add_sequence_loss(double loss, const token_batch &b, std::size_t s, const sequence_pass &pass,
                         double counted) {
    const next_token next = next_token_losses(pass.logits, b.tokens[s]);
    for (std::size_t t = 0; t < next.losses.size(); ++t)
        loss += b.mask(s, t) / counted * next.losses[t];
    return loss;
}

} // namespace attention
