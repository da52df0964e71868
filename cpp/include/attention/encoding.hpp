// The sinusoidal position encoding of the original Transformer (Vaswani et al. 2017): a fixed
// pattern added to X, PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i + 1] = cos(p / 10000^(2i/D)),
// so that every position has its own row and nearby positions similar ones. P = positions.
#pragma once

#include "attention/matrix.hpp"

namespace attention {

// PE for positions first … first + P − 1 of d features. (P, D).
matrix sinusoidal_encoding(std::size_t first, std::size_t positions, std::size_t d);

} // namespace attention
