#include "attention/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <xtensor/xview.hpp>

#include "attention/gemm.hpp"
#include "attention/ops.hpp"
#include "attention/passes.hpp"

namespace attention {

named_dims::named_dims(const attention_config &c)
    : t{c.seq_len, c.kind == problem_kind::cross ? "T_q" : "T"},
      tkv{c.kv_len, c.kind == problem_kind::cross ? "T_kv" : "T"}, d{c.d_model, "d_model"},
      dk{c.d_k, "d_k"}, dv{c.d_v, "d_v"}, h{c.num_heads, "h"}, hdv{c.num_heads * c.d_v, "h·d_v"} {}

namespace {

// Records pass 1's product p = x · w as `id`, with its operands x and w, all shared.
// x: (T, D), w: (D, N), p: (T, N).
void record_projection(stage_id id, const shared_matrix &p, const shared_matrix &x,
                       const char *x_name, const dim &x_rows, const shared_matrix &w,
                       const char *w_name, const dim &w_cols, const attention_config &c, trace *out,
                       stage_at at) {
    const named_dims n(c);
    record(out, id, at, {x_rows, n.d, w_cols}, p, operand{x_name, no_head, x, axes_of(x_rows, n.d)},
           operand{w_name, at.head, w, axes_of(n.d, w_cols)});
}

// The keys query row i sees under the mask: its row prefix. Masks here only ever hide the end
// of a row (later tokens, padding keys), so the masked products can be left out.
row_prefix prefix_of(const attention_config &c, bool masked, std::size_t kv_len) {
    if (!masked)
        return {kv_len, false};
    return {c.valid_keys ? std::min(*c.valid_keys, kv_len) : kv_len, c.causal};
}

double divisor_of(const attention_config &c) {
    return c.scale_scores ? std::sqrt(static_cast<double>(c.d_k)) : 1.0;
}

// Passes 1–7 without a trace, all heads at once: Q, K and V from one product each, X · [W_1 |
// … | W_H] (each entry is summed exactly as in its own head's product), then per head the
// visible scores, the fused softmax in one reused buffer, and weights · V written straight into
// the head's columns of the concat. The same bits as the traced passes. → (T, H·DV).
matrix heads_untraced(const attention_params &p, const attention_config &c) {
    const matrix &x_kv = c.kind == problem_kind::cross ? p.x_kv : p.x; // (T_kv, D)
    const matrix q = matmul(p.x, concat_columns(p.w_q));               // (T, H·DK)
    const matrix k = matmul(x_kv, concat_columns(p.w_k));              // (T_kv, H_kv·DK)
    const matrix v = matmul(x_kv, concat_columns(p.w_v));              // (T_kv, H_kv·DV)
    const std::size_t t = c.seq_len, tkv = c.kv_len, dk = c.d_k, dv = c.d_v;
    const row_prefix prefix = prefix_of(c, has_mask(c), tkv);
    matrix weights({t, tkv});             // (T, T_kv), one head's at a time
    matrix concat({t, c.num_heads * dv}); // (T, H·DV)
    for (std::size_t i = 0; i < c.num_heads; ++i) {
        const std::size_t g = i / group_size(c);
        gemm_bt_prefix(t, dk, tkv, q.data() + i * dk, cols(q), k.data() + g * dk, cols(k),
                       weights.data(), tkv, prefix);
        softmax_scaled_prefix(weights.data(), t, tkv, tkv, divisor_of(c), prefix.keys,
                              prefix.causal);
        gemm_prefix(t, tkv, dv, weights.data(), tkv, v.data() + g * dv, cols(v),
                    concat.data() + i * dv, cols(concat), prefix);
    }
    return concat;
}

// One head's output and weights as the trace holds them. (T, DV), (T, T_kv).
struct recorded_head {
    shared_matrix output, weights;
};

// Passes 2–6 of one head, each recorded; every matrix is shared between the stage it is and
// the operands it appears as. mask: the (T, T_kv) M when masked, shared by every head.
recorded_head attend_recorded(const shared_matrix &q, const shared_matrix &k,
                              const shared_matrix &v, const shared_matrix *mask,
                              const attention_config &c, trace &out, stage_at at, const dim &t,
                              const dim &tkv) {
    const named_dims n(c);
    // K and V are named after the k and v stages they come from: the group's first query head.
    const int kv_owner = at.kv_head == no_head ? at.head : at.kv_head * int(group_size(c));
    // 2. Score every query against every key.
    const shared_matrix scores = matmul_bt(q, k); // (T, T_kv)
    record(&out, stage_id::scores, at, {t, n.dk, tkv}, scores,
           operand{"Q", at.head, q, axes_of(t, n.dk)},
           operand{"K", kv_owner, k, axes_of(tkv, n.dk)});

    // 3–5, row by row while each row is in cache:
    // 3. Scale by √DK: with unit-variance components, q·k has variance DK; this brings it to 1.
    // 4. Add the mask: −∞ where a key is hidden becomes exactly 0 after the softmax.
    // 5. Turn each row of logits into weights that sum to 1.
    const std::size_t n_keys = cols(scores.get());
    const row_prefix prefix = prefix_of(c, mask != nullptr, rows(k));
    matrix scaled({rows(q), n_keys}), weighted({rows(q), n_keys}); // (T, T_kv)
    matrix with_mask(mask ? matrix({rows(q), n_keys}) : matrix()); // (T, T_kv)
    for (std::size_t i = 0; i < rows(q); ++i) {
        double *logits_row = &scaled(i, 0);
        divide_row(&scores.get()(i, 0), n_keys, divisor_of(c), logits_row);
        if (mask) {
            const double *m_row = &mask->get()(i, 0);
            double *masked_row = &with_mask(i, 0);
            for (std::size_t j = 0; j < n_keys; ++j)
                masked_row[j] = logits_row[j] + m_row[j];
            logits_row = masked_row;
        }
        // The hidden keys (−∞, past the row's prefix) add exp(−∞) = 0 to the sum: the softmax
        // of the visible prefix, then zeros, has the whole row's bits without their work.
        double *weights_row = &weighted(i, 0);
        softmax_row(logits_row, prefix(i), weights_row);
        std::fill(weights_row + prefix(i), weights_row + n_keys, 0.0);
    }

    const shared_matrix logits_scaled = std::move(scaled);
    record(&out, stage_id::scaled, at, {t, tkv, n.dk}, logits_scaled,
           operand{name_of(stage_id::scores), at.head, scores, axes_of(t, tkv)});
    shared_matrix logits = logits_scaled;
    stage_id logits_stage = stage_id::scaled;
    if (mask) {
        logits = std::move(with_mask);
        record(&out, stage_id::masked, at, {t, tkv}, logits,
               operand{name_of(stage_id::scaled), at.head, logits_scaled, axes_of(t, tkv)},
               operand{"M", no_head, *mask, axes_of(t, tkv)});
        logits_stage = stage_id::masked;
    }
    const shared_matrix weights = std::move(weighted);
    record(&out, stage_id::weights, at, {t, tkv}, weights,
           operand{name_of(logits_stage), at.head, logits, axes_of(t, tkv)});

    // 6. Mix the values: each output row is a weighted average of V's rows.
    matrix output({rows(q), cols(v)}); // (T, DV)
    gemm_prefix(rows(q), rows(k), cols(v), weights.data(), rows(k), v.data(), cols(v),
                output.data(), cols(v), prefix);
    const shared_matrix head = std::move(output);
    record(&out, stage_id::head, at, {t, tkv, n.dv}, head,
           operand{name_of(stage_id::weights), at.head, weights, axes_of(t, tkv)},
           operand{"V", kv_owner, v, axes_of(tkv, n.dv)});
    return {head, weights};
}

// The inputs, each recorded once and shared by the projections that read it: X (X_q, X_kv).
std::pair<shared_matrix, shared_matrix> record_inputs(const attention_params &p,
                                                      const attention_config &c, trace &out) {
    const named_dims n(c);
    const shared_matrix x = p.x; // (T, D)
    if (c.kind != problem_kind::cross) {
        record(&out, stage_id::x, {}, {n.t, n.d}, x);
        return {x, x};
    }
    const shared_matrix x_kv = p.x_kv; // (T_kv, D)
    record(&out, stage_id::x_q, {}, {n.t, n.d}, x);
    record(&out, stage_id::x_kv, {}, {n.tkv, n.d}, x_kv);
    return {x, x_kv};
}

// Multi-head attention with its trace: passes 1–8, each matrix held once.
matrix multi_head_recorded(const attention_params &p, const attention_config &c, trace &out) {
    const named_dims n(c);
    const bool cross = c.kind == problem_kind::cross;
    const char *x_name = cross ? "X_q" : "X";
    const char *kv_name = cross ? "X_kv" : "X";
    out.config = c;
    const auto [x, x_kv] = record_inputs(p, c, out); // (T, D), (T_kv, D)

    // 1. Q, K and V of every head from one product each, X · [W_1 | … | W_H]: each entry is
    // summed exactly as in its own head's product (heads_untraced), so each head's columns are
    // the bits of its own projection, recorded as that head's q, k, v.
    const matrix q_all = matmul(x, concat_columns(p.w_q));                 // (T, H·DK)
    const matrix k_all = matmul(x_kv, concat_columns(p.w_k));              // (T_kv, H_kv·DK)
    const matrix v_all = matmul(x_kv, concat_columns(p.w_v));              // (T_kv, H_kv·DV)
    const shared_matrix mask = has_mask(c) ? attention_mask(c) : matrix(); // (T, T_kv)

    // 2–6 for every query head, each in its own subspace. K and V are recorded once per K/V
    // head, when the first query head of its group needs them (all of them in MHA).
    std::vector<shared_matrix> keys(c.num_kv_heads), values(c.num_kv_heads); // (T_kv, DK|DV)
    std::vector<shared_matrix> heads;                                        // H × (T, DV)
    for (std::size_t i = 0; i < c.num_heads; ++i) {
        const std::size_t g = i / group_size(c);
        const stage_at at{int(i), int(g), no_step, {}};
        const shared_matrix q = columns_of(q_all, i * c.d_k, c.d_k);
        record_projection(stage_id::q, q, x, x_name, n.t, p.w_q[i], "W_Q", n.dk, c, &out, at);
        if (i % group_size(c) == 0) {
            keys[g] = columns_of(k_all, g * c.d_k, c.d_k);
            values[g] = columns_of(v_all, g * c.d_v, c.d_v);
            record_projection(stage_id::k, keys[g], x_kv, kv_name, n.tkv, p.w_k[g], "W_K", n.dk, c,
                              &out, at);
            record_projection(stage_id::v, values[g], x_kv, kv_name, n.tkv, p.w_v[g], "W_V", n.dv,
                              c, &out, at);
        }
        const shared_matrix *m = has_mask(c) ? &mask : nullptr;
        heads.push_back(attend_recorded(q, keys[g], values[g], m, c, out, at, n.t, n.tkv).output);
    }
    matrix concat = concat_columns(std::vector<matrix>(heads.begin(), heads.end())); // (T, H·DV)
    return combine(std::move(concat), heads, p.w_o, c, &out, {}, n.t);
}

} // namespace

matrix project(stage_id id, const matrix &x, const char *x_name, const dim &x_rows, const matrix &w,
               const char *w_name, const dim &w_cols, const attention_config &c, trace *out,
               stage_at at) {
    matrix p = matmul(x, w); // (rows of x, cols of w)
    if (!out)
        return p;
    const shared_matrix recorded = std::move(p);
    record_projection(id, recorded, x, x_name, x_rows, w, w_name, w_cols, c, out, at);
    return recorded;
}

head_result attend(const matrix &q, const matrix &k, const matrix &v, bool masked,
                   const attention_config &c, trace *out, stage_at at, const dim &t,
                   const dim &tkv) {
    if (out) { // q, k and v copied into the trace once each
        const shared_matrix mask = masked ? attention_mask(c) : matrix();
        const recorded_head r =
            attend_recorded(q, k, v, masked ? &mask : nullptr, c, *out, at, t, tkv);
        return {r.output, r.weights};
    }
    // Passes 2–5 in one buffer: the same bits as the recorded passes.
    const row_prefix prefix = prefix_of(c, masked, rows(k));
    matrix output({rows(q), cols(v)});  // (T, DV)
    matrix weights({rows(q), rows(k)}); // (T, T_kv)
    gemm_bt_prefix(rows(q), cols(q), rows(k), q.data(), cols(q), k.data(), cols(k), weights.data(),
                   rows(k), prefix);
    softmax_scaled_prefix(weights.data(), rows(q), rows(k), rows(k), divisor_of(c), prefix.keys,
                          prefix.causal);
    gemm_prefix(rows(q), rows(k), cols(v), weights.data(), rows(k), v.data(), cols(v),
                output.data(), cols(v), prefix);
    return {std::move(output), std::move(weights)};
}

matrix attention_mask(const attention_config &c) {
    const double hidden = -std::numeric_limits<double>::infinity();
    matrix m = xt::zeros<double>({c.seq_len, c.kv_len}); // (T, T_kv)
    for (std::size_t i = 0; i < c.seq_len; ++i)
        for (std::size_t j = 0; j < c.kv_len; ++j)
            if ((c.causal && j > i) || (c.valid_keys && j >= *c.valid_keys))
                m(i, j) = hidden;
    return m;
}

head_result self_attention(const matrix &x, const matrix &w_q, const matrix &w_k, const matrix &w_v,
                           const attention_config &c, trace *out, int head) {
    const named_dims n(c);
    const stage_at at{head, no_head, no_step, {}}; // one head on its own: no K/V grouping
    // 1. Project every token to a query, a key and a value.
    const matrix q = project(stage_id::q, x, "X", n.t, w_q, "W_Q", n.dk, c, out, at); // (T, DK)
    const matrix k = project(stage_id::k, x, "X", n.t, w_k, "W_K", n.dk, c, out, at); // (T, DK)
    const matrix v = project(stage_id::v, x, "X", n.t, w_v, "W_V", n.dv, c, out, at); // (T, DV)
    return attend(q, k, v, has_mask(c), c, out, at, n.t, n.tkv);
}

matrix multi_head_attention(const attention_params &p, const attention_config &c, trace *out) {
    if (out)
        return multi_head_recorded(p, c, *out);
    return combine(heads_untraced(p, c), {}, p.w_o, c, nullptr, {}, named_dims(c).t);
}

} // namespace attention
