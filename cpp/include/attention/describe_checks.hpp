// What a run checked about itself and what it costs, as the config's fields for JS: a decoding
// run's per-step differences and cache, FlashAttention's floats and traffic, the heads against one
// wide head, a causal pass's prefixes, RoPE's shift, ALiBi's row shift, the scores' variance and
// the √d_k study. describe_config (describe.hpp) adds them to the config it hands out.
#pragma once

#include "attention/trace.hpp"
#include "attention/value.hpp"

namespace attention {

// Appends to o the checks t holds (maxDifference, stepDifferences, headSplit, ropeShift, …).
void add_checks(value_record &o, const trace &t);

} // namespace attention
