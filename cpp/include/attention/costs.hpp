// What a pass costs, counted from its config: the multiply-adds of h heads against one head as
// wide as all of them; the slow-memory (HBM) traffic of standard attention against the tiled
// loop; the forward passes a causal mask saves in training. And the check that makes the last
// one true: row t of one causal pass is the pass over tokens 0 … t alone.
// T = queries, T_kv = keys, D = d_model, H = query heads, H_kv = K/V heads, DK, DV = head dims.
#pragma once

#include <cstddef>
#include <vector>

#include "attention/attention.hpp"
#include "attention/config.hpp"

namespace attention {

// Multiply-adds of one layer by part, and the exponentials its softmax takes.
struct pass_costs {
    double projections; // T·D·H·DK + T_kv·D·H_kv·(DK + DV)
    double scores;      // H·T·T_kv·DK
    double values;      // H·T·T_kv·DV: weights · V
    double output;      // T·H·DV·D with W_O, else 0
    double total;       // the four above
    double exps;        // H·T·T_kv
};

// c's heads, and one head of width H·DK (values H·DV) reading K and V of that width: the
// lesson's "h heads of d_model / h cost what one head of d_model costs".
struct head_split_costs {
    pass_costs heads, single;
};
head_split_costs head_split(const attention_config &c);

// Values moved between slow memory and the chip by one head (Dao et al. 2022): standard
// attention writes S and P out and reads them back, 2·T·DK + 2·T·DV + 4·T² (Θ(N·d + N²));
// the tiled loop reads Q once, K_j and V_j for every tile it keeps and writes O once,
// T·DK + Σ B_c·(DK + DV) + T·DV, Θ(N²·d / B_r), which is Θ(N²·d²/M) with B_r = M / 4d.
struct slow_memory_traffic {
    double standard, tiled;
};
slow_memory_traffic memory_traffic(const attention_config &c);

// Row t of one causal pass against the last row of the pass over tokens 0 … t alone, for
// t < min(T, 16): the largest |difference| of each (a causal mask makes every position's
// output its own prefix's, which is why one pass trains every position).
std::vector<double> causal_prefix_differences(const attention_params &p, const attention_config &c,
                                              const matrix &output);

// Forward passes to train next-token prediction on `batch` sequences of T tokens: one per
// position without a mask (batch · T), one per sequence with it (batch).
struct training_passes {
    double without_mask, with_mask;
};
training_passes causal_training_passes(std::size_t batch, std::size_t seq_len);

} // namespace attention
