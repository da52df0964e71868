// The trace budget: how many doubles a traced run records, known from its config before anything
// is computed, so that a run that would not fit is refused at once.
#pragma once

#include <cstddef>

#include "attention/config.hpp"

namespace attention {

// How many doubles a traced run of this config records at most, operands included: the sum
// of the counts each pass keeps beside its record() calls.
std::size_t trace_value_count(const attention_config &c);

// Throws unless a traced run of c fits the trace budget (limits::max_trace_values).
void check_trace_budget(const attention_config &c);

} // namespace attention
