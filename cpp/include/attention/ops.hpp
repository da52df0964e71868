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

// One row of softmax_rows: n values of in → out (which may be in).
void softmax_row(const double *in, std::size_t n, double *out);

// row[j] / divisor for j < n, into out[j] (which may be row): a division per entry, or the
// exact reciprocal's product when the divisor is a power of two, which has the same bits.
void divide_row(const double *row, std::size_t n, double divisor, double *out);

// Scale, mask and softmax fused, in place: row i of s becomes softmax(s_i / divisor) over its
// first visible(i) entries, visible(i) = min(keys, i + 1) when causal, else keys, and exactly 0
// after them. These are the operations of softmax_rows(s / divisor + M), M = 0 then −∞ along
// each row, in the same order: the same bits, without the mask or the scaled copy. Masked
// entries are never read, so they need not have been computed.
// s: (M, N) with row stride ld; 1 ≤ keys ≤ N.
void softmax_scaled_prefix(double *s, std::size_t m, std::size_t n, std::size_t ld, double divisor,
                           std::size_t keys, bool causal);

// x / divisor for every entry. s: (M, N) → (M, N).
matrix divided(const matrix &s, double divisor);

// x: (T, D), gamma, beta: (D) → γ · (x − mean) / (std + eps) + β per row,
// std the population standard deviation, as the lesson's layer_norm writes it.
matrix layer_norm(const matrix &x, const vector &gamma, const vector &beta, double eps = 1e-6);

// x: (M, N) → max(0, x).
matrix relu(const matrix &x);

// ‖changed − original‖ / ‖original‖ in the Frobenius norm; a, b: the same shape (M, N).
// An all-zero original gives 0 when nothing changed and +∞ otherwise.
double relative_change(const matrix &changed, const matrix &original);

// Columns first … first + n − 1 of m, e.g. one head's share of a fused projection.
// m: (M, N) → (M, n).
matrix columns_of(const matrix &m, std::size_t first, std::size_t n);

// parts: H matrices (T, N_h) → (T, Σ N_h), side by side.
matrix concat_columns(const std::vector<matrix> &parts);

} // namespace attention
