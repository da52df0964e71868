// What must hold of every spec validation accepted: each check that fails calls finding(), which
// prints what broke and aborts, so libFuzzer keeps the input as a crash. Refusals
// (std::invalid_argument) are the caller's business, not checked here.
#pragma once

#include <cstdint>
#include <string>

#include "attention/engine.hpp"
#include "attention/kv_size.hpp"
#include "byte_reader.hpp"

namespace fuzz {

[[noreturn]] void finding(const std::string &what);

// Nothing NaN or +∞ anywhere; −∞ only where a mask puts it; each row of weights sums to 1; the
// record within trace_value_count's bound (the budget check relies on it); the run's own checks
// (decoded or tiled against one pass, the pruned output's change) finite and small.
void check_trace(const attention::trace &t);

// forward() gives the traced run's final stage (output, norm2 or stacked).
void check_forward(const attention::problem &p, const attention::trace &t);

// A few cells picked by the input (some outside their stage), each taken apart by explain_cell,
// and the parts put back together give the cell.
void check_explanations(byte_reader &in, const attention::trace &t);

// prune_each_head: one finite, non-negative change per head (+∞ when the output is all zero)
// for the kinds with W_O; a refusal for the others.
void check_pruning(const attention::problem &p);

// kv_cache_bytes(q) is the product, exactly, or refuses when a field is out of range or the
// product passes 2⁵³.
void check_kv_bytes(const attention::kv_cache_query &q);

// js_number(v) reads back as v; a refusal's message starts with the field it names.
void check_js_number(double v);
void check_refusal(const std::string &message);

} // namespace fuzz
