#include "attention/encoder.hpp"

#include <xtensor/xbuilder.hpp>

#include "attention/passes.hpp"

namespace attention {

namespace {

// x · w + b, the bias added to every row. x: (M, K), w: (K, N), b: (1, N) → (M, N).
matrix affine(const matrix &x, const matrix &w, const matrix &b) {
    matrix y = matmul(x, w);
    for (std::size_t i = 0; i < rows(y); ++i)
        for (std::size_t j = 0; j < cols(y); ++j)
            y(i, j) += b(0, j);
    return y;
}

// Layer norm with γ = 1, β = 0, as the lesson's layer takes them.
matrix plain_layer_norm(const matrix &x) {
    const vector ones = xt::ones<double>({cols(x)});
    const vector zeros = xt::zeros<double>({cols(x)});
    return layer_norm(x, ones, zeros);
}

} // namespace

// Longer than 40 lines: the layer's six stages in the order Vaswani et al. draw them, each with
// its record() call, so that the pass reads as the figure.
matrix encoder_layer(const attention_params &p, const ffn_params &f, const attention_config &c,
                     trace *out) {
    const dim t{c.seq_len, "T"}, d{c.d_model, "d_model"}, dff{c.d_ff, "d_ff"}, one{1, "1"};
    const axes td = axes_of(t, d), tf = axes_of(t, dff);
    const matrix attended = multi_head_attention(p, c, out); // (T, D)

    // Sub-layer 1: a residual connection around attention, then layer norm.
    const matrix residual1 = p.x + attended; // (T, D)
    const matrix norm1 = plain_layer_norm(residual1);
    if (out) {
        record(out, stage_id::residual1, {}, {t, d}, residual1, operand{"X", no_head, p.x, td},
               operand{name_of(stage_id::output), no_head, attended, td});
        record(out, stage_id::norm1, {}, {t, d}, norm1,
               operand{name_of(stage_id::residual1), no_head, residual1, td});
    }

    // Sub-layer 2: the same two-layer network applied to every position on its own.
    const matrix pre = affine(norm1, f.w1, f.b1);  // (T, DFF)
    const matrix hidden = relu(pre);               // (T, DFF)
    const matrix ffn = affine(hidden, f.w2, f.b2); // (T, D)
    if (out) {
        record(out, stage_id::ffn_pre, {}, {t, d, dff, one}, pre,
               operand{name_of(stage_id::norm1), no_head, norm1, td},
               operand{"W1", no_head, f.w1, axes_of(d, dff)},
               operand{"b1", no_head, f.b1, axes_of(one, dff)});
        record(out, stage_id::ffn_hidden, {}, {t, dff}, hidden,
               operand{name_of(stage_id::ffn_pre), no_head, pre, tf});
        record(out, stage_id::ffn_out, {}, {t, dff, d, one}, ffn,
               operand{name_of(stage_id::ffn_hidden), no_head, hidden, tf},
               operand{"W2", no_head, f.w2, axes_of(dff, d)},
               operand{"b2", no_head, f.b2, axes_of(one, d)});
    }

    const matrix residual2 = norm1 + ffn; // (T, D)
    matrix norm2 = plain_layer_norm(residual2);
    if (out) {
        record(out, stage_id::residual2, {}, {t, d}, residual2,
               operand{name_of(stage_id::norm1), no_head, norm1, td},
               operand{name_of(stage_id::ffn_out), no_head, ffn, td});
        record(out, stage_id::norm2, {}, {t, d}, norm2,
               operand{name_of(stage_id::residual2), no_head, residual2, td});
    }
    return norm2;
}

} // namespace attention
