// Causal multi-head (or grouped-query) attention decoded one token at a time with a KV cache,
// as a model generates text: each step projects only the new token and reads every earlier
// key and value from the cache. T = tokens, D = d_model, H = query heads, H_kv = K/V heads.
#pragma once

#include "attention/attention.hpp"

namespace attention {

// The T step outputs stacked: (T, D) with W_O, else (T, H·DV). When out is given, each step t
// records x_t, per query head q, per K/V head k_new, v_new, k_cache, v_cache, per query head
// scores, scaled, weights, head, then concat and output; after the last step `stacked` and
// `causal_reference` (the same sizes as one causal forward pass), and out->checks the
// difference between them, the cache's bytes and the multiply-adds of each step.
matrix decode_with_cache(const attention_params &p, const attention_config &c,
                         trace *out = nullptr);

// Multiply-adds of decode step t (0-based): with the cache, only the new token is projected;
// without it every token's K and V so far is projected again.
double decode_macs(const attention_config &c, std::size_t t, bool cached);

// Tokens the cache holds after step t: all t + 1, or the W latest under a window of W.
std::size_t cached_tokens(const attention_config &c, std::size_t t);

} // namespace attention
