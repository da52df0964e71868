// Test helpers: matrices written inline, and llm.c's check_tensor for float64 matrices
// (a failure names the tensor, both shapes, the max difference and the first bad cell).
#pragma once

#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/matrix.hpp"

namespace check {

using attention::matrix;

constexpr double inf = std::numeric_limits<double>::infinity();

// A matrix from its rows, e.g. m({{1, 2}, {3, 4}}). All rows must have one length.
inline matrix m(std::initializer_list<std::initializer_list<double>> rows) {
    const std::size_t r = rows.size(), c = r ? rows.begin()->size() : 0;
    matrix out({r, c});
    std::size_t i = 0;
    for (const auto &row : rows) {
        REQUIRE(row.size() == c);
        std::size_t j = 0;
        for (double v : row)
            out(i, j++) = v;
        ++i;
    }
    return out;
}

inline std::string shape(const matrix &a) {
    return "(" + std::to_string(attention::rows(a)) + ", " + std::to_string(attention::cols(a)) +
           ")";
}

// |a − b|, where equal infinities differ by 0 and NaN differs from everything by ∞.
inline double difference(double a, double b) {
    if (a == b)
        return 0.0;
    if (std::isnan(a) || std::isnan(b))
        return inf;
    return std::fabs(a - b);
}

struct comparison {
    double max_diff = 0.0;
    std::size_t bad = 0;                                             // cells off by more than tol
    std::size_t first_bad = std::numeric_limits<std::size_t>::max(); // flat index
};

inline comparison compare(const matrix &got, const matrix &want, double tol) {
    comparison c;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double d = difference(got.flat(i), want.flat(i));
        c.max_diff = std::max(c.max_diff, d);
        if (d > tol) {
            if (c.bad++ == 0)
                c.first_bad = i;
        }
    }
    return c;
}

// Checks got against want cell by cell within tol (0: bit for bit, −∞ matching −∞).
inline void tensor(const std::string &name, const matrix &got, const matrix &want, double tol) {
    INFO(name << ": got shape " << shape(got) << ", want " << shape(want));
    REQUIRE(got.shape() == want.shape());
    const comparison c = compare(got, want, tol);
    std::ostringstream where;
    if (c.bad) {
        const std::size_t n = attention::cols(got), i = c.first_bad / n, j = c.first_bad % n;
        where << c.bad << " of " << got.size() << " cells off by more than " << tol
              << "; first bad (" << i << ", " << j << "): ";
        where.precision(17);
        where << "got " << got(i, j) << ", want " << want(i, j);
    }
    INFO(name << ": max |diff| " << c.max_diff << (c.bad ? "; " : "") << where.str());
    CHECK(c.bad == 0);
}

// C = A · B by the textbook triple loop: the reference for the blocked gemm.
inline std::vector<double> naive_product(std::size_t m, std::size_t k, std::size_t n,
                                         const std::vector<double> &a,
                                         const std::vector<double> &b) {
    std::vector<double> c(m * n, 0.0);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            double s = 0.0;
            for (std::size_t p = 0; p < k; ++p)
                s += a[i * k + p] * b[p * n + j];
            c[i * n + j] = s;
        }
    return c;
}

} // namespace check
