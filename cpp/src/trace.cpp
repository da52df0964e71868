#include "attention/trace.hpp"

#include <algorithm>
#include <stdexcept>

namespace attention {

namespace {

// The equation's text with each $i replaced by spell(dims[i]) and $r by the divisor.
template <class Spell>
std::string fill(const char *text, const std::vector<dim> &dims, bool scale_scores, Spell spell) {
    std::string out;
    for (const char *p = text; *p; ++p) {
        if (*p != '$') {
            out += *p;
        } else if (*++p == 'r') {
            out += scale_scores ? "√" + spell(dims.at(2)) : std::string("1");
        } else {
            out += spell(dims.at(std::size_t(*p - '0')));
        }
    }
    return out;
}

// How many dims an equation's pass must give: the largest $i it names, plus one ($r reads $2).
std::size_t dims_named(const char *text) {
    std::size_t n = 0;
    for (const char *p = text; *p; ++p)
        if (*p == '$')
            n = std::max(n, p[1] == 'r' ? std::size_t(3) : std::size_t(p[1] - '0') + 1);
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

stage make_stage(const trace &t, stage_id id, head_ref at, const std::vector<dim> &dims,
                 const matrix &values) {
    const stage_entry &e = entry(id);
    if (dims.size() != dims_named(e.equation) || dims[e.rows].size != rows(values) ||
        dims[e.cols].size != cols(values))
        throw std::logic_error(std::string("stage ") + e.name + ": dims do not match its values");
    const bool scale = t.config.scale_scores;
    const auto number = [](const dim &d) { return std::to_string(d.size); };
    const auto symbol = [](const dim &d) { return d.symbol; };
    const equation eq{fill(e.equation, dims, scale, number), fill(e.equation, dims, scale, symbol)};
    stage s{id, at.head, at.kv_head, eq, values, axes_of(dims[e.rows], dims[e.cols]), {}, {}};
    if (e.row_totals)
        s.totals = row_sums(values);
    return s;
}

std::size_t trace_value_count(const attention_config &c) {
    const std::size_t t = c.seq_len, tkv = c.kv_len, d = c.d_model, h = c.num_heads;
    const std::size_t hkv = c.num_kv_heads, dk = c.d_k, dv = c.d_v, dff = c.d_ff;
    const std::size_t tt = t * tkv;
    std::size_t total = t * d + (c.kind == problem_kind::cross ? tkv * d : 0); // x or x_q, x_kv
    total += h * (t * dk + t * d + d * dk);                                    // q, X, W_Q
    total += hkv * (tkv * dk + tkv * d + d * dk);                              // k, X_kv, W_K
    total += hkv * (tkv * dv + tkv * d + d * dv);                              // v, X_kv, W_V
    std::size_t per_head = tt + t * dk + tkv * dk;                             // scores, Q, K
    per_head += 2 * tt;                                                        // scaled, scores
    if (has_mask(c))
        per_head += 3 * tt;             // masked, scaled, M
    per_head += 2 * tt + t;             // weights, logits, row totals
    per_head += t * dv + tt + tkv * dv; // head, weights, V
    total += h * per_head;
    if (c.output_projection) {
        total += 2 * t * h * dv;                  // concat with one operand per head
        total += t * d + t * h * dv + h * dv * d; // output with operands concat, W_O
        total += h * t * d;                       // one contribution per head
    }
    if (c.kind == problem_kind::encoder_layer) {
        total += 3 * t * d + 2 * t * d;           // residual1 (X, output), norm1
        total += t * dff + t * d + d * dff + dff; // ffn_pre, norm1, W1, b1
        total += 2 * t * dff;                     // ffn_hidden, ffn_pre
        total += t * d + t * dff + dff * d + d;   // ffn_out, ffn_hidden, W2, b2
        total += 3 * t * d + 2 * t * d;           // residual2 (norm1, ffn_out), norm2
    }
    return total;
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
