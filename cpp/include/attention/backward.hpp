// Backpropagation through one multi-head (grouped-query) self-attention layer: from dO, the
// gradient of a loss with respect to the layer's output, the gradient with respect to every
// weight and to X, by the chain rule back through passes 8 … 1. T = tokens, D = d_model,
// H = query heads, H_kv = K/V heads, G = H / H_kv, DK = d_k, DV = d_v.
#pragma once

#include <vector>

#include "attention/attention.hpp"
#include "attention/heads.hpp"

namespace attention {

struct attention_gradients {
    std::vector<matrix> w_q; // H × (D, DK)
    std::vector<matrix> w_k; // H_kv × (D, DK)
    std::vector<matrix> w_v; // H_kv × (D, DV)
    matrix w_o;              // (H·DV, D); empty without W_O
    matrix x;                // (T, D)
};

// The forward pass of a layer with these weights on x (T, D) (weights.x is not read), as
// multi_head_attention computes it up to the concat, keeping what the backward pass reads.
attention_cache attention_forward(const matrix &x, const attention_params &weights,
                                  const attention_config &c);

// The backward pass from a cache of these weights' forward pass (nothing recomputed).
attention_gradients attention_backward(const attention_cache &f, const attention_params &weights,
                                       const matrix &d_output, const attention_config &c,
                                       trace *out = nullptr);

// The forward pass of p (recorded into `out` when given, as multi_head_attention records it),
// then the backward pass from d_output, each gradient recorded as its d_* stage.
// d_output: (T, D), or (T, H·DV) without W_O. Every mask and position is taken: under RoPE the
// gradients at the turned q and k (d_q_rot, d_k_rot) are turned back by −φ (d_q_unrot, d_k_unrot).
attention_gradients attention_backward(const attention_params &p, const matrix &d_output,
                                       const attention_config &c, trace *out = nullptr);

} // namespace attention
