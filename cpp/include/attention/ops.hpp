// Matrix operations of the lesson on float64 matrices.
// M, K, N = generic sizes; T = tokens, D = features.
#pragma once

#include <vector>

#include <xtensor/xtensor.hpp>

#include "attention/gemm.hpp"
#include "attention/matrix.hpp"

namespace attention {

using vector = xt::xtensor<double, 1>;

// a: (M, K), b: (K, N) → (M, N). Throws std::invalid_argument if K differs.
matrix matmul(const matrix &a, const matrix &b);

// a: (M, K), b: (N, K) → a · bᵀ: (M, N), without forming bᵀ.
matrix matmul_bt(const matrix &a, const matrix &b);

// a: (K, M), b: (K, N) → aᵀ · b: (M, N), the product every weight's gradient is.
matrix matmul_at(const matrix &a, const matrix &b);

// One row softmaxed: exp(in − max) / Σ exp(in − max), n values of in → out (which may be in).
void softmax_row(const double *in, std::size_t n, double *out);

// A row of n logits softmaxed over the keys its query sees: `out`'s entries in `span` become
// the weights of `in`'s, and every entry outside it exactly 0 (what −∞ in the mask gives).
// out may be in.
void softmax_span(const double *in, double *out, std::size_t n, key_span span);

// softmax_span with a sink (gpt-oss): one more, virtual key of logit ζ that holds no value. The
// row's max μ is the larger of its logits' and ζ; each weight is exp(L_j − μ) / (exp(ζ − μ) +
// Σ_j exp(L_j − μ)), so the row sums to 1 less the sink's share. → that share.
double softmax_span_sink(const double *in, double *out, std::size_t n, key_span span, double zeta);

// row[j] / divisor for j < n, into out[j] (which may be row): a division per entry, or the
// exact reciprocal's product when the divisor is a power of two, which has the same bits.
void divide_row(const double *row, std::size_t n, double divisor, double *out);

// κ·tanh(row[j] / κ) for j < n, into out[j] (which may be row): each logit soft-capped inside
// (−κ, κ), as Gemma 2 caps its attention logits.
void soft_cap_row(const double *row, std::size_t n, double kappa, double *out);

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
