#include "attention/explain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "attention/mask.hpp"
#include "attention/qk_norm.hpp"

namespace attention {

namespace {

const stage &find_stage(const trace &t, stage_id id, int head, int step) {
    for (const stage &s : t.stages)
        if (s.id == id && s.head == head && s.step == step)
            return s;
    const std::string at = step == no_step ? "" : " at step " + std::to_string(step);
    throw std::invalid_argument(std::string("stage: no stage \"") + name_of(id) + "\" for head " +
                                std::to_string(head) + at + " in this trace");
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

// The row's softmax taken apart; with a sink logit ζ, ζ joins the max and exp(ζ − max) the sum
// first, as the pass adds it (ops.hpp softmax_span_sink).
softmax_parts softmax_of_row(const matrix &logits, std::size_t row,
                             std::optional<double> zeta = std::nullopt) {
    softmax_parts s{{}, zeta.value_or(-std::numeric_limits<double>::infinity()), {}, 0.0, zeta, {}};
    for (std::size_t j = 0; j < cols(logits); ++j) {
        s.logits.push_back(logits(row, j));
        s.max = std::max(s.max, logits(row, j));
    }
    if (zeta) {
        s.sink = std::exp(*zeta - s.max);
        s.exp_sum = *s.sink;
    }
    for (double l : s.logits) {
        s.exps.push_back(std::exp(l - s.max));
        s.exp_sum += s.exps.back();
    }
    return s;
}

norm_parts norm_of_row(const matrix &x, std::size_t row) {
    norm_parts n{0.0, 0.0, 1e-6, {}};
    for (std::size_t j = 0; j < cols(x); ++j) {
        n.row.push_back(x(row, j));
        n.mean += x(row, j);
    }
    n.mean /= double(cols(x));
    double var = 0.0;
    for (double v : n.row)
        var += (v - n.mean) * (v - n.mean);
    n.std_dev = std::sqrt(var / double(cols(x)));
    return n;
}

constexpr double hidden = -std::numeric_limits<double>::infinity();

const matrix &arg(const stage &s, std::size_t i) {
    return s.operands.at(i).values;
}

// Whether the scores hold MLA's second term: their third operand is q_rope.
bool has_rope_part(const stage &scores) {
    return scores.operands.size() > 2 && scores.operands[2].name == name_of(stage_id::q_rope);
}

} // namespace

namespace rules {

void none(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t) {}

void dot(cell_explanation &e, const trace &, const stage &s, std::size_t row, std::size_t col) {
    dot_terms(e, arg(s, 0), arg(s, 1), row, col, false);
}

void dot_rows(cell_explanation &e, const trace &, const stage &s, std::size_t row,
              std::size_t col) {
    dot_terms(e, arg(s, 0), arg(s, 1), row, col, true);
    if (s.id == stage_id::scores && has_rope_part(s)) // MLA: q_rope · k_ropeᵀ in the same sum
        dot_terms(e, arg(s, 2), arg(s, 3), row, col, true);
}

void scaled_dot(cell_explanation &e, const trace &t, const stage &s, std::size_t row,
                std::size_t col) {
    dot_rows(e, t, find_stage(t, stage_id::scores, s.head, s.step), row, col);
    e.divisor = score_divisor(t.config);
}

void soft_cap(cell_explanation &e, const trace &, const stage &s, std::size_t row,
              std::size_t col) {
    e.input = arg(s, 0)(row, col);
    e.cap = arg(s, 1)(0, 0);
}

void mask(cell_explanation &e, const trace &, const stage &s, std::size_t row, std::size_t col) {
    e.input = arg(s, 0)(row, col);
    e.mask = arg(s, 1)(row, col);
    e.masked = *e.mask == hidden;
}

// The sink logit of query head `head` when the config gives sinks; else none.
std::optional<double> sink_logit(const trace &t, int head) {
    if (t.config.sinks.empty() || head == no_head)
        return std::nullopt;
    return t.config.sinks[std::size_t(head)];
}

void softmax(cell_explanation &e, const trace &t, const stage &s, std::size_t row, std::size_t col) {
    e.softmax = softmax_of_row(arg(s, 0), row, s.id == stage_id::weights ? sink_logit(t, s.head) : std::nullopt);
    e.masked = arg(s, 0)(row, col) == hidden;
}

void sink_share(cell_explanation &e, const trace &, const stage &s, std::size_t row, std::size_t) {
    e.softmax = softmax_of_row(arg(s, 0), row, arg(s, 1)(0, 0));
}

void copy_column(cell_explanation &e, const trace &t, const stage &, std::size_t, std::size_t col) {
    e.source_head = int(col / t.config.d_v);
    e.source_col = col % t.config.d_v;
}

void sum(cell_explanation &e, const trace &, const stage &s, std::size_t row, std::size_t col) {
    for (const operand &o : s.operands)
        e.addends.push_back(o.values(row, col));
}

void norm(cell_explanation &e, const trace &, const stage &s, std::size_t row, std::size_t col) {
    e.input = arg(s, 0)(row, col);
    e.norm = norm_of_row(arg(s, 0), row);
}

void rms_norm(cell_explanation &e, const trace &, const stage &s, std::size_t row,
              std::size_t col) {
    const matrix &x = arg(s, 0); // (P, DK)
    e.input = x(row, col);
    rms_parts r{0.0, qk_norm_eps, arg(s, 1)(0, col), {}};
    for (std::size_t a = 0; a < cols(x); ++a) {
        r.row.push_back(x(row, a));
        r.mean_square += x(row, a) * x(row, a);
    }
    r.mean_square /= double(cols(x));
    e.rms = std::move(r);
}

void affine(cell_explanation &e, const trace &, const stage &s, std::size_t row, std::size_t col) {
    dot_terms(e, arg(s, 0), arg(s, 1), row, col, false);
    e.bias = arg(s, 2)(0, col);
}

void relu(cell_explanation &e, const trace &, const stage &s, std::size_t row, std::size_t col) {
    e.input = arg(s, 0)(row, col);
}

void scaled_dot_rows(cell_explanation &e, const trace &t, const stage &s, std::size_t row,
                     std::size_t col) {
    dot_terms(e, arg(s, 0), arg(s, 1), row, col, true);
    e.divisor = score_divisor(t.config);
    e.masked = s.values(row, col) == hidden;
}

void running_max(cell_explanation &e, const trace &, const stage &s, std::size_t row, std::size_t) {
    e.previous = arg(s, 0)(row, 0);
    e.row_max = hidden;
    for (std::size_t j = 0; j < cols(arg(s, 1)); ++j)
        e.row_max = std::max(*e.row_max, arg(s, 1)(row, j));
}

void running_sum(cell_explanation &e, const trace &, const stage &s, std::size_t row, std::size_t) {
    e.previous = arg(s, 0)(row, 0);
    e.alpha = arg(s, 1)(row, 0);
    for (std::size_t j = 0; j < cols(arg(s, 2)); ++j) {
        e.row.push_back(arg(s, 2)(row, j));
        e.sum += e.row.back();
    }
}

void running_out(cell_explanation &e, const trace &, const stage &s, std::size_t row,
                 std::size_t col) {
    e.previous = arg(s, 0)(row, col);
    e.alpha = arg(s, 1)(row, 0);
    dot_terms(e, arg(s, 2), arg(s, 3), row, col, false);
}

void gate(cell_explanation &e, const trace &, const stage &s, std::size_t row, std::size_t col) {
    e.input = arg(s, 0)(row, col);
    e.gate = arg(s, 1)(0, col);
}

void divide_rows(cell_explanation &e, const trace &, const stage &s, std::size_t row,
                 std::size_t col) {
    e.input = arg(s, 0)(row, col);
    e.divisor = arg(s, 1)(row, 0);
}

void dot_cols(cell_explanation &e, const trace &, const stage &s, std::size_t row,
              std::size_t col) {
    const matrix at = xt::transpose(arg(s, 0)); // column `row` of op0 as a row
    dot_terms(e, at, arg(s, 1), row, col, false);
}

void group_dot_cols(cell_explanation &e, const trace &, const stage &s, std::size_t row,
                    std::size_t col) {
    const std::size_t g = s.operands.size() / 2;
    for (std::size_t h = 0; h < g; ++h) {
        const matrix at = xt::transpose(arg(s, h));
        dot_terms(e, at, arg(s, g + h), row, col, false);
    }
}

void softmax_backward(cell_explanation &e, const trace &t, const stage &s, std::size_t row,
                      std::size_t col) {
    const matrix &a = arg(s, 0), &d_a = arg(s, 1);
    for (std::size_t k = 0; k < cols(a); ++k) {
        e.terms.push_back({d_a(row, k), a(row, k), d_a(row, k) * a(row, k)});
        e.sum += d_a(row, k) * a(row, k);
    }
    e.input = d_a(row, col);
    e.weight = a(row, col);
    const key_span seen = visible_keys(t.config, row);
    e.masked = col < seen.begin || col >= seen.end;
}

void divide(cell_explanation &e, const trace &t, const stage &s, std::size_t row, std::size_t col) {
    e.input = arg(s, 0)(row, col);
    e.divisor = score_divisor(t.config);
}

void head_column(cell_explanation &e, const trace &t, const stage &s, std::size_t,
                 std::size_t col) {
    e.source_head = s.head;
    e.source_col = std::size_t(s.head) * t.config.d_v + col;
}

void neg_log(cell_explanation &e, const trace &, const stage &s, std::size_t row, std::size_t) {
    e.next_token = arg(s, 1)(row, 0);
    e.input = arg(s, 0)(row, std::size_t(*e.next_token));
}

void mean(cell_explanation &e, const trace &, const stage &s, std::size_t, std::size_t) {
    const matrix &x = arg(s, 0), &counted = arg(s, 1); // (n − 1, 1) each
    e.divisor = 0;
    for (std::size_t k = 0; k < rows(x); ++k) {
        if (counted(k, 0) == 0)
            continue;
        e.addends.push_back(x(k, 0));
        e.sum += counted(k, 0) * x(k, 0);
        e.divisor += counted(k, 0);
    }
}

} // namespace rules

std::size_t numbers_in(const cell_explanation &e) {
    const std::size_t softmax = e.softmax ? e.softmax->logits.size() + e.softmax->exps.size() : 0;
    const std::size_t norm = e.norm ? e.norm->row.size() : 0;
    const std::size_t rms = e.rms ? 3 + e.rms->row.size() : 0;
    return 19 + 3 * e.terms.size() + softmax + norm + rms + e.row.size() + e.addends.size();
}

cell_explanation explain_cell(const trace &t, stage_id id, int head, std::size_t row,
                              std::size_t col, int step) {
    const stage &s = find_stage(t, id, head, step);
    if (row >= rows(s.values) || col >= cols(s.values))
        throw std::invalid_argument("cell: (" + std::to_string(row) + ", " + std::to_string(col) +
                                    ") is outside " + name_of(id) + "'s shape (" +
                                    std::to_string(rows(s.values)) + ", " +
                                    std::to_string(cols(s.values)) + ")");
    cell_explanation e;
    e.value = s.values(row, col);
    entry(id).cell(e, t, s, row, col);
    return e;
}

} // namespace attention
