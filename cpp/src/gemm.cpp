// Cache-blocked float64 matrix product (the Goto/BLIS scheme), portable C++17.
//
// C = A·B is computed block by block: a KC-deep slice of B is copied ("packed") into contiguous
// panels of NR columns, an MC-row slice of A into panels of MR rows, and a small micro-kernel
// multiplies one A panel by one B panel into an MR×NR register tile. Packing makes every inner
// loop read memory sequentially, and the blocking keeps the panels being reused in cache.
// One file over 300 lines: the packing, the micro-kernel and the blocking loops share the block
// sizes and are read together. The micro-kernel uses GCC/Clang vector extensions, which become SSE2
// in a native x86-64 build and wasm simd128 under em++ -msimd128, without any platform-specific
// header.
#include "attention/gemm.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace attention {
namespace {

using std::size_t;

// Doubles per SIMD vector: 2 with SSE2 and wasm simd128; 4 or 8 when the native build is allowed
// AVX or AVX-512 (-march=native, as the bench builds it once). Each lane does the same multiply
// and add in the same order at any width (no fused multiply-add: ISO C++ keeps them apart), so
// every width gives the same bits.
#if defined(__AVX512F__)
constexpr size_t VW = 8;
#elif defined(__AVX__)
constexpr size_t VW = 4;
#else
constexpr size_t VW = 2;
#endif
using vec = double __attribute__((vector_size(VW * sizeof(double))));

// Register tile: MR×NR = 4×(2 vectors) doubles is 8 accumulators, plus 2 B vectors and one
// broadcast A value, within the 16 SIMD registers of x86-64 SSE2 and of V8's wasm backend.
// Measured alternatives (4×4 in doubles): 6×4 and 8×2 run ~40% slower in V8; 2×8 is as fast
// in WASM but ~10% slower natively.
constexpr size_t MR = 4;
constexpr size_t NV = 2;       // vectors per tile row
constexpr size_t NR = NV * VW; // 4 doubles, 8 with AVX, 16 with AVX-512
// Cache blocks: a KC×NR B panel is 8 KB (L1) with SSE2, an MC×KC A block 192 KB (L2),
// and NC bounds the packed B block (KC×NC, 8 MB) for very wide products.
constexpr size_t KC = gemm_depth;
constexpr size_t MC = 96;
constexpr size_t NC = 4096;
static_assert(MC % MR == 0 && NC % NR == 0, "tile shape");

// x in every lane.
inline vec splat(double x) {
    vec v;
    for (size_t lane = 0; lane < VW; ++lane)
        v[lane] = x;
    return v;
}

// A strided read-only matrix view: element (r, c) lives at data[r * rs + c * cs].
// B and Bᵀ differ only in their strides, so one code path serves gemm and gemm_bt.
struct View {
    const double *data;
    size_t rs, cs;
    double operator()(size_t r, size_t c) const { return data[r * rs + c * cs]; }
};

// Copies rows [i0, i0+mc) × columns [p0, p0+kc) of A into panels of MR rows, stored
// column by column (MR consecutive values per p). Rows past the edge are zero-filled.
void pack_a(View a, size_t i0, size_t mc, size_t p0, size_t kc, double *dst) {
    for (size_t ir = 0; ir < mc; ir += MR) {
        const size_t rows = std::min(MR, mc - ir);
        for (size_t p = 0; p < kc; ++p, dst += MR) {
            for (size_t i = 0; i < rows; ++i)
                dst[i] = a(i0 + ir + i, p0 + p);
            for (size_t i = rows; i < MR; ++i)
                dst[i] = 0.0;
        }
    }
}

// Copies rows [p0, p0+kc) × columns [j0, j0+nc) of B into panels of NR columns, stored
// row by row (NR consecutive values per p). Columns past the edge are zero-filled.
void pack_b(View b, size_t p0, size_t kc, size_t j0, size_t nc, double *dst) {
    for (size_t jr = 0; jr < nc; jr += NR) {
        const size_t cols = std::min(NR, nc - jr);
        for (size_t p = 0; p < kc; ++p, dst += NR) {
            for (size_t j = 0; j < cols; ++j)
                dst[j] = b(p0 + p, j0 + jr + j);
            for (size_t j = cols; j < NR; ++j)
                dst[j] = 0.0;
        }
    }
}

// An unaligned vector load and store.
inline vec load(const double *p) {
    vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store(double *p, vec v) {
    std::memcpy(p, &v, sizeof v);
}

// C's rows × cols corner (+)= A panel · B panel over kc steps. Per step: load one NR-wide row
// of B, broadcast each of the MR values of A, and update the accumulators held in registers.
// A whole tile goes from the registers straight into C, an edge tile through a buffer, vector by
// vector. (Copying the accumulators out as one array made em++ call memcpy for every tile, a
// fifth of the time of a product with k = 64, and g++ keep them in memory throughout the loop.)
void micro_kernel(size_t kc, const double *ap, const double *bp, size_t rows, size_t cols,
                  bool first, double *c, size_t ldc) {
    vec acc[MR][NV] = {};
    for (size_t p = 0; p < kc; ++p, ap += MR, bp += NR) {
        vec b[NV];
        for (size_t v = 0; v < NV; ++v)
            b[v] = load(bp + v * VW);
        for (size_t i = 0; i < MR; ++i) {
            const vec ai = splat(ap[i]);
            for (size_t v = 0; v < NV; ++v)
                acc[i][v] += ai * b[v];
        }
    }
    if (rows < MR || cols < NR) {
        double tile[MR * NR];
        for (size_t i = 0; i < MR; ++i)
            for (size_t v = 0; v < NV; ++v)
                store(tile + i * NR + v * VW, acc[i][v]);
        for (size_t i = 0; i < rows; ++i, c += ldc)
            for (size_t j = 0; j < cols; ++j)
                c[j] = first ? tile[i * NR + j] : c[j] + tile[i * NR + j];
        return;
    }
    for (size_t i = 0; i < MR; ++i)
        for (size_t v = 0; v < NV; ++v) {
            double *to = c + i * ldc + v * VW;
            if (first)
                store(to, acc[i][v]);
            else
                store(to, load(to) + acc[i][v]);
        }
}

// What a masked product may leave out, row by row (gemm.hpp): nothing, the entries of C outside
// each row's span (gemm_bt_spans), or the terms outside each row's span of A, where A is zero
// (gemm_spans). A block of rows needs the union of its rows' spans.
struct Skip {
    enum class What { nothing, columns, depth } what = What::nothing;
    const row_spans *spans = nullptr;

    // The columns (or terms) rows [r0, r1) need: from the smallest begin to the largest end.
    key_span needed(size_t r0, size_t r1, size_t all) const {
        if (what == What::nothing)
            return {0, all};
        key_span u{all, 0};
        for (size_t i = r0; i < r1; ++i) {
            u.begin = std::min(u.begin, (*spans)[i].begin);
            u.end = std::max(u.end, (*spans)[i].end);
        }
        return u;
    }
};

// Whether [begin, begin + size) misses the span u.
bool misses(size_t begin, size_t size, key_span u) {
    return begin + size <= u.begin || begin >= u.end;
}

// The first KC-deep slice that holds a needed term: where a tile's sum starts (C = …, not +=).
size_t first_slice(key_span u) {
    return u.begin / KC * KC;
}

// Where a packed block sits in the whole product: its first row, column and depth.
struct Corner {
    size_t row, col, depth;
};

// Multiplies a packed mc×kc block of A by a packed kc×nc block of B into C. The B panel
// (kc×NR, 8 KB at KC=256) stays in L1 while the ir loop sweeps the A block (L2-sized). Tiles a
// mask leaves out are skipped, and tiles whose rows need fewer terms run a shorter kernel.
void macro_kernel(size_t mc, size_t nc, size_t kc, const double *ap, const double *bp, bool add,
                  double *c, size_t ldc, Corner at, Skip skip, size_t extent) {
    const bool depth = skip.what == Skip::What::depth;
    for (size_t jr = 0; jr < nc; jr += NR)
        for (size_t ir = 0; ir < mc; ir += MR) {
            const size_t rows = std::min(MR, mc - ir), cols = std::min(NR, nc - jr);
            const key_span u = skip.needed(at.row + ir, at.row + ir + rows, extent);
            if (skip.what == Skip::What::columns && misses(at.col + jr, cols, u))
                continue;
            size_t from = 0, to = kc; // the terms of this slice the tile's rows need
            if (depth) {
                if (misses(at.depth, kc, u)) // only zero terms: C + (+0) is C
                    continue;
                from = std::max(u.begin, at.depth) - at.depth;
                to = std::min(u.end, at.depth + kc) - at.depth;
            }
            const bool first = !add && at.depth == (depth ? first_slice(u) : 0);
            micro_kernel(to - from, ap + ir * kc + from * MR, bp + jr * kc + from * NR, rows, cols,
                         first, c + ir * ldc + jr, ldc);
        }
}

// Loop nest of the blocked product: NC columns of B at a time (L3-sized), then KC-deep
// slices (so packed panels fit L1/L2), then MC rows of A.
// add: C += A·B instead of C = A·B.
void blocked_product(size_t m, size_t k, size_t n, View a, View b, double *c, size_t ldc, Skip skip,
                     bool add) {
    const size_t round_n = (std::min(n, NC) + NR - 1) / NR * NR;
    const size_t round_m = (std::min(m, MC) + MR - 1) / MR * MR;
    // Left uninitialised: the packing writes every value before the kernel reads it.
    const std::unique_ptr<double[]> b_pack(new double[std::min(k, KC) * round_n]);
    const std::unique_ptr<double[]> a_pack(new double[std::min(k, KC) * round_m]);
    const auto left_out = [&](size_t ic, size_t mc, size_t jc, size_t nc, size_t pc, size_t kc) {
        const key_span u = skip.needed(ic, ic + mc, skip.what == Skip::What::depth ? k : n);
        return (skip.what == Skip::What::columns && misses(jc, nc, u)) ||
               (skip.what == Skip::What::depth && misses(pc, kc, u));
    };
    for (size_t jc = 0; jc < n; jc += NC) {
        const size_t nc = std::min(NC, n - jc);
        for (size_t pc = 0; pc < k; pc += KC) {
            const size_t kc = std::min(KC, k - pc);
            if (left_out(0, m, jc, nc, pc, kc))
                continue;
            pack_b(b, pc, kc, jc, nc, b_pack.get());
            for (size_t ic = 0; ic < m; ic += MC) {
                const size_t mc = std::min(MC, m - ic);
                if (left_out(ic, mc, jc, nc, pc, kc))
                    continue;
                pack_a(a, ic, mc, pc, kc, a_pack.get());
                macro_kernel(mc, nc, kc, a_pack.get(), b_pack.get(), add, c + ic * ldc + jc, ldc,
                             {ic, jc, pc}, skip, skip.what == Skip::What::depth ? k : n);
            }
        }
    }
}

// One row of A (a decode step's token): c = a · B over the terms [k0, k1) without packing,
// which would copy all of B to use each value once. Each c[j] is summed in the blocked
// product's order, the terms of each KC-deep slice from 0 and then added to c, so both paths
// give the same bits. B is read in memory order: row by row when it is row-major, column by
// column when it is Bᵀ (its rows are contiguous).
void row_product(size_t k0, size_t k1, size_t n, View a, View b, double *c, bool add) {
    std::vector<double> partial(n);
    for (size_t pc = k0 / KC * KC; pc < k1; pc += KC) {
        const size_t begin = std::max(k0, pc), end = std::min(k1, pc + KC);
        std::fill(partial.begin(), partial.end(), 0.0);
        if (b.cs == 1) {
            for (size_t p = begin; p < end; ++p)
                for (size_t j = 0; j < n; ++j)
                    partial[j] += a(0, p) * b(p, j);
        } else {
            for (size_t j = 0; j < n; ++j)
                for (size_t p = begin; p < end; ++p)
                    partial[j] += a(0, p) * b(p, j);
        }
        for (size_t j = 0; j < n; ++j)
            c[j] = pc == k0 / KC * KC && !add ? partial[j] : c[j] + partial[j];
    }
}

// Dispatches the degenerate shapes and single rows, then runs the blocked product. There is
// deliberately no separate loop for other small matrices: measured down to 5×16 @ 16×4,
// packing plus the micro-kernel is as fast as plain loops in WASM and twice as fast natively.
void product(size_t m, size_t k, size_t n, View a, View b, double *c, size_t ldc, Skip skip = {},
             bool add = false) {
    if (m == 0 || n == 0)
        return;
    if (k == 0) { // empty sum: C = 0, or C + 0 = C
        for (size_t i = 0; i < m && !add; ++i)
            std::fill(c + i * ldc, c + i * ldc + n, 0.0);
        return;
    }
    if (m == 1 && skip.what == Skip::What::columns) { // only the row's span of C
        const key_span u = skip.needed(0, 1, n);
        const View shifted{b.data + u.begin * b.cs, b.rs, b.cs};
        return row_product(0, k, u.end - u.begin, a, shifted, c + u.begin, add);
    }
    if (m == 1) { // the row's terms outside its span are zero
        const key_span u = skip.needed(0, 1, k);
        return row_product(u.begin, u.end, n, a, b, c, add);
    }
    blocked_product(m, k, n, a, b, c, ldc, skip, add);
}

} // namespace

void gemm(size_t m, size_t k, size_t n, const double *a, size_t lda, const double *b, size_t ldb,
          double *c, size_t ldc) {
    product(m, k, n, View{a, lda, 1}, View{b, ldb, 1}, c, ldc);
}

void gemm_add(size_t m, size_t k, size_t n, const double *a, size_t lda, const double *b,
              size_t ldb, double *c, size_t ldc) {
    product(m, k, n, View{a, lda, 1}, View{b, ldb, 1}, c, ldc, {}, true);
}

void gemm_bt(size_t m, size_t k, size_t n, const double *a, size_t lda, const double *b, size_t ldb,
             double *c, size_t ldc) {
    product(m, k, n, View{a, lda, 1}, View{b, 1, ldb}, c, ldc);
}

void gemm_at(size_t m, size_t k, size_t n, const double *a, size_t lda, const double *b, size_t ldb,
             double *c, size_t ldc) {
    product(m, k, n, View{a, 1, lda}, View{b, ldb, 1}, c, ldc);
}

namespace {

// Spans that leave nothing out: the plain product, without a check per tile.
Skip skip_of(Skip::What what, const row_spans &spans, size_t all) {
    const bool whole = std::all_of(spans.begin(), spans.end(),
                                   [&](key_span s) { return s.begin == 0 && s.end >= all; });
    return whole ? Skip{} : Skip{what, &spans};
}

} // namespace

void gemm_bt_spans(size_t m, size_t k, size_t n, const double *a, size_t lda, const double *b,
                   size_t ldb, double *c, size_t ldc, const row_spans &spans) {
    product(m, k, n, View{a, lda, 1}, View{b, 1, ldb}, c, ldc,
            skip_of(Skip::What::columns, spans, n));
}

void gemm_spans(size_t m, size_t k, size_t n, const double *a, size_t lda, const double *b,
                size_t ldb, double *c, size_t ldc, const row_spans &spans) {
    product(m, k, n, View{a, lda, 1}, View{b, ldb, 1}, c, ldc,
            skip_of(Skip::What::depth, spans, k));
}

void gemm_at_spans(size_t m, size_t k, size_t n, const double *a, size_t lda, const double *b,
                   size_t ldb, double *c, size_t ldc, const row_spans &spans) {
    product(m, k, n, View{a, 1, lda}, View{b, ldb, 1}, c, ldc,
            skip_of(Skip::What::depth, spans, k));
}

} // namespace attention
