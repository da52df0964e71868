// FlashAttention's tiled pass against ordinary attention of one head, on the same Q, K and V.
// T = tokens, D = d_model, DK = d_k, DV = d_v.
#pragma once

#include <cstdio>

#include "attention/flash.hpp"
#include "attention/mask.hpp"
#include "attention/ops.hpp"
#include "attention/passes.hpp"
#include "attention/spec.hpp"
#include "compare.hpp"
#include "timing.hpp"

namespace bench {

using namespace attention;

struct flash_case {
    std::size_t t, d, dk, block;
    bool causal;
};

// Scores, the fused scale + mask + softmax and weights · V over the T × T matrix: the pass the
// core's untraced multi-head attention runs per head, and the one flash_attention checks itself
// against. Under the causal mask it leaves out the register tiles of scores above the diagonal
// and the zero weights' terms.
inline matrix standard_attention(const matrix &q, const matrix &k, const matrix &v,
                                 const attention_config &c) {
    const dim t{c.seq_len, "T"};
    return attend(q, k, v, visible_spans(c), c.causal, c, nullptr, {}, t, t).output; // (T, DV)
}

// Both passes timed alternately on Q, K, V projected once beforehand (projections are the same
// work for both and would only dilute the difference). FLOPs: 2·T²·DK for Q·Kᵀ plus 2·T²·DV for
// P·V, the full square even under the causal mask, whose hidden half both passes skip (the tiled
// pass by B_r × B_c tiles, the standard one by 4 × 4 register tiles): an effective rate there.
inline void bench_flash(const flash_case &b) {
    generated_spec spec;
    spec.kind = problem_kind::flash, spec.seq_len = double(b.t), spec.d_model = double(b.d);
    spec.num_heads = 1, spec.d_k = double(b.dk), spec.d_v = double(b.dk);
    spec.block_rows = double(b.block), spec.block_cols = double(b.block), spec.causal = b.causal;
    const problem p = make_problem(spec);
    const attention_config &c = p.config;
    const matrix q = matmul(p.params.x, p.params.w_q[0]); // (T, DK)
    const matrix k = matmul(p.params.x, p.params.w_k[0]); // (T, DK)
    const matrix v = matmul(p.params.x, p.params.w_v[0]); // (T, DV)
    matrix standard, tiled;
    int repeats = 0;
    const auto [standard_ms, tiled_ms] =
        paired_median_ms([&] { standard = standard_attention(q, k, v, c); },
                         [&] { tiled = tiled_attention(q, k, v, c); }, 1500.0, &repeats);
    const double flop = 2.0 * double(b.t * b.t) * double(c.d_k + c.d_v);
    std::printf("{\"what\":\"flash\",\"t\":%zu,\"d\":%zu,\"dk\":%zu,\"block\":%zu,\"causal\":%s,"
                "\"flop\":%.0f,\"standard_ms\":%.6f,\"tiled_ms\":%.6f,\"repeats\":%d,"
                "\"max_difference\":%.3g}\n",
                b.t, b.d, c.d_k, b.block, b.causal ? "true" : "false", flop, standard_ms, tiled_ms,
                repeats, max_difference(standard, tiled));
}

} // namespace bench
