#include "attention/rope.hpp"

#include <algorithm>
#include <cmath>

#include "attention/explain.hpp"
#include "attention/mask.hpp"
#include "attention/ops.hpp"

namespace attention {

std::pair<std::size_t, std::size_t> rope_pair(const rope_settings &r, std::size_t i) {
    return r.half_split ? std::pair{i, i + r.dims / 2} : std::pair{2 * i, 2 * i + 1};
}

rope_table rope_table_of(const rope_settings &r, std::size_t first, std::size_t positions) {
    const std::size_t pairs = r.dims / 2;
    matrix theta({1, pairs}), angle({positions, pairs}), cos({positions, pairs}),
        sin({positions, pairs}), columns({pairs, 2}); // (1, R), (P, R) × 3, (R, 2)
    for (std::size_t i = 0; i < pairs; ++i) {
        theta(0, i) = std::pow(r.base, -2.0 * double(i) / double(r.dims));
        const auto [a, b] = rope_pair(r, i);
        columns(i, 0) = double(a), columns(i, 1) = double(b);
    }
    for (std::size_t p = 0; p < positions; ++p)
        for (std::size_t i = 0; i < pairs; ++i) {
            angle(p, i) = double(r.offset + first + p) * theta(0, i);
            cos(p, i) = std::cos(angle(p, i));
            sin(p, i) = std::sin(angle(p, i));
        }
    return {std::move(theta), std::move(angle), std::move(cos), std::move(sin), std::move(columns)};
}

rope_table turned_back(const rope_table &t) {
    return {t.theta, matrix(-t.angle.get()), t.cos, matrix(-t.sin.get()), t.pairs};
}

matrix rotated(matrix_view x, const rope_table &table, const rope_settings &r) {
    matrix out({x.rows, x.cols}); // (P, DK)
    for (std::size_t p = 0; p < x.rows; ++p) {
        const double *in = x.data + p * x.ld;
        std::copy(in, in + x.cols, &out(p, 0)); // the columns past dims, and the pairs' start
        for (std::size_t i = 0; i < r.dims / 2; ++i) {
            const auto [a, b] = rope_pair(r, i);
            const double c = table.cos(p, i), s = table.sin(p, i);
            out(p, a) = in[a] * c - in[b] * s; // the pair (a, b) turned by φ(p, i)
            out(p, b) = in[a] * s + in[b] * c;
        }
    }
    return out;
}

std::vector<operand> table_operands(const rope_table &table, const dim &rows) {
    const dim pairs{cols(table.angle.get()), "d/2"}, one{1, "1"}, two{2, "2"};
    return {{"θ", no_head, table.theta, axes_of(one, pairs)},
            {"angle", no_head, table.angle, axes_of(rows, pairs)},
            {"cos", no_head, table.cos, axes_of(rows, pairs)},
            {"sin", no_head, table.sin, axes_of(rows, pairs)},
            {"pairs", no_head, table.pairs, axes_of(pairs, two)}};
}

shared_matrix rotate_recorded(stage_id id, const shared_matrix &x, const char *x_name,
                              const rope_table &table, const attention_config &c, trace *out,
                              stage_at at, const dim &rows) {
    shared_matrix result = rotated(view_of(x), table, *c.rope);
    if (!out)
        return result;
    const dim dk{c.d_k, "d_k"}, pairs{c.rope->dims / 2, "d/2"}, one{1, "1"}, two{2, "2"};
    record(out, id, at, {rows, dk, pairs, one, two}, result,
           operand{x_name, at.head, x, axes_of(rows, dk)}, table_operands(table, rows));
    return result;
}

namespace {

double largest_change(const matrix &a, const matrix &b) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::fabs(a.data()[i] - b.data()[i]));
    return worst;
}

// S̃ and the weights of one head whose q and k are already turned, by the head's own passes
// (attend, traced). q: (T, DK), k: (T_kv, DK) → (T, T_kv) each.
std::pair<matrix, matrix> scaled_and_weights(const matrix &q, const matrix &k,
                                             const attention_config &c) {
    trace t;
    const dim rows{attention::rows(q), "T"}, keys{attention::rows(k), "T"};
    attend(q, k, k, visible_spans(c), false, c, &t, {}, rows, keys);
    const auto values = [&](stage_id id) {
        return std::find_if(t.stages.begin(), t.stages.end(),
                            [&](const stage &s) { return s.id == id; })
            ->values.get();
    };
    return {values(stage_id::scaled), values(stage_id::weights)};
}

} // namespace

rope_shift_check rope_shift(matrix_view q, matrix_view k, const attention_config &c, double shift) {
    rope_settings moved = *c.rope;
    moved.offset += std::size_t(shift);
    const rope_table at = rope_table_of(*c.rope, 0, q.rows),
                     later = rope_table_of(moved, 0, q.rows);
    const matrix q0 = rotated(q, at, *c.rope), q1 = rotated(q, later, moved);
    const auto [s0, w0] = scaled_and_weights(q0, rotated(k, at, *c.rope), c);
    const auto [s1, w1] = scaled_and_weights(q1, rotated(k, later, moved), c);
    return {shift, largest_change(q0, q1), largest_change(s0, s1), largest_change(w0, w1)};
}

namespace rules {

// A rotated entry: of pair (a, b), column a is x_a·cos φ + x_b·(−sin φ), column b is
// x_a·sin φ + x_b·cos φ; a column past dims is x itself.
void rotate(cell_explanation &e, const trace &t, const stage &s, std::size_t row, std::size_t col) {
    const matrix &x = s.operands.at(0).values, &cos = s.operands.at(3).values,
                 &sin = s.operands.at(4).values;
    const rope_settings &r = *t.config.rope;
    const auto term = [&](double a, double b) {
        e.terms.push_back({a, b, a * b});
        e.sum += a * b;
    };
    for (std::size_t i = 0; i < r.dims / 2; ++i) {
        const auto [a, b] = rope_pair(r, i);
        if (col == a)
            return term(x(row, a), cos(row, i)), term(x(row, b), -sin(row, i));
        if (col == b)
            return term(x(row, a), sin(row, i)), term(x(row, b), cos(row, i));
    }
    term(x(row, col), 1.0);
}

} // namespace rules

} // namespace attention
