// The size of a KV cache: every layer keeps every past token's key and value for each of its
// K/V heads, or, under multi-head latent attention (DeepSeek-V2), one latent row of d_c + d_r
// values per token that every head reads. Exact in whole bytes up to 2⁵³ (JavaScript's exact
// integers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace attention {

// What a KV cache holds; numbers arrive as doubles so that 2.5, −1 or NaN are rejected by name.
struct kv_cache_query {
    double seq_len = 0;           // seqLen: tokens cached
    double d_head = 0;            // dHead: d_k = d_v of a head
    double num_kv_heads = 0;      // numKvHeads: K/V heads per layer (all heads without GQA)
    std::optional<double> latent_dims; // latentDims: MLA's d_c + d_r per token, instead of the two
    double num_layers = 0;        // numLayers
    double bytes_per_value = 0;   // bytesPerValue: 4 for fp32, 2 for fp16 and bf16, 1 for int8
    double batch = 1;             // batch: sequences cached side by side
    std::optional<double> window; // window: a sliding window of W keeps only min(seqLen, W) tokens
};

// 2 · seqLen · dHead · numKvHeads · numLayers · bytesPerValue · batch, or under MLA seqLen ·
// latentDims · numLayers · bytesPerValue · batch. Throws
// std::invalid_argument naming the field for a value that is not a whole number in range, or
// when the product exceeds 2⁵³.
std::uint64_t kv_cache_bytes(const kv_cache_query &q);

// The same product for d_k and d_v that may differ: seq · (d_k + d_v) · kv_heads · layers ·
// bytes · batch, for sizes already checked (the decode chapter's own cache).
std::uint64_t kv_cache_bytes(std::size_t seq_len, std::size_t d_k, std::size_t d_v,
                             std::size_t kv_heads, std::size_t layers, std::size_t bytes,
                             std::size_t batch);

} // namespace attention
