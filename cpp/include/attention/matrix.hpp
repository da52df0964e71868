// The one tensor type of the core: a row-major float64 matrix.
#pragma once

#include <vector>

#include <xtensor/xtensor.hpp>

namespace attention {

using matrix = xt::xtensor<double, 2>;

using row_list = std::vector<std::vector<double>>; // a matrix as the caller wrote it

inline std::size_t rows(const matrix &m) {
    return m.shape()[0];
}
inline std::size_t cols(const matrix &m) {
    return m.shape()[1];
}

} // namespace attention
