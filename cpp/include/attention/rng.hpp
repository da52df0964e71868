// numpy's legacy RandomState, bit for bit: np.random.seed(s); np.random.randn(r, c).
#pragma once

#include <cstdint>
#include <random>

#include "attention/matrix.hpp"

namespace attention {

class numpy_random {
  public:
    // Seeds MT19937 exactly as RandomState.seed(s) does for an integer 0 ≤ s < 2³².
    explicit numpy_random(std::uint32_t seed) : mt_(seed) {}

    // A uniform double in [0, 1) with 53 random bits, built from two 32-bit draws.
    double uniform();

    // One standard normal by the polar Box–Muller method; every second call
    // returns the value cached by the call before, as numpy does.
    double gauss();

    // (r, c) standard normals in row-major order, like np.random.randn(r, c).
    matrix randn(std::size_t r, std::size_t c);

  private:
    std::mt19937 mt_; // std::mt19937 seeds with the same recurrence numpy uses
    bool has_cached_ = false;
    double cached_ = 0.0;
};

} // namespace attention
