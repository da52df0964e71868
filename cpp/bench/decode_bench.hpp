// Decoding T tokens one at a time, with a KV cache and without one.
// T = tokens, D = d_model, H = query heads, H_kv = K/V heads, DK = d_k, DV = d_v.
#pragma once

#include <algorithm>
#include <cstdio>

#include <xtensor/xview.hpp>

#include "attention/decode.hpp"
#include "attention/spec.hpp"
#include "compare.hpp"
#include "timing.hpp"

namespace bench {

using namespace attention;

struct decode_case {
    std::size_t t, d, h, h_kv;
};

// A decoder without a cache: at step t, token t's query attends to keys and values projected
// again from all t + 1 tokens so far. That is cross-attention from X[t] to X[0..t] (no mask:
// the newest query sees every key), so the core's multi-head attention does exactly the work
// decode_macs(c, t, false) counts: q of one token, K and V of t + 1, one row of scores, W_O.
inline matrix decode_by_recomputing(const problem &p) {
    const attention_config &c = p.config;
    attention_config cross = c;
    cross.kind = problem_kind::cross, cross.causal = false, cross.seq_len = 1;
    attention_params step = p.params;       // the weights; X and X_kv are set at every step
    matrix decoded({c.seq_len, c.d_model}); // (T, D): one row per step
    for (std::size_t t = 0; t < c.seq_len; ++t) {
        step.x = xt::view(p.params.x, xt::range(t, t + 1), xt::all());    // (1, D)
        step.x_kv = xt::view(p.params.x, xt::range(0, t + 1), xt::all()); // (t + 1, D)
        cross.kv_len = t + 1;
        const matrix row = multi_head_attention(step, cross); // (1, D)
        std::copy(row.begin(), row.end(), decoded.begin() + std::ptrdiff_t(t * c.d_model));
    }
    return decoded;
}

// FLOPs of all T steps: 2 × the core's count of multiply-adds per step.
inline double decode_flop(const attention_config &c, bool cached) {
    double macs = 0.0;
    for (std::size_t t = 0; t < c.seq_len; ++t)
        macs += decode_macs(c, t, cached);
    return 2.0 * macs;
}

// max_difference: between the cached and the recomputed outputs, on both rows.
inline void print_decode(const decode_case &b, bool cached, double flop, double ms, int repeats,
                         double difference) {
    std::printf("{\"what\":\"decode\",\"t\":%zu,\"d\":%zu,\"h\":%zu,\"h_kv\":%zu,\"cached\":%s,"
                "\"flop\":%.0f,\"ms\":%.3f,\"repeats\":%d,\"max_difference\":%.3g}\n",
                b.t, b.d, b.h, b.h_kv, cached ? "true" : "false", flop, ms, repeats, difference);
}

// The cached run: median of at least three after a warm-up. The recomputing run is quadratic
// in T (one to two minutes at T = 1024), so it runs once, and its output is checked against the
// cache's.
inline void bench_decode(const decode_case &b) {
    generated_spec spec;
    spec.kind = problem_kind::kv_cache, spec.seq_len = double(b.t), spec.d_model = double(b.d);
    spec.num_heads = double(b.h), spec.num_kv_heads = double(b.h_kv);
    const problem p = make_problem(spec); // W_O on: output_projection defaults to true
    matrix cached, recomputed;
    const auto with_cache = [&] { cached = decode_with_cache(p.params, p.config); };
    const int repeats = repeats_for(ms_of(with_cache), 6000.0, 3);
    const double cached_ms = median_ms(with_cache, repeats);
    const double recompute_ms = ms_of([&] { recomputed = decode_by_recomputing(p); });
    const double difference = max_difference(cached, recomputed);
    print_decode(b, true, decode_flop(p.config, true), cached_ms, repeats, difference);
    print_decode(b, false, decode_flop(p.config, false), recompute_ms, 1, difference);
}

} // namespace bench
