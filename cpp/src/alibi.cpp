#include "attention/alibi.hpp"

#include <algorithm>
#include <cmath>

#include "attention/ops.hpp"

namespace attention {

namespace {

// 2^(−8/n)^(k+1) for k < n: the slopes of n heads, n a power of two.
std::vector<double> power_of_two_slopes(std::size_t n) {
    const double start = std::pow(2.0, -8.0 / double(n));
    std::vector<double> slopes;
    for (std::size_t k = 0; k < n; ++k)
        slopes.push_back(std::pow(start, double(k + 1)));
    return slopes;
}

} // namespace

std::vector<double> alibi_slopes(std::size_t heads) {
    std::size_t below = 1; // the largest power of two ≤ heads
    while (below * 2 <= heads)
        below *= 2;
    std::vector<double> slopes = power_of_two_slopes(below);
    const std::vector<double> twice = power_of_two_slopes(2 * below);
    for (std::size_t k = 0; slopes.size() < heads; k += 2)
        slopes.push_back(twice[k]);
    return slopes;
}

linear_bias alibi_of(const attention_config &c, std::size_t head, std::size_t first_query) {
    return {alibi_slopes(c.num_heads)[head], causal_mask(c) || c.kind == problem_kind::kv_cache,
            first_query};
}

matrix bias_matrix(const linear_bias &b, std::size_t rows, std::size_t keys) {
    matrix out({rows, keys}); // (T, T_kv)
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < keys; ++j)
            out(i, j) = b.at(i, j);
    return out;
}

double alibi_row_shift(const matrix &scaled, const linear_bias &b, const row_spans &keys) {
    double worst = 0.0;
    std::vector<double> with(cols(scaled)), shifted(cols(scaled)), w0(cols(scaled)),
        w1(cols(scaled));
    for (std::size_t i = 0; i < rows(scaled); ++i) {
        const double constant = b.slope * double(b.first_query + i);
        for (std::size_t j = 0; j < cols(scaled); ++j) {
            with[j] = scaled(i, j) + b.at(i, j);
            shifted[j] = with[j] + constant;
        }
        softmax_span(with.data(), w0.data(), cols(scaled), keys[i]);
        softmax_span(shifted.data(), w1.data(), cols(scaled), keys[i]);
        for (std::size_t j = 0; j < cols(scaled); ++j)
            worst = std::max(worst, std::fabs(w0[j] - w1[j]));
    }
    return worst;
}

} // namespace attention
