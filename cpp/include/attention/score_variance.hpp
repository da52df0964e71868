// The √d_k argument's premise, measured: how widely each head's scores spread before and after
// the division. T = query rows, T_kv = keys, H = query heads.
#pragma once

#include <vector>

#include "attention/trace.hpp"

namespace attention {

// One score_spread per query head that recorded scores and scaled stages (none for flash), per
// layer and head in a model: var(S) and var(S̃) over the entries its queries see, M's zeros (a
// decode step sees every cached key), pooled over every stage of that head (a decode's steps).
// Population variance, numpy's var().
std::vector<score_spread> score_variances(const trace &t);

} // namespace attention
