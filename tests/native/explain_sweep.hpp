// explain_cell over every cell of every stage of every preset and of a sweep of every kind
// (decode steps and tiles included): the shared walk of test_explain.cpp and
// test_explain_tiles.cpp, and the checks both make of a dot product's terms.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/spec_reader.hpp"
#include "attention/engine.hpp"
#include "attention/explain.hpp"
#include "attention/ops.hpp"
#include "attention/presets.hpp"
#include "check.hpp"
#include "specs.hpp"

namespace sweep {

using namespace attention;

// Every preset's trace, then every kind's and every stepped kind's, built once.
inline const std::vector<trace> &traces() {
    static const std::vector<trace> all = [] {
        std::vector<trace> out;
        for (const preset_info &p : presets())
            out.push_back(run_traced(problem_of_preset(p.id, true)));
        for (const generated_spec &s : specs::every_kind())
            out.push_back(run_traced(make_problem(s)));
        for (const generated_spec &s : specs::stepped_kinds())
            out.push_back(run_traced(make_problem(s)));
        return out;
    }();
    return all;
}

using cell_check = std::function<void(const trace &, const stage &, std::size_t, std::size_t,
                                      const cell_explanation &)>;

// Explains every cell of every stage whose rule is one of `rules` (found by its id, head and
// step), checks that the explanation holds the cell's value, then runs `check` on it. Returns
// the number of cells explained.
inline std::size_t for_each_cell(std::initializer_list<cell_rule> rules, const cell_check &check) {
    std::size_t cells = 0;
    for (const trace &t : traces())
        for (const stage &s : t.stages) {
            if (std::find(rules.begin(), rules.end(), entry(s.id).cell) == rules.end())
                continue;
            for (std::size_t i = 0; i < rows(s.values); ++i)
                for (std::size_t j = 0; j < cols(s.values); ++j) {
                    INFO(check::describe(t.config) << ": " << check::label(s.id, s.head, s.step)
                                                   << " (" << i << ", " << j << ")");
                    const cell_explanation e = explain_cell(t, s.id, s.head, i, j, s.step);
                    REQUIRE(e.value == s.values(i, j)); // −∞ == −∞ too
                    check(t, s, i, j, e);
                    ++cells;
                }
        }
    return cells;
}

inline const matrix &op(const stage &s, std::size_t i) {
    return s.operands.at(i).values;
}

// The operands a dot's terms pair up, a then b: op0 and op1, and in MLA's scores op2 and op3 after
// them (q_rope · k_ropeᵀ, one sum with q · kᵀ).
inline bool two_terms(const stage &s) {
    return s.id == stage_id::scores && s.operands.size() > 2 && s.operands[2].name == "q_rope";
}
inline matrix left_of(const stage &s) {
    return two_terms(s) ? concat_columns({op(s, 0), op(s, 2)}) : op(s, 0);
}
inline matrix right_of(const stage &s) {
    return two_terms(s) ? concat_columns({op(s, 1), op(s, 3)}) : op(s, 1);
}

// Σ terms in order is e.sum, and every term is a · b with a from op0's row.
inline void check_terms(const cell_explanation &e, const matrix &left, std::size_t row) {
    REQUIRE(e.terms.size() == cols(left));
    double sum = 0;
    for (std::size_t p = 0; p < e.terms.size(); ++p) {
        CHECK(e.terms[p].a == left(row, p));
        CHECK(e.terms[p].a * e.terms[p].b == e.terms[p].product);
        sum += e.terms[p].product;
    }
    CHECK(sum == e.sum);
}

inline bool near(double got, double want) {
    return std::fabs(got - want) <= 1e-12 * std::max(1.0, std::fabs(want));
}

} // namespace sweep
