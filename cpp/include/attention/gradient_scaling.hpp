// The premise of ÷√d_k tried on the gradients: kind backward's trace carries this study beside its
// stages (trace_checks::gradient_scaling).
#pragma once

#include <cstdint>
#include <vector>

#include "attention/trace.hpp"

namespace attention {

// The study for d_k in {4, 16, 64, 256} at weight scales 1 and 1/√D (the premise of ÷√d_k: unit-
// variance q and k components), with and without ÷√d_k: T = 32 tokens, D = 16, one head, dO
// drawn, all from numpy's generator seeded with `seed`.
std::vector<scaling_point> gradient_scaling(std::uint32_t seed);

} // namespace attention
