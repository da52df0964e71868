#include "attention/validation.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "attention/config.hpp"

namespace attention {

namespace {

std::string dims_text(std::size_t r, std::size_t c) {
    return "(" + std::to_string(r) + ", " + std::to_string(c) + ")";
}

} // namespace

std::string js_number(double v) {
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "Infinity" : "-Infinity";
    if (v == 0)
        return "0";
    char text[32];
    for (int precision = 1; precision <= 17; ++precision) { // the fewest digits that read back as v
        std::snprintf(text, sizeof text, "%.*e", precision - 1, v);
        if (std::strtod(text, nullptr) == v)
            break;
    }
    // text is "[-]d.ddde±XX": take the digits and the exponent apart, then lay them out
    // as JavaScript does: plain digits for 1e-6 ≤ |v| < 1e21, else d.ddde±X.
    const std::string all(text);
    const std::string sign = v < 0 ? "-" : "";
    const std::size_t e_at = all.find('e');
    std::string digits;
    for (char ch : all.substr(0, e_at))
        if (std::isdigit(static_cast<unsigned char>(ch)))
            digits += ch;
    const int exponent = std::atoi(all.c_str() + e_at + 1);
    const int n = int(digits.size());
    if (exponent >= 21 || exponent < -6) {
        const std::string mantissa = n == 1 ? digits : digits.substr(0, 1) + "." + digits.substr(1);
        return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") +
               std::to_string(std::abs(exponent));
    }
    if (exponent < 0)
        return sign + "0." + std::string(std::size_t(-exponent - 1), '0') + digits;
    if (exponent + 1 >= n)
        return sign + digits + std::string(std::size_t(exponent + 1 - n), '0');
    return sign + digits.substr(0, std::size_t(exponent + 1)) + "." +
           digits.substr(std::size_t(exponent + 1));
}

std::size_t whole_number(const std::string &field, double v, std::size_t lo, std::size_t hi) {
    if (!std::isfinite(v))
        reject(field, js_number(v) + " is not a finite number");
    if (v != std::floor(v))
        reject(field, js_number(v) + " is not a whole number");
    if (v < double(lo) || v > double(hi))
        reject(field, js_number(v) + " is out of range [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "]");
    return static_cast<std::size_t>(v);
}

matrix checked_matrix(const std::string &field, const row_list &m, std::size_t max_rows,
                      std::size_t max_cols) {
    if (m.empty() || m[0].empty())
        reject(field, "needs at least one row and one column");
    if (m.size() > max_rows)
        reject(field,
               std::to_string(m.size()) + " rows, more than the limit " + std::to_string(max_rows));
    if (m[0].size() > max_cols)
        reject(field, std::to_string(m[0].size()) + " columns, more than the limit " +
                          std::to_string(max_cols));
    matrix out({m.size(), m[0].size()});
    for (std::size_t i = 0; i < m.size(); ++i) {
        if (m[i].size() != m[0].size())
            reject(field, "row " + std::to_string(i) + " has " + std::to_string(m[i].size()) +
                              " values but row 0 has " + std::to_string(m[0].size()) +
                              " (rows must all have the same length)");
        for (std::size_t j = 0; j < m[i].size(); ++j) {
            const double v = m[i][j];
            if (!std::isfinite(v) || std::fabs(v) > limits::max_abs_value) // named only then
                reject(field + "[" + std::to_string(i) + "][" + std::to_string(j) + "]",
                       js_number(v) + (std::isfinite(v) ? " is outside [-1e6, 1e6]"
                                                        : " is not a finite number"));
            out(i, j) = v;
        }
    }
    return out;
}

void require_shape(const std::string &field, const matrix &m, std::size_t r, std::size_t c,
                   const std::string &why) {
    if (rows(m) != r || cols(m) != c)
        reject(field, "shape " + dims_text(rows(m), cols(m)) + " should be " + dims_text(r, c) +
                          " " + why);
}

void reject(const std::string &field, const std::string &rule) {
    throw std::invalid_argument(field + ": " + rule);
}

} // namespace attention
