// The untraced multi-head forward with a sliding window against full causal attention as T
// grows, and with RoPE or ALiBi against the same forward without them, timed side by side.
// T = tokens, D = d_model, H = heads, DK = d_k, W = window.
#pragma once

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "attention/engine.hpp"
#include "attention/mask.hpp"
#include "attention/rng.hpp"
#include "attention/spec.hpp"
#include "timing.hpp"

namespace bench {

using namespace attention;

// Causal self-attention with W_O at (T, D, H). make_problem caps T at limits::max_seq_len (what
// a trace may hold in WASM's memory); the untraced core has no cap, so beyond it the weights are
// drawn at that cap and X again at T tokens.
inline problem causal_problem(std::size_t t, std::size_t d, std::size_t h) {
    generated_spec spec;
    spec.seq_len = double(std::min(t, limits::max_seq_len)), spec.d_model = double(d);
    spec.num_heads = double(h), spec.causal = true;
    problem p = make_problem(spec);
    if (t > limits::max_seq_len) {
        p.params.x = numpy_random(7).randn(t, d); // (T, D)
        p.config.seq_len = p.config.kv_len = t;
    }
    return p;
}

// FLOPs of the forward: 8·T·D² for the four projections, and 4·D·(keys seen, summed over the
// queries) for Q·Kᵀ and A·V over the visible keys only, which is what the untraced pass computes
// (up to the tiles its GEMM rounds each span's ends to).
inline double forward_flop(const attention_config &c) {
    double seen = 0.0;
    for (const key_span &s : visible_spans(c))
        seen += double(s.end - s.begin);
    const double t = double(c.seq_len), d = double(c.d_model);
    return 8.0 * t * d * d + 4.0 * d * seen;
}

struct window_case {
    std::size_t t, d, h, w;
};

// forward() under the causal mask and under a window of W keys (each query sees itself and the
// W − 1 before it), alternately on the same X and weights. ratio (cpu_ratio): causal / window in
// wall (CPU) time, round by round.
inline void bench_window(const window_case &b) {
    const problem causal = causal_problem(b.t, b.d, b.h);
    problem windowed = causal;
    windowed.config.window = b.w;
    const auto ms = interleaved_ms(
        {[&] { (void)forward(causal); }, [&] { (void)forward(windowed); }}, 3000.0, 7);
    std::printf("{\"what\":\"window\",\"t\":%zu,\"d\":%zu,\"h\":%zu,\"w\":%zu,"
                "\"causal_flop\":%.0f,\"window_flop\":%.0f,\"causal_ms\":%.6f,"
                "\"window_ms\":%.6f,\"ratio\":%.4f,\"cpu_ratio\":%.4f,\"repeats\":%zu}\n",
                b.t, b.d, b.h, b.w, forward_flop(causal.config), forward_flop(windowed.config),
                median(ms.wall[0]), median(ms.wall[1]), median_ratio(ms.wall[0], ms.wall[1]),
                median_ratio(ms.cpu[0], ms.cpu[1]), ms.wall[0].size());
}

// forward() causal, then with RoPE (every column of each head, interleaved pairs and
// half-split) and with ALiBi, in turns on the same X and weights. vs_plain (cpu_vs_plain): each
// one's wall (CPU) time / plain's, round by round.
inline void bench_positions(std::size_t t, std::size_t d, std::size_t h) {
    const problem plain = causal_problem(t, d, h);
    const char *names[] = {"plain", "rope", "rope half-split", "alibi"};
    std::vector<problem> variants(4, plain);
    rope_settings rope;
    rope.dims = plain.config.d_k;
    variants[1].config.rope = rope;
    rope.half_split = true;
    variants[2].config.rope = rope;
    variants[3].config.alibi = true;
    std::vector<std::function<void()>> works;
    for (const problem &p : variants)
        works.push_back([&p] { (void)forward(p); });
    const auto ms = interleaved_ms(works, 20000.0, 15);
    for (std::size_t k = 0; k < variants.size(); ++k)
        std::printf("{\"what\":\"positions\",\"t\":%zu,\"d\":%zu,\"h\":%zu,\"variant\":\"%s\","
                    "\"ms\":%.6f,\"vs_plain\":%.4f,\"cpu_vs_plain\":%.4f,\"repeats\":%zu}\n",
                    t, d, h, names[k], median(ms.wall[k]), median_ratio(ms.wall[k], ms.wall[0]),
                    median_ratio(ms.cpu[k], ms.cpu[0]), ms.wall[k].size());
}

} // namespace bench
