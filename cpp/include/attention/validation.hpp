// Checks on caller input that throw std::invalid_argument naming the field,
// the value and the rule, e.g. "seqLen: 0 is out of range [1, 1024]".
#pragma once

#include <cstddef>
#include <string>

#include "attention/matrix.hpp"

namespace attention {

// Throws std::invalid_argument("field: rule").
[[noreturn]] void reject(const std::string &field, const std::string &rule);

// A double as JavaScript would print it: 2.5, 1e+21, NaN, -Infinity.
std::string js_number(double v);

// v as a whole number in [lo, hi].
std::size_t whole_number(const std::string &field, double v, std::size_t lo, std::size_t hi);

// A rectangular matrix of finite entries within ±limits::max_abs_value,
// with at most max_rows rows and max_cols columns. Returns it as a matrix.
matrix checked_matrix(const std::string &field, const row_list &m, std::size_t max_rows,
                      std::size_t max_cols);

// m has exactly r rows and c columns; the message says which dimension fails and why.
void require_shape(const std::string &field, const matrix &m, std::size_t r, std::size_t c,
                   const std::string &why);

} // namespace attention
