// Matrix operations of the lesson on float64 matrices.
// M, K, N = generic sizes; T = tokens, D = features.
#pragma once

#include <vector>

#include <xtensor/xtensor.hpp>

#include "attention/matrix.hpp"

namespace attention {

using vector = xt::xtensor<double, 1>;

// a: (M, K), b: (K, N) → (M, N). Throws std::invalid_argument if K differs.
matrix matmul(const matrix &a, const matrix &b);

// a: (M, K), b: (N, K) → a · bᵀ: (M, N), without forming bᵀ.
matrix matmul_bt(const matrix &a, const matrix &b);

// a: (M, N) → (N, M).
matrix transpose(const matrix &a);

// s: (M, N) → (M, N), each row exp(s − max) / Σ exp(s − max).
matrix softmax_rows(const matrix &s);

// x: (T, D), gamma, beta: (D) → γ · (x − mean) / (std + eps) + β per row,
// std the population standard deviation, as the lesson's layer_norm writes it.
matrix layer_norm(const matrix &x, const vector &gamma, const vector &beta, double eps = 1e-6);

// x: (M, N) → max(0, x).
matrix relu(const matrix &x);

// ‖changed − original‖ / ‖original‖ in the Frobenius norm; a, b: the same shape (M, N).
// An all-zero original gives 0 when nothing changed and +∞ otherwise.
double relative_change(const matrix &changed, const matrix &original);

// parts: H matrices (T, N_h) → (T, Σ N_h), side by side.
matrix concat_columns(const std::vector<matrix> &parts);

} // namespace attention
