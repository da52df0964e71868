// The backward pass's weight gradients checked against the loss itself: kind backward's trace
// carries, for each weight matrix, one entry of dW beside the central difference of the stand-in
// loss ℒ = ⟨O, dO⟩ (backward.hpp) that it is the slope of (trace_checks::gradient_checks).
#pragma once

#include <vector>

#include "attention/params.hpp"
#include "attention/trace.hpp"

namespace attention {

// The step each check moves its weight by, either way: the central difference's error is about
// ε² · ℒ''' and its rounding about 1e-16 · |ℒ| / ε, both far below the entries at this ε.
constexpr double gradient_check_step = 1e-5;

// For W_Q and W_K, W_V of head and K/V head 0, and W_O (when there is one): the entry of dW with
// the largest magnitude, read from t's stages d_w_q, d_w_k, d_w_v, d_w_o, beside
// (ℒ(W + εE) − ℒ(W − εE)) / 2ε with E that entry's unit matrix and O the pass's output on p.
std::vector<gradient_check> check_gradients(const attention_params &p, const matrix &d_output,
                                            const attention_config &c, const trace &t);

} // namespace attention
