// The sizes and switches of one attention computation, and their limits.
// T = tokens (queries), T_kv = keys and values, D = d_model, H = query heads,
// H_kv = K/V heads, DK = d_k, DV = d_v, DFF = d_ff.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

namespace attention {

// What is computed: self-attention (multi-head, grouped-query or multi-query), cross-attention
// (queries from one sequence, keys and values from another), one encoder layer, causal
// attention decoded token by token with a KV cache, one head's tiled FlashAttention pass, or
// multi-head attention with constructed heads (designed.hpp), or self-attention and then its
// backward pass (backward.hpp), or the attention-only model's forward pass, embeddings to loss,
// one layer after another (model_pass.hpp), or multi-head latent attention, whose keys and values
// come up from one cached latent per token (mla.hpp).
enum class problem_kind { self, cross, encoder_layer, kv_cache, flash, designed, backward, model, mla };

// Rotary position embedding (rope.hpp): q and k turned by their positions before the scores.
struct rope_settings {
    double base = 10000;     // θ_i = base^(−2i / dims)
    bool half_split = false; // pairs (i, i + dims/2); else (2i, 2i + 1), interleaved
    std::size_t offset = 0;  // added to every position
    std::size_t dims = 0;    // the first dims columns of each head rotate (even, ≤ DK)
};

struct attention_config {
    problem_kind kind = problem_kind::self;
    std::size_t seq_len = 0;               // T: the queries' tokens (T_q in cross-attention)
    std::size_t kv_len = 0;                // T_kv: keys and values (= T in self-attention)
    std::size_t d_model = 0;               // D
    std::size_t num_heads = 0;             // H query heads
    std::size_t num_kv_heads = 0;          // H_kv K/V heads, dividing H (= H: multi-head)
    std::size_t d_k = 0;                   // DK
    std::size_t d_v = 0;                   // DV
    std::size_t d_ff = 0;                  // DFF: the encoder layer's hidden width
    std::size_t d_latent = 0;              // MLA: DC, the latent c_kv each token caches
    std::size_t d_rope = 0;                // MLA: DR, the decoupled RoPE part of q and k (0: none)
    std::optional<std::size_t> valid_keys; // cross: keys j ≥ valid_keys are padding
    std::optional<std::size_t> window;     // sliding window W: query i sees i − W < j ≤ i
    std::optional<std::size_t> prefix;     // prefix-LM: the first P see each other, causal after
    std::optional<std::size_t> sink_tokens; // StreamingLLM: with a window W, the first k stay seen
    std::vector<std::size_t> documents;    // packed sequences' lengths: causal inside, none across
    std::size_t block_rows = 0;            // flash: B_r query rows per tile
    std::size_t block_cols = 0;            // flash: B_c key rows per tile
    bool causal = false;                   // mask out j > i before the softmax
    bool output_projection = false;        // concat the heads and project with W_O
    bool scale_scores = true;              // divide scores by √DK (false: the lesson's ablation)
    double weight_scale = 0.1;             // drawn weights are randn · weight_scale
    std::vector<std::size_t> pruned_heads; // heads whose outputs are zeroed before W_O
    std::optional<rope_settings> rope;     // q and k rotated by position (RoPE)
    bool alibi = false;                    // a linear distance bias on each head's scores (ALiBi)
    std::optional<double> softcap;         // κ: the logits capped to κ·tanh(S̃ / κ) (Gemma 2)
    bool qk_norm = false;                  // q and k RMS-normalised per head row (Qwen3, Gemma 3)
    std::vector<double> q_norm_gain;       // (DK) with qk_norm: λ_Q, each column's gain (1 unless given)
    std::vector<double> k_norm_gain;       // (DK) with qk_norm: λ_K
    std::vector<double> sinks;             // ζ per query head: a key of logit ζ and no value (gpt-oss)
    bool sinusoidal = false;               // X + PE: the sinusoidal position encoding added
    std::size_t vocab = 0;                 // kind model: V, the vocabulary
    std::size_t num_layers = 0;            // kind model: L, each layer this config's attention
};

// Query heads per K/V head: query head i reads K/V head i / group_size(c).
inline std::size_t group_size(const attention_config &c) {
    return c.num_heads / c.num_kv_heads;
}

// What pass 3 divides the scores by: √DK (√(DK + DR) in MLA, whose q and k carry DR more
// columns), or 1 in the lesson's ablation.
inline double score_divisor(const attention_config &c) {
    return c.scale_scores ? std::sqrt(static_cast<double>(c.d_k + c.d_rope)) : 1.0;
}

// Whether no query sees a later key but where a prefix lets it: causal, a window, a prefix, packed
// documents.
inline bool causal_mask(const attention_config &c) {
    return c.causal || c.window || c.prefix || !c.documents.empty();
}

// Whether the logits get a mask M (a causal mask, or padding keys in cross-attention). Decoding
// does not: its cache holds only keys the new query may see.
inline bool has_mask(const attention_config &c) {
    return c.kind != problem_kind::kv_cache && (causal_mask(c) || c.valid_keys);
}

// Parameters of W_K and W_V together: 2 · H_kv · D · … (W_K is D × DK, W_V is D × DV).
inline std::size_t kv_parameter_count(const attention_config &c, std::size_t kv_heads) {
    return kv_heads * c.d_model * (c.d_k + c.d_v);
}

// Values a KV cache holds for this layer at T_kv tokens: T_kv · H_kv · (DK + DV).
inline std::size_t kv_cache_values(const attention_config &c, std::size_t kv_heads) {
    return c.kv_len * kv_heads * (c.d_k + c.d_v);
}

// Caps that keep every run inside WebAssembly's memory. The trace budget bounds
// what run() records; forward() records nothing and needs only the size caps.
struct limits {
    static constexpr std::size_t max_seq_len = 1024;
    static constexpr std::size_t max_d_model = 1024;
    static constexpr std::size_t max_heads = 64;
    static constexpr std::size_t max_head_dim = 1024; // d_k and d_v
    static constexpr std::size_t max_d_ff = 4096;
    static constexpr std::size_t max_weight_values = 1u << 24;    // all of the layer's weights
    static constexpr std::size_t max_trace_values = 1u << 24;     // 16 Mi doubles = 128 MiB
    static constexpr std::size_t max_explained_values = 1u << 22; // explain's cells' parts: 32 MiB
    static constexpr std::size_t max_skip = 1u << 24;             // normals drawn and discarded
    static constexpr std::size_t max_designed_tokens = 128; // kind designed: d_model ≤ 2T + 1
    static constexpr double max_abs_value = 1e6;            // entries of explicit matrices
};

} // namespace attention
