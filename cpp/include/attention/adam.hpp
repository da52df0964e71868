// Adam (Kingma & Ba, 2015) over a model's parameters, with bias correction:
//   t ← t + 1;  m ← β₁·m + (1 − β₁)·g;  v ← β₂·v + (1 − β₂)·g²
//   θ ← θ − lr · (m / (1 − β₁ᵗ)) / (√(v / (1 − β₂ᵗ)) + ε)
#pragma once

#include "attention/model.hpp"

namespace attention {

struct adam_state {
    std::size_t step = 0; // t: the updates taken
    model_params m, v;    // the moments, shaped as the parameters
};

constexpr double adam_beta1 = 0.9, adam_beta2 = 0.999, adam_epsilon = 1e-8;

// t = 0 and both moments zero.
adam_state adam_start(const model_config &c);

// Refuses a state no run of Adam from adam_start reaches, naming field's part
// (from.optimizer.v.W_E): a moment that is not finite, v < 0 (a mean of squares), or |m| beyond
// what t steps of any gradients can give against v: by Cauchy–Schwarz, m² ≤ (1 − β₁)²/(1 − β₂) ·
// Σ_{i<t} (β₁²/β₂)ⁱ · v.
void validate_adam_state(const adam_state &s, const model_config &c, const std::string &field);

// One update of p by the gradients g at this learning rate.
void adam_step(model_params &p, const model_params &g, adam_state &s, double learning_rate);

} // namespace attention
