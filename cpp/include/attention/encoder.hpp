// One Transformer encoder layer as the lesson writes it: multi-head attention, residual and
// layer norm, then a position-wise feed-forward network, residual and layer norm.
// T = tokens, D = d_model, DFF = d_ff.
#pragma once

#include "attention/attention.hpp"
#include "attention/ops.hpp"

namespace attention {

struct ffn_params {
    matrix w1; // (D, DFF)
    matrix b1; // (1, DFF)
    matrix w2; // (DFF, D)
    matrix b2; // (1, D)
};

// X: (T, D) → (T, D). Layer norms use γ = 1, β = 0 and ε = 1e-6 (the lesson's defaults).
// When out is given, it receives the attention stages, then residual1, norm1, ffn_pre,
// ffn_hidden, ffn_out, residual2 and norm2.
matrix encoder_layer(const attention_params &p, const ffn_params &f, const attention_config &c,
                     trace *out = nullptr);

} // namespace attention
