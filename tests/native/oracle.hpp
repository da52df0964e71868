// Plain whole-matrix operations the tests compare the core's passes against: the textbook
// transpose, row softmax and division, kept out of the core, which never needs them whole.
#pragma once

#include "attention/ops.hpp"

namespace oracle {

using attention::matrix;

// a: (M, N) → (N, M).
inline matrix transpose(const matrix &a) {
    matrix t({attention::cols(a), attention::rows(a)});
    for (std::size_t i = 0; i < attention::rows(a); ++i)
        for (std::size_t j = 0; j < attention::cols(a); ++j)
            t(j, i) = a(i, j);
    return t;
}

// s: (M, N) → (M, N), each row exp(s − max) / Σ exp(s − max), by the core's softmax_row.
inline matrix softmax_rows(const matrix &s) {
    const std::size_t n = attention::cols(s);
    matrix w({attention::rows(s), n});
    for (std::size_t i = 0; i < attention::rows(s); ++i)
        attention::softmax_row(s.data() + i * n, n, w.data() + i * n);
    return w;
}

// x / divisor for every entry, by the core's divide_row. s: (M, N) → (M, N).
inline matrix divided(const matrix &s, double divisor) {
    matrix out({attention::rows(s), attention::cols(s)});
    for (std::size_t i = 0; i < attention::rows(s); ++i)
        attention::divide_row(&s(i, 0), attention::cols(s), divisor, &out(i, 0));
    return out;
}

} // namespace oracle
