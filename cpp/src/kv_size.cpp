#include "attention/kv_size.hpp"

#include <stdexcept>
#include <string>

#include "attention/validation.hpp"

namespace attention {

namespace {

constexpr std::uint64_t exact_limit = std::uint64_t(1) << 53; // JS numbers are exact up to here

// a · b, or an error naming what overflowed when the product passes 2⁵³.
std::uint64_t times(std::uint64_t a, std::uint64_t b) {
    if (b != 0 && a > exact_limit / b)
        throw std::invalid_argument("kvCacheBytes: the product exceeds 2^53 = 9007199254740992 "
                                    "bytes; use smaller sizes");
    return a * b;
}

} // namespace

std::uint64_t kv_cache_bytes(std::size_t seq_len, std::size_t d_k, std::size_t d_v,
                             std::size_t kv_heads, std::size_t layers, std::size_t bytes,
                             std::size_t batch) {
    std::uint64_t n = seq_len;
    for (std::uint64_t factor : {std::uint64_t(d_k) + d_v, std::uint64_t(kv_heads),
                                 std::uint64_t(layers), std::uint64_t(bytes), std::uint64_t(batch)})
        n = times(n, factor);
    return n;
}

std::uint64_t kv_cache_bytes(const kv_cache_query &q) {
    // Each field on its own stays below 2³²; their product is checked as it grows.
    const std::size_t max = 4294967295u;
    const std::size_t seq = whole_number("seqLen", q.seq_len, 1, max);
    const std::size_t held =
        q.window ? std::min(seq, whole_number("window", *q.window, 1, max)) : seq;
    const std::size_t layers = whole_number("numLayers", q.num_layers, 1, max);
    const std::size_t bytes = whole_number("bytesPerValue", q.bytes_per_value, 1, 16);
    const std::size_t batch = whole_number("batch", q.batch, 1, max);
    if (q.latent_dims) { // one row of d_c + d_r per token and layer, for every head
        std::uint64_t n = held;
        for (std::uint64_t factor :
             {std::uint64_t(whole_number("latentDims", *q.latent_dims, 1, max)), std::uint64_t(layers),
              std::uint64_t(bytes), std::uint64_t(batch)})
            n = times(n, factor);
        return n;
    }
    const std::size_t d_head = whole_number("dHead", q.d_head, 1, max);
    const std::size_t kv_heads = whole_number("numKvHeads", q.num_kv_heads, 1, max);
    return kv_cache_bytes(held, d_head, d_head, kv_heads, layers, bytes, batch);
}

} // namespace attention
