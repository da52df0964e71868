// The passes every kind of attention is built from, for the core's own files: multi-head,
// cross, grouped-query attention (attention.cpp), KV-cache decoding (decode.cpp). Each records
// its stage when given a trace. T = rows of Q, T_kv = rows of K and V, D = d_model.
#pragma once

#include <vector>

#include "attention/attention.hpp"

namespace attention {

// The lesson's names for a config's sizes. Cross-attention tells its two sequence lengths
// apart (T_q, T_kv); in self-attention both are T.
struct named_dims {
    dim t, tkv, d, dk, dv, h, hdv;
    explicit named_dims(const attention_config &c);
};

// 1. x · w, recorded as `id` with operands x (named x_name, rows x_rows) and w (cols w_cols).
// x: (T, D), w: (D, N) → (T, N).
matrix project(stage_id id, const matrix &x, const char *x_name, const dim &x_rows, const matrix &w,
               const char *w_name, const dim &w_cols, const attention_config &c, trace *out,
               stage_at at);

// 2–6 for one head: scores, scale, mask (when `masked`: attention_mask(c), c's causal mask and
// padding keys), softmax, weighted values, recorded with the row dimensions t (queries) and tkv
// (keys). Without a trace, 3–5 run fused in place on the visible scores only, with the same
// bits. q: (T, DK), k: (T_kv, DK), v: (T_kv, DV).
head_result attend(const matrix &q, const matrix &k, const matrix &v, bool masked,
                   const attention_config &c, trace *out, stage_at at, const dim &t,
                   const dim &tkv);

// 7–8: the concat of the heads, then W_O when c.output_projection, recorded with each head's
// share of the output. concat: (T, H·DV) → (T, D), or without W_O the concat itself (recorded
// as the last stage when H > 1); heads: the H × (T, DV) it joins, recorded as its operands (may
// be empty without a trace).
matrix combine(matrix concat, const std::vector<shared_matrix> &heads, const matrix &w_o,
               const attention_config &c, trace *out, stage_at at, const dim &t);

} // namespace attention
