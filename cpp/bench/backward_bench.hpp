// The backward pass of one multi-head attention layer against its forward pass, timed side by
// side on the same X, weights and dO, with the multiply-adds each does counted from the sizes.
// T = tokens, T_kv = keys, D = d_model, H = query heads, H_kv = K/V heads, DK = d_k, DV = d_v.
#pragma once

#include <algorithm>
#include <cstdio>

#include "attention/backward.hpp"
#include "attention/engine.hpp"
#include "attention/mask.hpp"
#include "attention/rng.hpp"
#include "attention/spec.hpp"
#include "timing.hpp"

namespace bench {

using namespace attention;

// (query, key) pairs the untraced forward computes: the keys each query sees, summed.
inline double visible_pairs(const attention_config &c) {
    double seen = 0.0;
    for (const key_span &s : visible_spans(c))
        seen += double(s.end - s.begin);
    return seen;
}

// Multiply-adds of passes 1–7 (Q, K, V, the scores, A·V), without W_O: what forward() and the
// backward pass's own recompute share. Scores and A·V over the visible keys only, as the
// untraced pass computes them (up to the register tiles its GEMM rounds each span's ends to);
// the scale, the mask and the softmax's exponentials are not multiply-adds and are not counted.
inline double attention_macs(const attention_config &c) {
    const double t = double(c.seq_len), d = double(c.d_model), h = double(c.num_heads);
    const double hk = double(c.num_kv_heads), dk = double(c.d_k), dv = double(c.d_v);
    const double pairs = visible_pairs(c);
    double macs = t * d * h * dk; // Q = X · W_Q, each query head
    macs += t * d * hk * dk;      // K = X · W_K, each K/V head
    macs += t * d * hk * dv;      // V = X · W_V, each K/V head
    macs += h * pairs * dk;       // S = Q · Kᵀ, each head, the visible keys
    macs += h * pairs * dv;       // H = A · V, each head, the visible keys
    return macs;
}

// Multiply-adds of output = concat · W_O (0 without W_O).
inline double output_macs(const attention_config &c) {
    const double hdv = double(c.num_heads * c.d_v);
    return c.output_projection ? double(c.seq_len) * hdv * double(c.d_model) : 0.0;
}

// Multiply-adds of forward(): the untraced multi-head pass.
inline double forward_macs(const attention_config &c) {
    return attention_macs(c) + output_macs(c);
}

// Multiply-adds of attention_backward untraced: its own forward (to the concat; it needs no
// output), then every gradient product, those of the scores' shape over the visible keys only
// (as the forward's, up to the register tiles the GEMM rounds each span's ends to).
inline double backward_macs(const attention_config &c) {
    const double pairs = visible_pairs(c);
    const double t = double(c.seq_len), d = double(c.d_model), h = double(c.num_heads);
    const double hk = double(c.num_kv_heads), dk = double(c.d_k), dv = double(c.d_v);
    double macs = attention_macs(c); // the recompute: Q, K, V, weights A, concat
    macs += output_macs(c);          // dW_O = concatᵀ · dO
    macs += output_macs(c);          // dConcat = dO · W_Oᵀ
    macs += h * pairs * dv;          // dA = dH · Vᵀ, each head
    macs += h * pairs * dv;          // dV += Aᵀ · dH, each head
    macs += h * pairs * 2.0;         // softmax: rowsum(dA ⊙ A), then A ⊙ (dA − rowsum)
    macs += h * pairs * dk;          // dQ = dS · K, each head (dS = dS̃ / √DK: a division)
    macs += h * pairs * dk;          // dK += dSᵀ · Q, each head
    macs += h * d * t * dk;          // dW_Q = Xᵀ · dQ, each query head
    macs += h * t * dk * d;          // dX += dQ · W_Qᵀ, each query head
    macs += hk * d * t * (dk + dv);  // dW_K = Xᵀ · dK, dW_V = Xᵀ · dV, each K/V head
    macs += hk * t * (dk + dv) * d;  // dX += dK · W_Kᵀ + dV · W_Vᵀ, each K/V head
    return macs;
}

struct backward_case {
    std::size_t t, d, h;
    bool causal;
    std::size_t window = 0; // 0: none
};

// forward() and attention_backward untraced (which runs its own forward first), in turns on one
// problem of kind backward (X, the weights, then dO drawn), with a sliding window when given. ratio (cpu_ratio): backward /
// forward in wall (CPU) time, round by round.
inline void bench_backward(const backward_case &b) {
    generated_spec spec;
    spec.kind = problem_kind::backward, spec.seq_len = double(std::min(b.t, limits::max_seq_len));
    spec.d_model = double(b.d), spec.num_heads = double(b.h), spec.causal = b.causal;
    problem p = make_problem(spec);
    if (b.t > limits::max_seq_len) { // beyond what a spec takes: X and dO drawn here
        p.params.x = numpy_random(7).randn(b.t, b.d);   // (T, D)
        p.d_output = numpy_random(8).randn(b.t, b.d);   // (T, D)
        p.config.seq_len = p.config.kv_len = b.t;
    }
    if (b.window)
        p.config.window = b.window;
    const attention_config &c = p.config;
    const auto ms = interleaved_ms(
        {[&] { (void)forward(p); }, [&] { (void)attention_backward(p.params, p.d_output, c); }},
        4000.0, 9);
    std::printf("{\"what\":\"backward\",\"t\":%zu,\"d\":%zu,\"h\":%zu,\"causal\":%s,"
                "\"window\":%zu,\"forward_macs\":%.0f,\"backward_macs\":%.0f,"
                "\"forward_ms\":%.6f,\"backward_ms\":%.6f,\"ratio\":%.4f,\"cpu_ratio\":%.4f,"
                "\"repeats\":%zu}\n",
                b.t, b.d, b.h, b.causal ? "true" : "false", b.window, forward_macs(c),
                backward_macs(c), median(ms.wall[0]), median(ms.wall[1]),
                median_ratio(ms.wall[1], ms.wall[0]), median_ratio(ms.cpu[1], ms.cpu[0]),
                ms.wall[0].size());
}

} // namespace bench
