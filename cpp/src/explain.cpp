#include "attention/explain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace attention {

namespace {

const stage &find_stage(const trace &t, const std::string &id, int head) {
    for (const stage &s : t.stages)
        if (s.id == id && s.head == head)
            return s;
    throw std::invalid_argument("stage: no stage \"" + id.substr(0, 40) + "\" for head " +
                                std::to_string(head) + " in this trace");
}

const matrix &find_operand(const stage &s, const std::string &name) {
    for (const operand &o : s.operands)
        if (o.name == name)
            return o.values;
    throw std::logic_error("stage " + s.id + " records no operand " + name);
}

// Row `row` of a against column `col` of b, or row `col` of b when b_rows_are_cols.
void dot_terms(cell_explanation &e, const matrix &a, const matrix &b, std::size_t row,
               std::size_t col, bool b_rows_are_cols) {
    for (std::size_t p = 0; p < cols(a); ++p) {
        const double bv = b_rows_are_cols ? b(col, p) : b(p, col);
        e.terms.push_back({a(row, p), bv, a(row, p) * bv});
        e.sum += a(row, p) * bv;
    }
}

softmax_parts softmax_of_row(const matrix &logits, std::size_t row) {
    softmax_parts s{{}, -std::numeric_limits<double>::infinity(), {}, 0.0};
    for (std::size_t j = 0; j < cols(logits); ++j) {
        s.logits.push_back(logits(row, j));
        s.max = std::max(s.max, logits(row, j));
    }
    for (double l : s.logits) {
        s.exps.push_back(std::exp(l - s.max));
        s.exp_sum += s.exps.back();
    }
    return s;
}

const char *weight_name(const std::string &id) {
    return id == "q" ? "W_Q" : id == "k" ? "W_K" : "W_V";
}

} // namespace

cell_explanation explain_cell(const trace &t, const std::string &stage_id, int head,
                              std::size_t row, std::size_t col) {
    const stage &s = find_stage(t, stage_id, head);
    if (row >= rows(s.values) || col >= cols(s.values))
        throw std::invalid_argument("cell: (" + std::to_string(row) + ", " + std::to_string(col) +
                                    ") is outside " + stage_id + "'s shape (" +
                                    std::to_string(rows(s.values)) + ", " +
                                    std::to_string(cols(s.values)) + ")");
    cell_explanation e;
    e.value = s.values(row, col);
    const std::string &id = s.id;
    if (id == "q" || id == "k" || id == "v") {
        dot_terms(e, find_operand(s, "X"), find_operand(s, weight_name(id)), row, col, false);
    } else if (id == "scores" || id == "scaled") {
        const stage &scores = find_stage(t, "scores", head);
        dot_terms(e, find_operand(scores, "Q"), find_operand(scores, "K"), row, col, true);
        if (id == "scaled")
            e.divisor = t.config.scale_scores ? std::sqrt(double(t.config.d_k)) : 1.0;
    } else if (id == "masked" || id == "weights") {
        e.masked = t.config.causal && col > row;
        if (id == "weights")
            e.softmax = softmax_of_row(s.operands.at(0).values, row);
    } else if (id == "head") {
        dot_terms(e, find_operand(s, "weights"), find_operand(s, "V"), row, col, false);
    } else if (id == "concat") {
        e.source_head = int(col / t.config.d_v);
        e.source_col = col % t.config.d_v;
    } else if (id == "output") {
        dot_terms(e, find_operand(s, "concat"), find_operand(s, "W_O"), row, col, false);
    }
    return e;
}

} // namespace attention
