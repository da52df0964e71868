// numpy's legacy RandomState, bit for bit: np.random.seed(s); np.random.randn(r, c).
#pragma once

#include <array>
#include <cstdint>

#include "attention/matrix.hpp"

namespace attention {

class numpy_random {
  public:
    // Seeds MT19937 exactly as RandomState.seed(s) does for an integer 0 ≤ s < 2³².
    explicit numpy_random(std::uint32_t seed);

    // A uniform double in [0, 1) with 53 random bits, built from two 32-bit draws.
    double uniform();

    // One standard normal by the polar Box–Muller method; every second call
    // returns the value cached by the call before, as numpy does.
    double gauss();

    // (r, c) standard normals in row-major order, like np.random.randn(r, c), each times
    // `scale` as it is drawn (the same bits as randn(r, c) * scale, without a temporary).
    matrix randn(std::size_t r, std::size_t c, double scale = 1.0);

  private:
    static constexpr std::size_t n = 624; // MT19937's state words

    // The next 32-bit output of MT19937 (the same sequence as std::mt19937).
    std::uint32_t next() {
        if (index_ == n)
            twist();
        std::uint32_t y = state_[index_++];
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680u;
        y ^= (y << 15) & 0xefc60000u;
        return y ^ (y >> 18);
    }

    // All n words of the next state at once (std::mt19937 steps one word per draw).
    void twist();

    // The polar method's point: (x1, x2) uniform in the unit disc without its centre, and
    // r2 = x1² + x2².
    void polar_point(double &x1, double &x2, double &r2);

    std::array<std::uint32_t, n> state_;
    std::size_t index_ = n;
    bool has_cached_ = false;
    double cached_ = 0.0;
};

} // namespace attention
