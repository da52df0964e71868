#include "attention/trace.hpp"

#include "attention/passes.hpp"

#include <algorithm>
#include <stdexcept>

namespace attention {

namespace {

// The equation's text with each $i replaced by spell(dims[i]) and $si by the divisor √dims[i]
// (1 without scaling).
template <class Spell>
std::string fill(const char *text, const std::vector<dim> &dims, bool scale_scores, Spell spell) {
    std::string out;
    for (const char *p = text; *p; ++p) {
        if (*p != '$') {
            out += *p;
        } else if (*++p == 's') {
            const dim &d = dims.at(std::size_t(*++p - '0'));
            out += scale_scores ? "√" + spell(d) : std::string("1");
        } else {
            out += spell(dims.at(std::size_t(*p - '0')));
        }
    }
    return out;
}

// How many dims an equation's pass must give: the largest index it names, plus one.
std::size_t dims_named(const char *text) {
    std::size_t n = 0;
    for (const char *p = text; *p; ++p)
        if (*p == '$')
            n = std::max(n, std::size_t(p[p[1] == 's' ? 2 : 1] - '0') + 1);
    return n;
}

matrix row_sums(const matrix &m) {
    matrix out({rows(m), std::size_t(1)});
    for (std::size_t i = 0; i < rows(m); ++i) {
        double total = 0.0;
        for (std::size_t j = 0; j < cols(m); ++j)
            total += m(i, j);
        out(i, 0) = total;
    }
    return out;
}

} // namespace

stage make_stage(const trace &t, stage_id id, stage_at at, const std::vector<dim> &dims,
                 shared_matrix values) {
    const stage_entry &e = entry(id);
    if (dims.size() != dims_named(e.equation) || dims[e.rows].size != rows(values) ||
        dims[e.cols].size != cols(values))
        throw std::logic_error(std::string("stage ") + e.name + ": dims do not match its values");
    const bool scale = t.config.scale_scores;
    const auto number = [](const dim &d) { return std::to_string(d.size); };
    const auto symbol = [](const dim &d) { return d.symbol; };
    const equation eq{fill(e.equation, dims, scale, number), fill(e.equation, dims, scale, symbol)};
    stage s{id,      at.head, at.kv_head,        at.step,
            at.tile, eq,      std::move(values), axes_of(dims[e.rows], dims[e.cols]),
            {},      {}};
    if (e.row_totals)
        s.totals = row_sums(s.values);
    return s;
}

namespace {

// Each count below is the doubles a pass records: its values and its operands'.

std::size_t attention_values(const attention_config &c) {
    const std::size_t t = c.seq_len, tkv = c.kv_len, d = c.d_model;
    std::size_t total = t * d + (c.kind == problem_kind::cross ? tkv * d : 0); // x or x_q, x_kv
    total += c.num_heads * projection_values(t, d, c.d_k);
    total += c.num_kv_heads * (projection_values(tkv, d, c.d_k) + projection_values(tkv, d, c.d_v));
    total += c.num_heads * head_values(c, t, tkv, has_mask(c));
    return total + combine_values(c, t);
}

std::size_t encoder_values(const attention_config &c) {
    const std::size_t td = c.seq_len * c.d_model, tf = c.seq_len * c.d_ff;
    std::size_t total = 3 * td + 2 * td; // residual1 (X, output), norm1
    total += projection_values(c.seq_len, c.d_model, c.d_ff) + c.d_ff;    // ffn_pre, W1, b1
    total += 2 * tf;                                                      // ffn_hidden, ffn_pre
    total += projection_values(c.seq_len, c.d_ff, c.d_model) + c.d_model; // ffn_out, W2, b2
    return total + 3 * td + 2 * td;                                       // residual2, norm2
}

std::size_t decode_values(const attention_config &c) {
    const std::size_t d = c.d_model, dk = c.d_k, dv = c.d_v;
    const std::size_t width = c.output_projection ? d : c.num_heads * dv;
    std::size_t total = 2 * c.seq_len * width; // stacked, causal_reference
    for (std::size_t t = 0; t < c.seq_len; ++t) {
        total += d + c.num_heads * projection_values(1, d, dk); // x_t, q
        const std::size_t caches = (2 * t + 2) * (dk + dv);     // k_cache, v_cache with operands
        total +=
            c.num_kv_heads * (projection_values(1, d, dk) + projection_values(1, d, dv) + caches);
        total += c.num_heads * head_values(c, 1, t + 1, false) + combine_values(c, 1);
    }
    return total;
}

std::size_t flash_values(const attention_config &c) {
    const std::size_t t = c.seq_len, d = c.d_model, dk = c.d_k, dv = c.d_v;
    std::size_t total = t * d + 2 * projection_values(t, d, dk) + projection_values(t, d, dv);
    total += 2 * t * dv; // stacked, reference
    for (std::size_t i0 = 0; i0 < t; i0 += c.block_rows) {
        const std::size_t r = std::min(t, i0 + c.block_rows) - i0;
        total += 2 * r * dv + r; // block_out, O, l
        for (std::size_t j0 = 0; j0 < t && !(c.causal && j0 > i0 + r - 1); j0 += c.block_cols) {
            const std::size_t b = std::min(t, j0 + c.block_cols) - j0, rb = r * b;
            total += rb + r * dk + b * dk;         // tile_scores, Q_i, K_j
            total += 2 * r + rb;                   // tile_max, m, tile_scores
            total += 3 * r + rb;                   // tile_sum, l, α, P
            total += 2 * r * dv + r + rb + b * dv; // tile_out, O, α, P, V_j
        }
    }
    return total;
}

} // namespace

std::size_t trace_value_count(const attention_config &c) {
    switch (c.kind) {
    case problem_kind::kv_cache:
        return decode_values(c);
    case problem_kind::flash:
        return flash_values(c);
    case problem_kind::encoder_layer:
        return attention_values(c) + encoder_values(c);
    default: // self, cross, designed
        return attention_values(c);
    }
}

std::size_t recorded_value_count(const trace &t) {
    std::size_t n = 0;
    for (const stage &s : t.stages) {
        n += s.values.size() + s.totals.size();
        for (const operand &o : s.operands)
            n += o.values.size();
    }
    return n;
}

} // namespace attention
