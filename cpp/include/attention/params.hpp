// What one attention computation reads and one head's pass returns. T = tokens (queries), T_kv =
// keys and values, D = d_model, H = query heads, H_kv = K/V heads, DK = d_k, DV = d_v.
#pragma once

#include <vector>

#include "attention/matrix.hpp"

namespace attention {

struct attention_params {
    matrix x;                // (T, D)    the queries' tokens (X, or X_q in cross-attention)
    matrix x_kv;             // (T_kv, D) cross-attention's key/value tokens; empty otherwise
    std::vector<matrix> w_q; // H × (D, DK)
    std::vector<matrix> w_k; // H_kv × (D, DK)
    std::vector<matrix> w_v; // H_kv × (D, DV)
    matrix w_o;              // (H·DV, D), used only with config.output_projection
};

struct head_result {
    matrix output;  // (T, DV)    weights · V
    matrix weights; // (T, T_kv)  rows sum to 1
};

} // namespace attention
