#include "attention/encoding.hpp"

#include <cmath>

namespace attention {

matrix sinusoidal_encoding(std::size_t first, std::size_t positions, std::size_t d) {
    matrix pe({positions, d}); // (P, D)
    for (std::size_t p = 0; p < positions; ++p)
        for (std::size_t j = 0; j < d; ++j) {
            const double rate = std::pow(10000.0, -double(j - j % 2) / double(d)); // 2i = j − j % 2
            const double angle = double(first + p) * rate;
            pe(p, j) = j % 2 ? std::cos(angle) : std::sin(angle);
        }
    return pe;
}

} // namespace attention
