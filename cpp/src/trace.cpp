#include "attention/trace.hpp"

#include <stdexcept>

namespace attention {

namespace {

std::string pair(const std::string &a, const std::string &b) {
    return "(" + a + ", " + b + ")";
}

std::string num(const dim &d) {
    return std::to_string(d.size);
}

// An equation written once over either spelling of a dimension (its number or its symbol).
template <class Write> equation both(Write write) {
    return {write(num), write([](const dim &d) { return d.symbol; })};
}

equation form(shape_rule rule, const std::vector<dim> &d, bool scale_scores) {
    switch (rule) {
    case shape_rule::input:
        return both([&](auto s) { return pair(s(d[0]), s(d[1])); });
    case shape_rule::product:
        return both([&](auto s) {
            return pair(s(d[0]), s(d[1])) + " @ " + pair(s(d[1]), s(d[2])) + " → " +
                   pair(s(d[0]), s(d[2]));
        });
    case shape_rule::scale:
        return both([&](auto s) {
            const std::string rc = pair(s(d[0]), s(d[1]));
            return rc + (scale_scores ? " ÷ √" + s(d[2]) : std::string(" ÷ 1")) + " → " + rc;
        });
    case shape_rule::mask:
    case shape_rule::add:
        return both([&](auto s) {
            const std::string rc = pair(s(d[0]), s(d[1]));
            return rc + " + " + rc + " → " + rc;
        });
    case shape_rule::softmax:
        return both([&](auto s) {
            return "softmax" + pair(s(d[0]), s(d[1])) + " → " + pair(s(d[0]), s(d[1]));
        });
    case shape_rule::norm:
        return both([&](auto s) {
            return "norm" + pair(s(d[0]), s(d[1])) + " → " + pair(s(d[0]), s(d[1]));
        });
    case shape_rule::relu:
        return both([&](auto s) {
            return "ReLU" + pair(s(d[0]), s(d[1])) + " → " + pair(s(d[0]), s(d[1]));
        });
    case shape_rule::concat:
        return both([&](auto s) {
            return s(d[0]) + " × " + pair(s(d[1]), s(d[2])) + " → " + pair(s(d[1]), s(d[3]));
        });
    case shape_rule::affine:
        return both([&](auto s) {
            return pair(s(d[0]), s(d[1])) + " @ " + pair(s(d[1]), s(d[2])) + " + (" + s(d[2]) +
                   ") → " + pair(s(d[0]), s(d[2]));
        });
    }
    throw std::logic_error("unknown shape rule");
}

// The dimensions each rule names, and which two are the result's rows and columns.
struct rule_dims {
    std::size_t count, rows, cols;
};

rule_dims dims_of(shape_rule rule) {
    switch (rule) {
    case shape_rule::product:
    case shape_rule::affine:
        return {3, 0, 2};
    case shape_rule::scale:
        return {3, 0, 1};
    case shape_rule::concat:
        return {4, 1, 3};
    default:
        return {2, 0, 1};
    }
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
    const rule_dims rd = dims_of(e.shape);
    if (dims.size() != rd.count || dims[rd.rows].size != rows(values) ||
        dims[rd.cols].size != cols(values))
        throw std::logic_error(std::string("stage ") + e.name + ": dims do not match its values");
    stage s{id,         at.head,
            at.kv_head, form(e.shape, dims, t.config.scale_scores),
            values,     axes_of(dims[rd.rows], dims[rd.cols]),
            {},         {}};
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
