#include "attention/rng.hpp"

#include <algorithm>
#include <cmath>

namespace attention {

namespace {

constexpr std::size_t shift = 397; // MT19937's m
constexpr std::uint32_t upper = 0x80000000u, lower = 0x7fffffffu, matrix_a = 0x9908b0dfu;

// One word of the twist from words i, i + 1 and i + m (indices already wrapped).
inline std::uint32_t twisted(std::uint32_t x_i, std::uint32_t x_next, std::uint32_t x_m) {
    const std::uint32_t y = (x_i & upper) | (x_next & lower);
    return x_m ^ (y >> 1) ^ ((y & 1u) ? matrix_a : 0u);
}

} // namespace

numpy_random::numpy_random(std::uint32_t seed) {
    state_[0] = seed;
    for (std::size_t i = 1; i < n; ++i) {
        const std::uint32_t prev = state_[i - 1];
        state_[i] = 1812433253u * (prev ^ (prev >> 30)) + std::uint32_t(i);
    }
}

// The reference implementation's three loops: no modulo in the first two, so they vectorise.
void numpy_random::twist() {
    std::size_t i = 0;
    for (; i < n - shift; ++i)
        state_[i] = twisted(state_[i], state_[i + 1], state_[i + shift]);
    for (; i < n - 1; ++i)
        state_[i] = twisted(state_[i], state_[i + 1], state_[i + shift - n]);
    state_[n - 1] = twisted(state_[n - 1], state_[0], state_[shift - 1]);
    index_ = 0;
}

double numpy_random::uniform() {
    const std::uint32_t a = next() >> 5;              // 27 bits
    const std::uint32_t b = next() >> 6;              // 26 bits
    return (a * 67108864.0 + b) / 9007199254740992.0; // (a·2²⁶ + b) / 2⁵³
}

void numpy_random::polar_point(double &x1, double &x2, double &r2) {
    do { // a point uniform in the unit disc, origin excluded
        x1 = 2.0 * uniform() - 1.0;
        x2 = 2.0 * uniform() - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
}

double numpy_random::gauss() {
    if (has_cached_) {
        has_cached_ = false;
        return cached_;
    }
    double x1, x2, r2;
    polar_point(x1, x2, r2);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    cached_ = f * x1;
    has_cached_ = true;
    return f * x2;
}

// gauss() in batches: first the points of up to 256 pairs (the generator's words are consumed
// in the same order), then their logs and square roots, which no longer wait on each other.
// Each pair gives f·x2 and then f·x1, as gauss() returns and caches them: the same bits.
matrix numpy_random::randn(std::size_t r, std::size_t c, double scale) {
    matrix m({r, c});
    double *out = m.data();
    const std::size_t count = m.size();
    std::size_t i = 0;
    if (i < count && has_cached_)
        out[i++] = gauss() * scale;
    constexpr std::size_t batch = 256;
    double x1[batch], x2[batch], r2[batch];
    while (count - i >= 2) {
        const std::size_t pairs = std::min(batch, (count - i) / 2);
        for (std::size_t k = 0; k < pairs; ++k)
            polar_point(x1[k], x2[k], r2[k]);
        for (std::size_t k = 0; k < pairs; ++k, i += 2) {
            const double f = std::sqrt(-2.0 * std::log(r2[k]) / r2[k]);
            out[i] = f * x2[k] * scale;
            out[i + 1] = f * x1[k] * scale;
        }
    }
    if (i < count) // an odd count: one more pair, whose f·x1 stays cached
        out[i++] = gauss() * scale;
    return m;
}

} // namespace attention
