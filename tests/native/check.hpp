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

#include "attention/fields.hpp"
#include "attention/matrix.hpp"
#include "attention/trace.hpp"

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

// A · B by the textbook triple loop, as a matrix: an independent reference for the passes.
inline matrix naive_matmul(const matrix &a, const matrix &b) {
    REQUIRE(attention::cols(a) == attention::rows(b));
    matrix c({attention::rows(a), attention::cols(b)});
    for (std::size_t i = 0; i < attention::rows(a); ++i)
        for (std::size_t j = 0; j < attention::cols(b); ++j) {
            double s = 0.0;
            for (std::size_t p = 0; p < attention::cols(a); ++p)
                s += a(i, p) * b(p, j);
            c(i, j) = s;
        }
    return c;
}

// "scores/2" for a head's stage, "output" for a shared one; "@3" adds a decode step or tile.
inline std::string label(attention::stage_id id, int head, int step = attention::no_step) {
    const std::string name = attention::name_of(id);
    const std::string at = step == attention::no_step ? "" : "@" + std::to_string(step);
    return (head == attention::no_head ? name : name + "/" + std::to_string(head)) + at;
}

// The stage with this id, head and step; fails the test when the trace has none.
inline const attention::stage &stage_of(const attention::trace &t, attention::stage_id id,
                                        int head = attention::no_head,
                                        int step = attention::no_step) {
    for (const attention::stage &s : t.stages)
        if (s.id == id && s.head == head && s.step == step)
            return s;
    FAIL("no stage " << label(id, head, step));
    throw;
}

// The operand of s with this name and head; fails the test when s has none.
inline const matrix &operand_of(const attention::stage &s, const std::string &name, int head) {
    for (const attention::operand &o : s.operands)
        if (o.name == name && o.head == head)
            return o.values;
    FAIL("stage " << label(s.id, s.head) << " has no operand " << name << "/" << head);
    throw;
}

// The trace's stages as "id/head@step" labels, in order.
inline std::vector<std::string> labels(const attention::trace &t) {
    std::vector<std::string> out;
    for (const attention::stage &s : t.stages)
        out.push_back(label(s.id, s.head, s.step));
    return out;
}

// A config in one line, for INFO.
inline std::string describe(const attention::attention_config &c) {
    std::ostringstream o;
    o << attention::kind_name(c.kind) << ", T " << c.seq_len << ", T_kv " << c.kv_len << ", D " << c.d_model
      << ", H " << c.num_heads << ", H_kv " << c.num_kv_heads << ", DK " << c.d_k << ", DV "
      << c.d_v << ", DFF " << c.d_ff << (c.causal ? ", causal" : "")
      << (c.valid_keys ? ", validKeys " + std::to_string(*c.valid_keys) : "")
      << (c.output_projection ? ", W_O" : "") << (c.scale_scores ? "" : ", unscaled");
    if (c.weight_scale != 0.1 && c.kind != attention::problem_kind::designed)
        o << ", weightScale " << c.weight_scale;
    for (std::size_t h : c.pruned_heads)
        o << (h == c.pruned_heads.front() ? ", pruned " : " ") << h;
    if (c.kind == attention::problem_kind::flash)
        o << ", B_r " << c.block_rows << ", B_c " << c.block_cols;
    return o.str();
}

} // namespace check
