#include "attention/ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "attention/gemm.hpp"

namespace attention {

namespace {

std::string shape_text(const matrix &m) {
    return "(" + std::to_string(rows(m)) + ", " + std::to_string(cols(m)) + ")";
}

void require(bool ok, const std::string &what, const matrix &a, const matrix &b) {
    if (!ok)
        throw std::invalid_argument(what + ": shapes " + shape_text(a) + " and " + shape_text(b) +
                                    " do not fit");
}

} // namespace

matrix matmul(const matrix &a, const matrix &b) {
    require(cols(a) == rows(b), "matmul", a, b);
    matrix c({rows(a), cols(b)});
    gemm(rows(a), cols(a), cols(b), a.data(), cols(a), b.data(), cols(b), c.data(), cols(b));
    return c;
}

matrix matmul_bt(const matrix &a, const matrix &b) {
    require(cols(a) == cols(b), "matmul_bt", a, b);
    matrix c({rows(a), rows(b)});
    gemm_bt(rows(a), cols(a), rows(b), a.data(), cols(a), b.data(), cols(b), c.data(), rows(b));
    return c;
}

matrix matmul_at(const matrix &a, const matrix &b) {
    require(rows(a) == rows(b), "matmul_at", a, b);
    matrix c({cols(a), cols(b)});
    gemm_at(cols(a), rows(a), cols(b), a.data(), cols(a), b.data(), cols(b), c.data(), cols(b));
    return c;
}

void softmax_row(const double *in, std::size_t n, double *out) {
    const double hidden = -std::numeric_limits<double>::infinity();
    // Subtracting the row max leaves softmax unchanged (it cancels in the ratio)
    // and keeps every exponent ≤ 0, so exp never overflows, even for 1e300 logits.
    double max = hidden;
    for (std::size_t j = 0; j < n; ++j)
        max = std::max(max, in[j]);
    // A masked logit (−∞) below a finite max is exp(−∞) = +0 without calling exp.
    const bool skip_hidden = max != hidden;
    double sum = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
        out[j] = skip_hidden && in[j] == hidden ? 0.0 : std::exp(in[j] - max);
        sum += out[j];
    }
    for (std::size_t j = 0; j < n; ++j)
        out[j] /= sum;
}

double softmax_span_sink(const double *in, double *out, std::size_t n, key_span span,
                         double zeta) {
    double max = zeta;
    for (std::size_t j = span.begin; j < span.end; ++j)
        max = std::max(max, in[j]);
    const double sink = std::exp(zeta - max);
    double sum = sink;
    for (std::size_t j = span.begin; j < span.end; ++j) {
        out[j] = std::exp(in[j] - max);
        sum += out[j];
    }
    for (std::size_t j = span.begin; j < span.end; ++j)
        out[j] /= sum;
    std::fill(out, out + span.begin, 0.0); // hidden keys: exp(−∞) / sum
    std::fill(out + span.end, out + n, 0.0);
    return sink / sum;
}

namespace {

// Whether x / divisor can be computed as x · (1 / divisor) with the same bits: a power of two
// (√64 = 8 for d_k = 64), whose reciprocal is exact and whose quotients round the same way.
bool exact_reciprocal(double divisor) {
    int exponent = 0;
    return std::frexp(divisor, &exponent) == 0.5;
}

} // namespace

void softmax_span(const double *in, double *out, std::size_t n, key_span span) {
    softmax_row(in + span.begin, span.end - span.begin, out + span.begin);
    std::fill(out, out + span.begin, 0.0); // exp(−∞) / sum
    std::fill(out + span.end, out + n, 0.0);
}

void soft_cap_row(const double *row, std::size_t n, double kappa, double *out) {
    for (std::size_t j = 0; j < n; ++j)
        out[j] = kappa * std::tanh(row[j] / kappa);
}

void divide_row(const double *row, std::size_t n, double divisor, double *out) {
    if (exact_reciprocal(divisor)) {
        const double reciprocal = 1.0 / divisor;
        for (std::size_t j = 0; j < n; ++j)
            out[j] = row[j] * reciprocal;
    } else {
        for (std::size_t j = 0; j < n; ++j)
            out[j] = row[j] / divisor;
    }
}

matrix layer_norm(const matrix &x, const vector &gamma, const vector &beta, double eps) {
    const std::size_t d = cols(x);
    if (gamma.size() != d || beta.size() != d)
        throw std::invalid_argument("layer_norm: gamma and beta need " + std::to_string(d) +
                                    " values, one per feature of x " + shape_text(x));
    matrix y({rows(x), d});
    for (std::size_t i = 0; i < rows(x); ++i) {
        double mean = 0.0, var = 0.0;
        for (std::size_t j = 0; j < d; ++j)
            mean += x(i, j);
        mean /= static_cast<double>(d);
        for (std::size_t j = 0; j < d; ++j)
            var += (x(i, j) - mean) * (x(i, j) - mean);
        const double std_dev = std::sqrt(var / static_cast<double>(d));
        for (std::size_t j = 0; j < d; ++j)
            y(i, j) = gamma(j) * (x(i, j) - mean) / (std_dev + eps) + beta(j);
    }
    return y;
}

matrix relu(const matrix &x) {
    matrix y = x;
    for (double &v : y)
        v = std::max(0.0, v);
    return y;
}

double relative_change(const matrix &changed, const matrix &original) {
    require(changed.shape() == original.shape(), "relative_change", changed, original);
    double diff = 0.0, norm = 0.0;
    for (std::size_t i = 0; i < original.size(); ++i) {
        const double d = changed.data()[i] - original.data()[i];
        diff += d * d;
        norm += original.data()[i] * original.data()[i];
    }
    if (norm == 0) // an all-zero original: no change is 0, any change is infinitely large
        return diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    return std::sqrt(diff / norm);
}

matrix columns_of(const matrix &m, std::size_t first, std::size_t n) {
    matrix out({rows(m), n});
    for (std::size_t r = 0; r < rows(m); ++r)
        std::copy_n(&m(r, first), n, &out(r, 0));
    return out;
}

matrix concat_columns(const std::vector<matrix> &parts) {
    if (parts.empty())
        throw std::invalid_argument("concat_columns: no matrices to join");
    std::size_t width = 0;
    for (const matrix &p : parts) {
        require(rows(p) == rows(parts[0]), "concat_columns", parts[0], p);
        width += cols(p);
    }
    matrix c({rows(parts[0]), width});
    std::size_t offset = 0;
    for (const matrix &p : parts) {
        for (std::size_t i = 0; i < rows(p); ++i)
            std::copy_n(&p(i, 0), cols(p), &c(i, offset));
        offset += cols(p);
    }
    return c;
}

} // namespace attention
