// The passes every kind of attention is built from, for the core's own files: pass 1's
// projection, 2–6 for one head (head.cpp), 7–8 (combine.cpp). The loop over the heads that every
// kind runs is heads.hpp's. Each records its stage when given a trace. T = rows of Q, T_kv = rows
// of K and V, D = d_model.
#pragma once

#include <cmath>
#include <vector>

#include "attention/alibi.hpp"
#include "attention/gemm.hpp"
#include "attention/params.hpp"
#include "attention/trace.hpp"

namespace attention {

// The lesson's names for a config's sizes. Cross-attention tells its two sequence lengths
// apart (T_q, T_kv); in self-attention both are T.
struct named_dims {
    dim t, tkv, d, dk, dv, h, hdv;
    explicit named_dims(const attention_config &c);
};

// rows × cols values read in place, row i from data + i · ld: a whole matrix, or one head's
// columns of a projection made for every head at once.
struct matrix_view {
    const double *data;
    std::size_t rows, cols, ld;
};

// rows × cols values written in place, row i at data + i · ld: one head's columns of the concat.
struct output_view {
    double *data;
    std::size_t rows, cols, ld;
};

inline matrix_view view_of(const matrix &m) {
    return {m.data(), rows(m), cols(m), cols(m)};
}

// What an MLA head's scores and output read beside its q, k and v (mla.hpp), as the trace holds
// them: its scores add q_rope · k_ropeᵀ and show q_absorbed · c_kvᵀ; its head is
// latent_head · W_UV. DC = d_latent, DR = d_rope.
struct latent_parts {
    shared_matrix c_kv;       // (T, DC), every head's
    shared_matrix k_rope;     // (T, DR), every head's; empty when DR = 0
    shared_matrix q_rope;     // (T, DR) this head's; empty when DR = 0
    shared_matrix q_absorbed; // (T, DC) this head's
    shared_matrix w_uv;       // (DC, DV) this head's
};

// What a traced head pass needs beside its numbers: the trace, where the stages belong, the
// rows' dims, Q, K and V as the trace holds them (shared with their own stages), and M when
// the config asks for a mask (one M shared by every head).
struct head_trace {
    trace &out;
    stage_at at;
    dim t, tkv;
    shared_matrix q, k, v;                   // (T, DK), (T_kv, DK), (T_kv, DV)
    shared_matrix mask;                      // (T, T_kv), or empty when nothing is hidden
    const char *q_name = "Q", *k_name = "K"; // the scores' operands: q_rot, k_rot under RoPE
    const latent_parts *latent = nullptr;    // kind mla's, else none
};

// 1. x · w, recorded as `id` with operands x (named x_name, rows x_rows) and w (cols w_cols).
// x: (T, D), w: (D, N) → (T, N).
matrix project(stage_id id, const matrix &x, const char *x_name, const dim &x_rows, const matrix &w,
               const char *w_name, const dim &w_cols, const attention_config &c, trace *out,
               stage_at at);

// 2–6 for one head, the lesson's passes in its order: scores, scale, soft cap (c.softcap), bias
// (ALiBi, when given), mask, softmax (with the head's sink logit zeta, when given), weighted values. Query i sees the keys keys[i]: outside them its weight is exactly
// 0, and a run without a trace leaves their scores and terms out, with the same bits where it
// computes. `weights` (T, T_kv) is the head's working matrix and holds its weights after (traced,
// they move into the trace and leave it empty); the output goes to `head` (T, DV). q: (T, DK), k:
// (T_kv, DK), v: (T_kv, DV).
void attend_head(matrix_view q, matrix_view k, matrix_view v, const row_spans &keys,
                 const attention_config &c, matrix &weights, output_view head, head_trace *rec,
                 const linear_bias *bias = nullptr, const double *zeta = nullptr);

// attend_head on whole matrices, recording into `out` when given (rows dims t and tkv), with
// the masked stage when `masked` (the config asks for a mask, even one that hides nothing).
head_result attend(const matrix &q, const matrix &k, const matrix &v, const row_spans &keys,
                   bool masked, const attention_config &c, trace *out, stage_at at, const dim &t,
                   const dim &tkv, const linear_bias *bias = nullptr, const char *q_name = "Q");

// 7–8: the concat of the heads, then W_O when c.output_projection, recorded with each head's
// share of the output. concat: (T, H·DV) → (T, D), or without W_O the concat itself (recorded
// as the last stage when H > 1); heads: the H × (T, DV) it joins, recorded as its operands (may
// be empty without a trace).
matrix combine(matrix concat, const std::vector<shared_matrix> &heads, const matrix &w_o,
               const attention_config &c, trace *out, stage_at at, const dim &t);

} // namespace attention
