// What one attention computation reads and one head's pass returns. T = tokens (queries), T_kv =
// keys and values, D = d_model, H = query heads, H_kv = K/V heads, DK = d_k, DV = d_v.
#pragma once

#include <vector>

#include "attention/matrix.hpp"

namespace attention {

// Multi-head latent attention's own weights (mla.hpp); X, W_Q and W_O are attention_params'.
// DC = d_latent, DR = d_rope.
struct latent_params {
    matrix w_dkv;             // (D, DC)   down to the latent c_kv
    std::vector<matrix> w_uk; // H × (DC, DK) up from c_kv to each head's keys
    std::vector<matrix> w_uv; // H × (DC, DV) up from c_kv to each head's values
    matrix w_kr;              // (D, DR)   the shared key's RoPE part
    std::vector<matrix> w_qr; // H × (D, DR) each head's query RoPE part
};

struct attention_params {
    matrix x;                // (T, D)    the queries' tokens (X, or X_q in cross-attention)
    matrix x_kv;             // (T_kv, D) cross-attention's key/value tokens; empty otherwise
    std::vector<matrix> w_q; // H × (D, DK)
    std::vector<matrix> w_k; // H_kv × (D, DK)
    std::vector<matrix> w_v; // H_kv × (D, DV)
    matrix w_o;              // (H·DV, D), used only with config.output_projection
    latent_params latent;    // kind mla's; empty otherwise
};

struct head_result {
    matrix output;  // (T, DV)    weights · V
    matrix weights; // (T, T_kv)  rows sum to 1
};

} // namespace attention
