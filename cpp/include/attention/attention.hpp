// Self-, cross-, grouped-query and multi-head attention as the lesson computes them, pass by pass.
// T = tokens (queries), T_kv = keys and values, D = d_model, H = query heads, H_kv = K/V heads,
// DK = d_k, DV = d_v.
#pragma once

#include <vector>

#include "attention/config.hpp"
#include "attention/heads.hpp"
#include "attention/params.hpp"
#include "attention/trace.hpp"

namespace attention {

// Scaled dot-product self-attention of one head (the lesson's self_attention).
// x: (T, D), w_q, w_k: (D, DK), w_v: (D, DV). When out is given, each pass
// appends its stage (q, k, v, scores, scaled, masked, weights, head) to it.
head_result self_attention(const matrix &x, const matrix &w_q, const matrix &w_k, const matrix &w_v,
                           const attention_config &c, trace *out = nullptr, int head = no_head);

// Multi-head attention over p's heads: each query head i reads K/V head i / group_size(c)
// (H_kv = H: multi-head; H_kv = 1: multi-query), keys and values from p.x_kv in
// cross-attention. Then concat and W_O when c.output_projection. Returns (T, D) with the
// projection, else the heads side by side (T, H·DV). When out is given, it receives the trace.
matrix multi_head_attention(const attention_params &p, const attention_config &c,
                            trace *out = nullptr);

// The same of the tokens x (T, D), w's weights (w.x is not read; w.x_kv is, in cross-attention),
// also keeping into `keep`, when given, what the backward pass reads.
matrix multi_head_attention(const matrix &x, const attention_params &w, const attention_config &c,
                            trace *out, attention_cache *keep = nullptr);

} // namespace attention
