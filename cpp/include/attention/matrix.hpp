// The one tensor type of the core: a row-major float64 matrix.
#pragma once

#include <xtensor/xtensor.hpp>

namespace attention {

using matrix = xt::xtensor<double, 2>;

inline std::size_t rows(const matrix &m) {
    return m.shape()[0];
}
inline std::size_t cols(const matrix &m) {
    return m.shape()[1];
}

} // namespace attention
