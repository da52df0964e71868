#include "attention/attention.hpp"

#include <cmath>

#include <xtensor/xview.hpp>

#include "attention/ops.hpp"

namespace attention {

namespace {

// The dimensions of a config, named as the lesson names them.
struct dims {
    dim t, d, dk, dv, h, hdv;
    explicit dims(const attention_config &c)
        : t{c.seq_len, "T"}, d{c.d_model, "d_model"}, dk{c.d_k, "d_k"}, dv{c.d_v, "d_v"},
          h{c.num_heads, "h"}, hdv{c.num_heads * c.d_v, "h·d_v"} {}
};

// Appends a stage; operands are moved in one by one (a braced list would copy each twice).
// Callers test `out` first, so that a run without a trace copies nothing.
template <class... Operands>
void record(trace *out, const char *id, int head, equation eq, const matrix &values,
            Operands &&...operands) {
    stage s{id, head, std::move(eq), values, {}};
    s.operands.reserve(sizeof...(operands));
    (s.operands.push_back(std::forward<Operands>(operands)), ...);
    out->stages.push_back(std::move(s));
}

// W_O's rows that multiply head h's columns of the concat: (DV, D).
matrix w_o_rows_of_head(const matrix &w_o, std::size_t h, std::size_t dv) {
    return xt::view(w_o, xt::range(h * dv, (h + 1) * dv), xt::all());
}

} // namespace

head_result self_attention(const matrix &x, const matrix &w_q, const matrix &w_k, const matrix &w_v,
                           const attention_config &c, trace *out, int head) {
    const dims n(c);
    // 1. Project every token to a query, a key and a value.
    matrix q = matmul(x, w_q); // (T, DK)
    matrix k = matmul(x, w_k); // (T, DK)
    matrix v = matmul(x, w_v); // (T, DV)
    if (out) {
        record(out, "q", head, product(n.t, n.d, n.dk), q, operand{"X", no_head, x},
               operand{"W_Q", head, w_q});
        record(out, "k", head, product(n.t, n.d, n.dk), k, operand{"X", no_head, x},
               operand{"W_K", head, w_k});
        record(out, "v", head, product(n.t, n.d, n.dv), v, operand{"X", no_head, x},
               operand{"W_V", head, w_v});
    }

    // 2. Score every query against every key.
    matrix scores = matmul_bt(q, k); // (T, T)
    if (out)
        record(out, "scores", head, product(n.t, n.dk, n.t), scores, operand{"Q", head, q},
               operand{"K", head, k});

    // 3. Scale by √DK so the scores' spread does not grow with DK.
    const double divisor = c.scale_scores ? std::sqrt(static_cast<double>(c.d_k)) : 1.0;
    matrix logits = scores / divisor; // (T, T)
    if (out) {
        const equation eq = c.scale_scores ? divide_by_sqrt(n.t, n.dk) : divide_by_one(n.t);
        record(out, "scaled", head, eq, logits, operand{"scores", head, scores});
    }

    // 4. Hide future tokens: −∞ above the diagonal becomes exactly 0 after the softmax.
    const char *logits_name = "scaled";
    if (c.causal) {
        matrix masked = causal_mask(logits); // (T, T)
        if (out)
            record(out, "masked", head, add_mask(n.t), masked, operand{"scaled", head, logits});
        logits = std::move(masked);
        logits_name = "masked";
    }

    // 5. Turn each row of logits into weights that sum to 1.
    matrix weights = softmax_rows(logits); // (T, T)
    if (out)
        record(out, "weights", head, softmax_of(n.t), weights, operand{logits_name, head, logits});

    // 6. Mix the values: each output row is a weighted average of V's rows.
    matrix output = matmul(weights, v); // (T, DV)
    if (out)
        record(out, "head", head, product(n.t, n.t, n.dv), output,
               operand{"weights", head, weights}, operand{"V", head, v});
    return {std::move(output), std::move(weights)};
}

matrix multi_head_attention(const attention_params &p, const attention_config &c, trace *out) {
    const dims n(c);
    if (out) {
        out->config = c;
        out->stages.reserve(1 + c.num_heads * (c.causal ? 8 : 7) + 2);
        record(out, "x", no_head, shape_of(n.t, n.d), p.x);
    }

    // 1–6 for every head, each in its own subspace.
    std::vector<matrix> heads; // H × (T, DV)
    for (std::size_t h = 0; h < c.num_heads; ++h)
        heads.push_back(self_attention(p.x, p.w_q[h], p.w_k[h], p.w_v[h], c, out, int(h)).output);

    // 7. Concatenate the heads along the feature axis.
    matrix concat = concat_columns(heads); // (T, H·DV)
    if (!c.output_projection)
        return concat;
    if (out) {
        record(out, "concat", no_head, concat_of(n.h, n.t, n.dv, n.hdv), concat);
        for (std::size_t h = 0; h < c.num_heads; ++h)
            out->stages.back().operands.push_back({"head", int(h), heads[h]});
    }

    // 8. Project back to d_model with W_O, which mixes information across heads.
    matrix output = matmul(concat, p.w_o); // (T, D)
    if (out) {
        record(out, "output", no_head, product(n.t, n.hdv, n.d), output,
               operand{"concat", no_head, concat}, operand{"W_O", no_head, p.w_o});
        for (std::size_t h = 0; h < c.num_heads; ++h) // Σ_h contribution_h = output
            out->stages.back().operands.push_back(
                {"contribution", int(h), matmul(heads[h], w_o_rows_of_head(p.w_o, h, c.d_v))});
    }
    return output;
}

} // namespace attention
