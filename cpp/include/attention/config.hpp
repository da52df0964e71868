// The sizes and switches of one attention computation, and their limits.
// T = tokens, D = d_model, H = heads, DK = d_k, DV = d_v.
#pragma once

#include <cstddef>

namespace attention {

struct attention_config {
    std::size_t seq_len = 0;        // T
    std::size_t d_model = 0;        // D
    std::size_t num_heads = 0;      // H
    std::size_t d_k = 0;            // DK
    std::size_t d_v = 0;            // DV
    bool causal = false;            // mask out j > i before the softmax
    bool output_projection = false; // concat the heads and project with W_O
    bool scale_scores = true;       // divide scores by √DK (false: the lesson's ablation)
};

// Caps that keep every run inside WebAssembly's memory. The trace budget bounds
// what run() records; forward() records nothing and needs only the size caps.
struct limits {
    static constexpr std::size_t max_seq_len = 1024;
    static constexpr std::size_t max_d_model = 1024;
    static constexpr std::size_t max_heads = 64;
    static constexpr std::size_t max_head_dim = 1024;          // d_k and d_v
    static constexpr std::size_t max_weight_values = 1u << 24; // all of W_Q, W_K, W_V, W_O
    static constexpr std::size_t max_trace_values = 1u << 24;  // 16 Mi doubles = 128 MiB
    static constexpr double max_abs_value = 1e6;               // entries of explicit matrices
};

} // namespace attention
