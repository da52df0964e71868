// The two ways to run a validated problem: with its whole trace, or output only.
#pragma once

#include "attention/spec.hpp"
#include "attention/trace.hpp"

#include <vector>

namespace attention {

// Every stage of the problem, in the order of the lesson. Throws
// std::invalid_argument when the trace would exceed limits::max_trace_values.
trace run_traced(const problem &p);

// The final output only: (T, D) with W_O (and from the encoder layer), else (T, H·DV).
// Records nothing.
matrix forward(const problem &p);

// For each head alone, ‖Δ‖ / ‖·‖ of the attention output (the `output` stage) when that head is
// pruned, against the output with no head pruned. Throws for kinds without W_O.
std::vector<double> prune_each_head(const problem &p);

} // namespace attention
