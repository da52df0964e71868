// General matrix product on raw row-major float64 storage.
// M, K, N = rows of A, shared dimension, columns of B.
#pragma once

#include <cstddef>
#include <vector>

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

// C = Aᵀ · B, overwriting C: every weight's gradient (Xᵀ · dQ), without transposing A in memory.
// a: (K, M) with row stride lda; b: (K, N) with row stride ldb; c: (M, N) with row stride ldc.
void gemm_at(std::size_t m, std::size_t k, std::size_t n, const double *a, std::size_t lda,
             const double *b, std::size_t ldb, double *c, std::size_t ldc);

// The columns [begin, end) one row of a masked product needs: the keys a query may see.
struct key_span {
    std::size_t begin, end;
};

// One span per row (rows[i] for row i). What a mask leaves visible to each query: every mask
// here (causal, padding, a window, a prefix, packed documents) leaves one contiguous span.
using row_spans = std::vector<key_span>;

// gemm_bt when only each row's span of C is needed (the scores a mask leaves visible):
// c(i, j) for j in spans[i] has gemm_bt's bits; the entries outside it are left out where a
// whole register tile lies outside its rows' spans, and are gemm_bt's values where computed.
void gemm_bt_spans(std::size_t m, std::size_t k, std::size_t n, const double *a, std::size_t lda,
                   const double *b, std::size_t ldb, double *c, std::size_t ldc,
                   const row_spans &spans);

// gemm when row i of A is zero outside spans[i] (the weights of hidden keys): those terms are
// left out. They would add +0 or −0 to sums that start at +0, so for a finite B the result has
// gemm's bits.
void gemm_spans(std::size_t m, std::size_t k, std::size_t n, const double *a, std::size_t lda,
                const double *b, std::size_t ldb, double *c, std::size_t ldc,
                const row_spans &spans);

// gemm_at when column i of A (row i of Aᵀ) is zero outside spans[i]: those terms are left out,
// with gemm_at's bits for a finite B, as in gemm_spans. C must hold zeros before the call: a
// row whose span is empty is left as it was. a: (K, M); b: (K, N); c: (M, N).
void gemm_at_spans(std::size_t m, std::size_t k, std::size_t n, const double *a, std::size_t lda,
                   const double *b, std::size_t ldb, double *c, std::size_t ldc,
                   const row_spans &spans);

} // namespace attention
