#include "attention/model_pass.hpp"

#include <cmath>

#include "attention/attention.hpp"
#include "attention/ops.hpp"
#include "attention/passes.hpp"

namespace attention {

namespace {

// Row tokens[i] of w for each i: (n, cols of w).
matrix rows_at(const matrix &w, const std::vector<std::size_t> &tokens) {
    matrix out({tokens.size(), cols(w)});
    for (std::size_t i = 0; i < tokens.size(); ++i)
        for (std::size_t j = 0; j < cols(w); ++j)
            out(i, j) = w(tokens[i], j);
    return out;
}

// The first n rows of w: (n, cols of w).
matrix first_rows(const matrix &w, std::size_t n) {
    std::vector<std::size_t> positions(n);
    for (std::size_t i = 0; i < n; ++i)
        positions[i] = i;
    return rows_at(w, positions);
}

// Each row softmaxed: (n, V) → (n, V).
matrix softmax_rows(const matrix &logits) {
    matrix p(logits.shape());
    for (std::size_t i = 0; i < rows(p); ++i)
        softmax_row(&logits(i, 0), cols(p), &p(i, 0));
    return p;
}

// The stages recorded since `first` belong to layer l.
void mark_layer(trace &t, std::size_t first, int l) {
    for (std::size_t s = first; s < t.stages.size(); ++s)
        t.stages[s].step = l;
}

} // namespace

attention_config model_pass_config(const model_config &m, std::size_t n) {
    attention_config c = layer_config(m);
    c.kind = problem_kind::model;
    c.seq_len = c.kv_len = n;
    c.vocab = m.vocab;
    c.num_layers = m.num_layers;
    return c;
}

matrix model_pass(const model &m, const std::vector<std::size_t> &tokens,
                  const std::vector<double> &counted, trace *out) {
    const std::size_t n = tokens.size();
    const attention_config c = model_pass_config(m.config, n);
    const dim t{n, "T"}, d{c.d_model, "d_model"}, v{c.vocab, "V"}, one{1, "1"};
    const dim scored{n - 1, "T − 1"};
    const axes td = axes_of(t, d), tv = axes_of(t, v);

    // x₀: each token's row of W_E plus its position's row of W_P.
    const matrix e = rows_at(m.params.w_e, tokens); // (n, D)
    const matrix p = first_rows(m.params.w_p, n);   // (n, D)
    matrix x = e + p;                               // (n, D)
    if (out)
        record(out, stage_id::embedded, {}, {t, d}, x, operand{"E", no_head, e, td},
               operand{"P", no_head, p, td});

    // x_{l+1} = x_l + MHA_l(x_l): causal, ÷√d_k, W_O; no norm, no MLP.
    for (std::size_t l = 0; l < c.num_layers; ++l) {
        const std::size_t first = out ? out->stages.size() : 0;
        attention_params layer = m.params.layers[l];
        layer.x = x;
        const matrix attended = multi_head_attention(layer, c, out); // (n, D)
        matrix next = x + attended;                                  // (n, D)
        if (out) {
            record(out, stage_id::residual, {}, {t, d}, next, operand{"X", no_head, x, td},
                   operand{name_of(stage_id::output), no_head, attended, td});
            mark_layer(*out, first, int(l));
        }
        x = std::move(next);
    }

    const shared_matrix logits = matmul(x, m.params.w_u); // (n, V)
    const shared_matrix probs = softmax_rows(logits);     // (n, V)

    // Position i predicts token i + 1: the loss reads p[i, tokens[i + 1]].
    matrix next({n - 1, 1}), token_loss({n - 1, 1}), weight({n - 1, 1}); // (n − 1, 1)
    double total = 0, weights = 0;
    for (std::size_t i = 0; i + 1 < n; ++i) {
        next(i, 0) = double(tokens[i + 1]);
        token_loss(i, 0) = -std::log(probs(i, tokens[i + 1]));
        weight(i, 0) = counted[i];
        total += counted[i] * token_loss(i, 0);
        weights += counted[i];
    }
    matrix loss({1, 1}, total / weights); // (1, 1)
    if (!out)
        return loss;
    out->config = c;
    record(out, stage_id::logits, {}, {t, d, v}, logits, operand{"X", no_head, x, td},
           operand{"W_U", no_head, m.params.w_u, axes_of(d, v)});
    record(out, stage_id::probabilities, {}, {t, v}, probs,
           operand{name_of(stage_id::logits), no_head, logits, tv});
    const axes scored_one = axes_of(scored, one);
    const shared_matrix losses = std::move(token_loss);
    record(out, stage_id::token_loss, {}, {t, v, scored, one}, losses,
           operand{name_of(stage_id::probabilities), no_head, probs, tv},
           operand{"next", no_head, next, scored_one});
    record(out, stage_id::loss, {}, {scored, one}, std::move(loss),
           operand{name_of(stage_id::token_loss), no_head, losses, scored_one},
           operand{"counted", no_head, std::move(weight), scored_one});
    return loss;
}

// embedded (E, P); per layer its attention and residual (X, output); logits (X, W_U),
// probabilities (logits, row totals), token_loss (probabilities, next), loss (token_loss,
// counted).
std::size_t model_values(const attention_config &c) {
    const std::size_t n = c.seq_len;
    const std::size_t nd = n * c.d_model, nv = n * c.vocab;
    std::size_t total = 3 * nd;
    total += c.num_layers * (attention_values(c) + 3 * nd);
    total += projection_values(n, c.d_model, c.vocab);
    total += 2 * nv + n;
    total += 2 * (n - 1) + nv;
    return total + 1 + 2 * (n - 1);
}

} // namespace attention
