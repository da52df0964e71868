// What the bench checks before it reports a time: two paths that should agree, do.
#pragma once

#include <algorithm>
#include <cmath>

#include "attention/matrix.hpp"

namespace bench {

// The largest |a − b| over every entry; NaN when the shapes differ (or nothing was computed).
inline double max_difference(const attention::matrix &a, const attention::matrix &b) {
    if (a.shape() != b.shape() || a.size() == 0)
        return std::nan("");
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::fabs(a.data()[i] - b.data()[i]));
    return worst;
}

} // namespace bench
