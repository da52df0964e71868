#include "attention/rng.hpp"

#include <cmath>

namespace attention {

double numpy_random::uniform() {
    const std::uint32_t a = mt_() >> 5;               // 27 bits
    const std::uint32_t b = mt_() >> 6;               // 26 bits
    return (a * 67108864.0 + b) / 9007199254740992.0; // (a·2²⁶ + b) / 2⁵³
}

double numpy_random::gauss() {
    if (has_cached_) {
        has_cached_ = false;
        return cached_;
    }
    double x1, x2, r2;
    do { // a point uniform in the unit disc, origin excluded
        x1 = 2.0 * uniform() - 1.0;
        x2 = 2.0 * uniform() - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    cached_ = f * x1;
    has_cached_ = true;
    return f * x2;
}

matrix numpy_random::randn(std::size_t r, std::size_t c) {
    matrix m({r, c});
    for (double &v : m)
        v = gauss();
    return m;
}

} // namespace attention
