// General matrix product on raw row-major float64 storage.
// M, K, N = rows of A, shared dimension, columns of B.
#pragma once

#include <cstddef>

namespace attention {

// C = A · B, overwriting C.
// a: (M, K) with row stride lda; b: (K, N) with row stride ldb; c: (M, N) with row stride ldc.
void gemm(std::size_t m, std::size_t k, std::size_t n, const double *a, std::size_t lda,
          const double *b, std::size_t ldb, double *c, std::size_t ldc);

// C = A · Bᵀ, overwriting C. Scores Q·Kᵀ use this so K is never transposed in memory.
// a: (M, K) with row stride lda; b: (N, K) with row stride ldb; c: (M, N) with row stride ldc.
void gemm_bt(std::size_t m, std::size_t k, std::size_t n, const double *a, std::size_t lda,
             const double *b, std::size_t ldb, double *c, std::size_t ldc);

} // namespace attention
