// Multi-head latent attention (DeepSeek-V2 §2.1, as V2-Lite runs it: queries not compressed).
// Each token caches one latent c_kv = x · W_DKV of DC numbers and one key part k_rope of DR that
// carries its position; every head's keys and values come up from the latent (k = c_kv · W_UK,
// v = c_kv · W_UV), and its scores add the RoPE parts' product. Because W_UK is linear, q · kᵀ
// = (q · W_UKᵀ) · c_kvᵀ: a head can score against the latent itself ("absorbed"), and its output
// is (weights · c_kv) · W_UV. T = tokens, D = d_model, H = heads, DK = d_k (the paper's d_h),
// DV = d_v, DC = d_latent, DR = d_rope.
#pragma once

#include "attention/params.hpp"
#include "attention/trace.hpp"

#include <utility>
#include <vector>

namespace attention {

// Stages x, c_kv, k_rope; per head q, q_rope, k, v, q_absorbed, then the loop's scores (two
// terms), scaled by √(DK + DR), masked, weights, latent_head, head; concat, output. Traced, the
// run checks that the absorbed path gives the same scores and heads (absorbed_difference).
// → (T, D).
matrix latent_attention(const attention_params &p, const attention_config &c, trace *out = nullptr);

// The floats one layer caches per token for MLA, and for multi-head and grouped-query attention
// at the same sizes (keys of DK and values of DV per K/V head).
struct latent_cache_floats {
    std::size_t mla;                                      // DC + DR
    std::size_t mha;                                      // H · (DK + DV)
    std::vector<std::pair<std::size_t, std::size_t>> gqa; // (H_kv, H_kv · (DK + DV)), H_kv < H
};
latent_cache_floats latent_cache(const attention_config &c);

} // namespace attention
