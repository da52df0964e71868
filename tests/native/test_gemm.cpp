// The blocked gemm / gemm_bt against the textbook triple loop, across sizes that straddle
// the register tile (4×4) and the cache blocks (MC = 96 rows, KC = 256 deep, NC = 4096 wide),
// with strided storage and the empty sum k = 0; the masked products (gemm_bt_spans,
// gemm_spans) against the whole ones, bit for bit, for every shape of span a mask makes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "attention/gemm.hpp"
#include "check.hpp"

using attention::gemm;
using attention::gemm_bt;

namespace {

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();
constexpr double guard = 12345.5; // C's padding columns, which gemm must not touch

struct layout {
    std::size_t m, k, n;
    std::size_t a_pad = 0, b_pad = 0, c_pad = 0; // row stride = width + pad
};

// Small integers make every product and partial sum exact, so the blocked product must
// equal the triple loop bit for bit whatever order it sums in.
std::vector<double> integers(std::size_t count, std::mt19937 &g) {
    std::uniform_int_distribution<int> d(-8, 8);
    std::vector<double> v(count);
    for (double &x : v)
        x = d(g);
    return v;
}

// Dense r×c values spread into rows of stride ld; the padding holds NaN, so reading it
// would poison the result.
std::vector<double> strided(const std::vector<double> &dense, std::size_t r, std::size_t c,
                            std::size_t ld) {
    std::vector<double> out(r * ld, not_a_number);
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j)
            out[i * ld + j] = dense[i * c + j];
    return out;
}

// Runs gemm (or gemm_bt, with B stored as its transpose) on layout L and compares with
// the naive product: exact values in C, the guard left in C's padding.
void check_product(const layout &L, bool bt, std::mt19937 &g) {
    const std::size_t m = L.m, k = L.k, n = L.n;
    const std::size_t lda = k + L.a_pad, ldc = n + L.c_pad, ldb = (bt ? k : n) + L.b_pad;
    CAPTURE(bt, m, k, n, lda, ldb, ldc);
    const std::vector<double> a = integers(m * k, g), b = integers(k * n, g); // b: (K, N)
    std::vector<double> b_stored(bt ? n * k : k * n);                         // (N, K) for gemm_bt
    for (std::size_t p = 0; p < k; ++p)
        for (std::size_t j = 0; j < n; ++j)
            (bt ? b_stored[j * k + p] : b_stored[p * n + j]) = b[p * n + j];
    const std::vector<double> sa = strided(a, m, k, lda);
    const std::vector<double> sb = bt ? strided(b_stored, n, k, ldb) : strided(b_stored, k, n, ldb);
    std::vector<double> c(m * ldc, guard);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j)
            c[i * ldc + j] = not_a_number; // must be overwritten, not added to
    (bt ? gemm_bt : gemm)(m, k, n, sa.data(), lda, sb.data(), ldb, c.data(), ldc);

    const std::vector<double> want = check::naive_product(m, k, n, a, b);
    std::size_t bad = 0, first_i = 0, first_j = 0, touched_padding = 0;
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j)
            if (!(c[i * ldc + j] == want[i * n + j]) && bad++ == 0)
                first_i = i, first_j = j;
        for (std::size_t j = n; j < ldc; ++j)
            touched_padding += c[i * ldc + j] != guard;
    }
    if (bad) {
        INFO(bad << " of " << m * n << " cells differ; first (" << first_i << ", " << first_j
                 << "): got " << c[first_i * ldc + first_j] << ", want "
                 << want[first_i * n + first_j]);
        CHECK(bad == 0);
    }
    CHECK(touched_padding == 0);
}

void sweep(const std::vector<std::size_t> &ms, const std::vector<std::size_t> &ks,
           const std::vector<std::size_t> &ns, layout pads, std::mt19937 &g) {
    for (const bool bt : {false, true})
        for (std::size_t m : ms)
            for (std::size_t k : ks)
                for (std::size_t n : ns)
                    check_product({m, k, n, pads.a_pad, pads.b_pad, pads.c_pad}, bt, g);
}

} // namespace

TEST_CASE("gemm: matches the triple loop on every size from 1 to 9", "[gemm]") {
    std::mt19937 g(1);
    const std::vector<std::size_t> small{1, 2, 3, 4, 5, 6, 7, 8, 9};
    SECTION("contiguous") {
        sweep(small, small, small, {0, 0, 0}, g);
    }
    SECTION("strided: lda > k, ldb > n, ldc > n") {
        sweep(small, small, small, {0, 0, 0, 3, 2, 5}, g);
    }
}

TEST_CASE("gemm: matches the triple loop on sizes around the tile and block edges", "[gemm]") {
    std::mt19937 g(2);
    SECTION("1, 5, 63, 64, 65, 127, 257 in every dimension") {
        const std::vector<std::size_t> sizes{1, 5, 63, 64, 65, 127, 257};
        sweep(sizes, sizes, sizes, {0, 0, 0}, g);
    }
    SECTION("rows around MC = 96, depth around KC = 256, strided") {
        sweep({95, 96, 97, 193}, {255, 256, 257, 513}, {3, 4, 5}, {0, 0, 0, 1, 7, 3}, g);
    }
    SECTION("columns around NC = 4096") {
        sweep({2, 5}, {3, 257}, {4095, 4096, 4097, 8193}, {0, 0, 0, 0, 1, 2}, g);
    }
}

TEST_CASE("gemm: real values agree with the triple loop to rounding", "[gemm]") {
    std::mt19937 g(3);
    std::normal_distribution<double> normal;
    for (const std::size_t s : {7u, 33u, 100u}) {
        const std::vector<std::size_t> dims{s, s + 3, s + 1}; // m, k, n
        CAPTURE(s);
        std::vector<double> a(dims[0] * dims[1]), b(dims[1] * dims[2]), c(dims[0] * dims[2]);
        for (double &v : a)
            v = normal(g);
        for (double &v : b)
            v = normal(g);
        gemm(dims[0], dims[1], dims[2], a.data(), dims[1], b.data(), dims[2], c.data(), dims[2]);
        const std::vector<double> want = check::naive_product(dims[0], dims[1], dims[2], a, b);
        double max_diff = 0;
        for (std::size_t i = 0; i < c.size(); ++i)
            max_diff = std::max(max_diff, std::fabs(c[i] - want[i]));
        CAPTURE(max_diff);
        CHECK(max_diff < 1e-12);
    }
}

TEST_CASE("gemm: k = 0 is the empty sum, so C becomes 0", "[gemm]") {
    for (const bool bt : {false, true})
        for (const std::size_t m : {1u, 3u, 97u})
            for (const std::size_t n : {1u, 5u, 4097u}) {
                CAPTURE(bt, m, n);
                const std::size_t ldc = n + 2;
                std::vector<double> c(m * ldc, not_a_number);
                for (std::size_t i = 0; i < m; ++i)
                    c[i * ldc + n] = c[i * ldc + n + 1] = guard;
                const double dummy = not_a_number;
                (bt ? gemm_bt : gemm)(m, 0, n, &dummy, 0, &dummy, bt ? 0 : n, c.data(), ldc);
                std::size_t nonzero = 0, touched = 0;
                for (std::size_t i = 0; i < m; ++i) {
                    for (std::size_t j = 0; j < n; ++j)
                        nonzero += c[i * ldc + j] != 0.0;
                    touched += (c[i * ldc + n] != guard) + (c[i * ldc + n + 1] != guard);
                }
                CHECK(nonzero == 0);
                CHECK(touched == 0);
            }
}

TEST_CASE("gemm: m = 0 or n = 0 writes nothing", "[gemm]") {
    std::vector<double> c(6, guard);
    const double a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
    gemm(0, 3, 2, a, 3, b, 2, c.data(), 2);
    gemm(2, 1, 0, a, 1, b, 1, c.data(), 3);
    gemm_bt(0, 3, 1, a, 3, b, 3, c.data(), 1);
    for (double v : c)
        CHECK(v == guard);
}

namespace {

// Normal values (not integers): the masked products must give the whole product's bits, whose
// rounding depends on the order of the sums, so this checks the order too.
std::vector<double> normals(std::size_t count, std::mt19937 &g) {
    std::normal_distribution<double> d;
    std::vector<double> v(count);
    for (double &x : v)
        x = d(g);
    return v;
}

bool same_bits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// Spans of the shapes the masks make, for m rows of n keys: causal [0, i + 1), padding [0, v),
// a window [i − w + 1, i + 1), a bidirectional prefix [0, max(p, i + 1)), and packed documents
// [start of i's document, i + 1) — rows of a product may need any one of them.
std::vector<std::vector<attention::key_span>> span_kinds(std::size_t m, std::size_t n) {
    const auto each = [&](auto span_of) {
        std::vector<attention::key_span> spans;
        for (std::size_t i = 0; i < m; ++i) {
            const auto [b, e] = span_of(std::min(i, n - 1));
            spans.push_back({b, std::max(b + 1, std::min(e, n))});
        }
        return spans;
    };
    const std::size_t w = std::max<std::size_t>(1, n / 3), v = std::max<std::size_t>(1, n / 2);
    return {each([&](std::size_t) {
                return std::pair{std::size_t(0), n};
            }),
            each([&](std::size_t i) {
                return std::pair{std::size_t(0), i + 1};
            }),
            each([&](std::size_t) {
                return std::pair{std::size_t(0), v};
            }),
            each([&](std::size_t i) {
                return std::pair{i + 1 > w ? i + 1 - w : 0, i + 1};
            }),
            each([&](std::size_t i) {
                return std::pair{std::size_t(0), std::max(v, i + 1)};
            }),
            each([&](std::size_t i) {
                return std::pair{i / 37 * 37, i + 1};
            }),
            each([&](std::size_t i) {
                return std::pair{i, i + 1};
            })};
}

} // namespace

TEST_CASE("gemm_bt_spans: each row's visible entries have gemm_bt's bits", "[gemm][spans]") {
    std::mt19937 g(11);
    for (const auto &[m, k, n] : {std::tuple{1, 7, 9},
                                  {2, 3, 5},
                                  {97, 64, 97},
                                  {130, 300, 130},
                                  {200, 17, 150},
                                  {300, 20, 300},
                                  {66, 5, 70}}) {
        const std::vector<double> a = normals(m * k, g), b = normals(n * k, g); // b: (N, K)
        std::vector<double> whole(m * n);
        gemm_bt(m, k, n, a.data(), k, b.data(), k, whole.data(), n);
        int kind = 0;
        for (const auto &spans : span_kinds(m, n)) {
            CAPTURE(m, k, n, kind++);
            std::vector<double> part(m * n, guard);
            attention::gemm_bt_spans(m, k, n, a.data(), k, b.data(), k, part.data(), n, spans);
            std::size_t bad = 0;
            for (std::size_t i = 0; i < std::size_t(m); ++i)
                for (std::size_t j = spans[i].begin; j < spans[i].end; ++j)
                    bad += !same_bits(part[i * n + j], whole[i * n + j]);
            CHECK(bad == 0);
        }
    }
}

TEST_CASE("gemm_spans: rows of A zero outside their spans give gemm's bits, sign of 0 included",
          "[gemm][spans]") {
    std::mt19937 g(12);
    for (const auto &[m, k, n] : {std::tuple{1, 9, 4},
                                  {1, 600, 3},
                                  {5, 5, 2},
                                  {97, 97, 64},
                                  {300, 300, 8},
                                  {130, 520, 33},
                                  {600, 600, 5},
                                  {70, 70, 5}}) {
        int kind = 0;
        for (const auto &spans : span_kinds(m, k)) {
            CAPTURE(m, k, n, kind++);
            std::vector<double> a = normals(m * k, g), b = normals(k * n, g);
            for (std::size_t i = 0; i < std::size_t(m); ++i) // weights of hidden keys: +0
                for (std::size_t p = 0; p < std::size_t(k); ++p)
                    if (p < spans[i].begin || p >= spans[i].end)
                        a[i * k + p] = 0.0;
            b[0] = -0.0; // a −0 in B must not turn a +0 sum into −0 either
            std::vector<double> whole(m * n), part(m * n, guard);
            gemm(m, k, n, a.data(), k, b.data(), n, whole.data(), n);
            attention::gemm_spans(m, k, n, a.data(), k, b.data(), n, part.data(), n, spans);
            std::size_t bad = 0;
            for (std::size_t i = 0; i < whole.size(); ++i)
                bad += !same_bits(part[i], whole[i]);
            CHECK(bad == 0);
        }
    }
}

TEST_CASE("gemm_at_spans: columns of A zero outside their spans give gemm_at's bits, empty spans 0",
          "[gemm][spans]") {
    std::mt19937 g(13);
    for (const auto &[m, k, n] : {std::tuple{1, 9, 4}, {5, 5, 2}, {97, 97, 64}, {300, 300, 8}, {130, 520, 33}}) {
        int kind = 0;
        for (auto spans : span_kinds(m, k)) {
            spans[m / 2] = {0, 0}; // a key no query sees (padding): its row of C stays 0
            CAPTURE(m, k, n, kind++);
            std::vector<double> a = normals(k * m, g), b = normals(k * n, g); // a: (k, m), as Aᵀ's A
            for (std::size_t p = 0; p < std::size_t(k); ++p)
                for (std::size_t i = 0; i < std::size_t(m); ++i)
                    if (p < spans[i].begin || p >= spans[i].end)
                        a[p * m + i] = 0.0;
            b[0] = -0.0;
            std::vector<double> whole(m * n), part(m * n, 0.0);
            attention::gemm_at(m, k, n, a.data(), m, b.data(), n, whole.data(), n);
            attention::gemm_at_spans(m, k, n, a.data(), m, b.data(), n, part.data(), n, spans);
            std::size_t bad = 0;
            for (std::size_t i = 0; i < whole.size(); ++i)
                bad += !same_bits(part[i], whole[i]);
            CHECK(bad == 0);
        }
    }
}
