// General matrix product on raw row-major float64 storage.
// M, K, N = rows of A, shared dimension, columns of B.
#pragma once

#include <algorithm>
#include <cstddef>

namespace attention {

// C = A · B, overwriting C.
// a: (M, K) with row stride lda; b: (K, N) with row stride ldb; c: (M, N) with row stride ldc.
void gemm(std::size_t m, std::size_t k, std::size_t n, const double *a, std::size_t lda,
          const double *b, std::size_t ldb, double *c, std::size_t ldc);

// How many terms of each entry's sum the product adds up from 0 in one sweep; a deeper sum is
// the sum of its sweeps, added to C in order.
constexpr std::size_t gemm_depth = 256;

// C += A · B: each sweep of A · B's sums is added to C. For k ≤ gemm_depth that is C plus
// exactly what gemm writes, so sums of products taken apart and added agree bit for bit.
// Shapes as gemm's.
void gemm_add(std::size_t m, std::size_t k, std::size_t n, const double *a, std::size_t lda,
              const double *b, std::size_t ldb, double *c, std::size_t ldc);

// C = A · Bᵀ, overwriting C. Scores Q·Kᵀ use this so K is never transposed in memory.
// a: (M, K) with row stride lda; b: (N, K) with row stride ldb; c: (M, N) with row stride ldc.
void gemm_bt(std::size_t m, std::size_t k, std::size_t n, const double *a, std::size_t lda,
             const double *b, std::size_t ldb, double *c, std::size_t ldc);

// A prefix of every row: row i's first min(keys, i + 1) entries when causal, else its first
// `keys` — what a causal or padding mask leaves visible (it only ever hides the end of a row).
struct row_prefix {
    std::size_t keys;
    bool causal = false;
    std::size_t operator()(std::size_t i) const { return causal ? std::min(keys, i + 1) : keys; }
};

// gemm_bt when only each row's prefix of C is needed (the scores a mask leaves visible):
// c(i, j) for j < prefix(i) has gemm_bt's bits; the entries past it are left out where a whole
// register tile lies past the prefix, and are gemm_bt's values where they are computed.
void gemm_bt_prefix(std::size_t m, std::size_t k, std::size_t n, const double *a, std::size_t lda,
                    const double *b, std::size_t ldb, double *c, std::size_t ldc,
                    row_prefix prefix);

// gemm when row i of A is zero past prefix(i) (the weights of hidden keys): those terms are left
// out. They would add +0 or −0 to sums that start at +0, so for a finite B the result has
// gemm's bits.
void gemm_prefix(std::size_t m, std::size_t k, std::size_t n, const double *a, std::size_t lda,
                 const double *b, std::size_t ldb, double *c, std::size_t ldc, row_prefix prefix);

} // namespace attention
