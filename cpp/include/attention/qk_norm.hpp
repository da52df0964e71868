// QK-norm (Qwen3, Gemma 3): each row of a head's q and k divided by its root mean square over the
// head's d_k columns, then multiplied by a gain per column, before RoPE turns it:
// x / √(mean(x²) + ε) ⊙ λ. A normalised row has mean square just under 1 whatever the weights'
// size, so no logit can grow without bound. P = rows, DK = d_k.
#pragma once

#include <vector>

#include "attention/passes.hpp"

namespace attention {

inline constexpr double qk_norm_eps = 1e-6; // ε, as Qwen3's and Gemma 3's configs give it

// x's rows RMS-normalised, each column then times gain[a]. x: (P, DK), gain: DK → (P, DK).
matrix rms_normed(matrix_view x, const std::vector<double> &gain);

// rms_normed, recorded into `out` when given as `id` (q_norm or k_norm) at `at`, with operands x
// (as the trace holds it, named x_name) and the gain (named λ_Q or λ_K). x: (P, DK) → (P, DK),
// P = rows.size.
shared_matrix rms_norm_recorded(stage_id id, const shared_matrix &x, const char *x_name,
                                const std::vector<double> &gain, const attention_config &c,
                                trace *out, stage_at at, const dim &rows);

// The largest |S̃| QK-norm allows: |q̌·ǩ| ≤ ‖q̌‖·‖ǩ‖·max_a |λ^Q_a·λ^K_a| ≤ d_k·max_a |λ^Q_a·λ^K_a|,
// then ÷√d_k (÷1 without scaling).
double qk_norm_bound(const attention_config &c);

} // namespace attention
