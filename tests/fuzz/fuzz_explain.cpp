// check_explanations: explain_cell on cells the input picks, and each explanation's parts put
// back together by its stage's cell rule.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "attention/explain.hpp"
#include "attention/validation.hpp"
#include "fuzz_checks.hpp"

namespace fuzz {

using namespace attention;

namespace {

// a ≈ b within tolerance · magnitude (magnitude: the size of what was summed).
void near(double a, double b, double magnitude, const std::string &what) {
    if (a == b)
        return;
    if (!(std::fabs(a - b) <= 1e-10 * magnitude + 1e-300))
        finding(what + ": parts give " + js_number(a) + ", the cell holds " + js_number(b));
}

double magnitude_of(const cell_explanation &e) {
    double m = std::fabs(e.bias.value_or(0.0));
    for (const product_term &p : e.terms)
        m += std::fabs(p.product);
    return m;
}

void check_products(const cell_explanation &e, const std::string &what) {
    for (const product_term &p : e.terms)
        if (p.a * p.b != p.product)
            finding(what + ": a term's product is not a · b");
}

// The head stage a concat column copies, at the same step.
void check_copy(const trace &t, const stage &s, const cell_explanation &e, std::size_t row,
                const std::string &what) {
    for (const stage &h : t.stages)
        if (h.id == stage_id::head && h.head == e.source_head && h.step == s.step) {
            if (h.values(row, e.source_col) != e.value)
                finding(what + ": the concat cell differs from its head's");
            return;
        }
    finding(what + ": no head " + std::to_string(e.source_head) + " to copy from");
}

void check_rule(const trace &t, const stage &s, const cell_explanation &e, std::size_t row,
                std::size_t col, const std::string &what) {
    check_products(e, what);
    const double v = e.value;
    const cell_rule rule = entry(s.id).cell;
    const auto is = [&](std::initializer_list<cell_rule> any) {
        return std::find(any.begin(), any.end(), rule) != any.end();
    };
    if (is({rules::dot, rules::dot_rows, rules::affine}))
        return near(e.sum + e.bias.value_or(0.0), v, magnitude_of(e), what);
    if (is({rules::scaled_dot, rules::scaled_dot_rows})) {
        if (e.masked)
            return v == -std::numeric_limits<double>::infinity()
                       ? void()
                       : finding(what + ": a masked logit is not -Infinity");
        return near(e.sum / e.divisor, v, magnitude_of(e) / e.divisor, what);
    }
    if (is({rules::mask}))
        return near(*e.input + *e.mask, v, 0, what);
    if (is({rules::softmax}))
        return e.masked ? near(0, v, 0, what)
                        : near(e.softmax->exps[col] / e.softmax->exp_sum, v, 1, what);
    if (is({rules::copy_column}))
        return check_copy(t, s, e, row, what);
    if (is({rules::sum})) { // a residual's two parts, or dX's parts: one a projection and head
        double total = 0, size = 1;
        for (const double part : e.addends)
            total += part, size += std::fabs(part);
        return near(total, v, size, what);
    }
    if (is({rules::norm}))
        return near((*e.input - e.norm->mean) / (e.norm->std_dev + e.norm->eps), v,
                    (std::fabs(*e.input) + std::fabs(e.norm->mean) + 1) / (e.norm->std_dev + 1e-6),
                    what);
    if (is({rules::relu}))
        return near(std::max(0.0, *e.input), v, 0, what);
    if (is({rules::gate}))
        return near(*e.input * *e.gate, v, 0, what);
    if (is({rules::divide_rows}))
        return near(*e.input / e.divisor, v, std::fabs(v), what);
    if (is({rules::running_max}))
        return near(std::max(e.previous, *e.row_max), v, 0, what);
    if (is({rules::running_sum, rules::running_out}))
        return near(e.alpha * e.previous + e.sum, v,
                    std::fabs(e.alpha * e.previous) + std::fabs(e.sum) + magnitude_of(e), what);
}

} // namespace

void check_explanations(byte_reader &in, const trace &t) {
    const int cells = 1 + in.byte() % 4;
    for (int n = 0; n < cells; ++n) {
        const stage &s = t.stages[in.byte() % t.stages.size()];
        // Sometimes a head or step the stage does not have, or a cell just outside its shape.
        const std::uint8_t twist = in.byte();
        const int head = s.head + (twist % 16 == 1), step = s.step - (twist % 16 == 2);
        const std::size_t row = in.byte() % (rows(s.values) + 1),
                          col = in.byte() % (cols(s.values) + 1);
        const std::string what = std::string("explain ") + name_of(s.id) + " head " +
                                 std::to_string(head) + " step " + std::to_string(step) + " (" +
                                 std::to_string(row) + ", " + std::to_string(col) + ")";
        cell_explanation e;
        try {
            e = explain_cell(t, s.id, head, row, col, step);
        } catch (const std::invalid_argument &refused) {
            check_refusal(refused.what());
            continue;
        }
        const bool same = head == s.head && step == s.step;
        const bool outside = row >= rows(s.values) || col >= cols(s.values);
        if (same && outside)
            finding(what + ": explained a cell outside the stage's shape");
        if (!same || outside)
            continue; // another stage of the same id answered: its own checks cover it
        if (e.value != s.values(row, col))
            finding(what + ": explained " + js_number(e.value) + " but the stage holds " +
                    js_number(s.values(row, col)));
        check_rule(t, s, e, row, col, what);
    }
}

} // namespace fuzz
