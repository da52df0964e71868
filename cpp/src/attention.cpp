#include "attention/attention.hpp"

#include <algorithm>
#include <optional>

#include "attention/alibi.hpp"
#include "attention/encoding.hpp"
#include "attention/gemm.hpp"
#include "attention/mask.hpp"
#include "attention/ops.hpp"
#include "attention/passes.hpp"
#include "attention/rope.hpp"

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

// The matrices one traced head pass makes, each its own: S, then S̃ and L a row at a time
// (the weights go into the pass's own matrix). Each is recorded once and shared with the
// stages that read it.
struct head_stages {
    head_trace &t;
    const linear_bias *bias;
    matrix scores, scaled, biased, masked; // (T, T_kv); biased with ALiBi, masked with a mask

    head_stages(head_trace &trace, const linear_bias *b, std::size_t r, std::size_t n)
        : t(trace), bias(b), scores({r, n}), scaled({r, n}), biased(b ? matrix({r, n}) : matrix()),
          masked(t.mask.size() ? matrix({r, n}) : matrix()) {}

    // Row i of S̃ + B, from row i of S̃. → that row.
    double *add_bias(std::size_t i) {
        for (std::size_t j = 0; j < cols(biased); ++j)
            biased(i, j) = scaled(i, j) + bias->at(i, j);
        return &biased(i, 0);
    }

    // Row i of L = (S̃ or S̃ + B) + M. → that row.
    double *add_mask(std::size_t i, const double *row) {
        for (std::size_t j = 0; j < cols(masked); ++j)
            masked(i, j) = row[j] + t.mask(i, j);
        return &masked(i, 0);
    }

    // K and V are named after the k and v stages they come from: the group's first query head.
    int kv_owner(const attention_config &c) const {
        return t.at.kv_head == no_head ? t.at.head : t.at.kv_head * int(group_size(c));
    }
};

// Records scores, scaled, masked (with a mask) and weights, then the head's output. The
// weights move into the trace.
void record_head(head_stages &s, matrix &weights, output_view head, const attention_config &c) {
    const named_dims n(c);
    head_trace &t = s.t;
    const shared_matrix scores = std::move(s.scores);
    record(&t.out, stage_id::scores, t.at, {t.t, n.dk, t.tkv}, scores,
           operand{t.q_name, t.at.head, t.q, axes_of(t.t, n.dk)},
           operand{t.k_name, s.kv_owner(c), t.k, axes_of(t.tkv, n.dk)});
    shared_matrix logits = std::move(s.scaled);
    record(&t.out, stage_id::scaled, t.at, {t.t, t.tkv, n.dk}, logits,
           operand{name_of(stage_id::scores), t.at.head, scores, axes_of(t.t, t.tkv)});
    stage_id logits_stage = stage_id::scaled;
    if (s.bias) {
        const shared_matrix scaled = logits;
        logits = std::move(s.biased);
        record(&t.out, stage_id::biased, t.at, {t.t, t.tkv}, logits,
               operand{name_of(stage_id::scaled), t.at.head, scaled, axes_of(t.t, t.tkv)},
               operand{"B", t.at.head, bias_matrix(*s.bias, t.t.size, t.tkv.size),
                       axes_of(t.t, t.tkv)});
        logits_stage = stage_id::biased;
    }
    if (t.mask.size()) {
        const shared_matrix before = logits;
        logits = std::move(s.masked);
        record(&t.out, stage_id::masked, t.at, {t.t, t.tkv}, logits,
               operand{name_of(logits_stage), t.at.head, before, axes_of(t.t, t.tkv)},
               operand{"M", no_head, t.mask, axes_of(t.t, t.tkv)});
        logits_stage = stage_id::masked;
    }
    const shared_matrix a = std::move(weights);
    record(&t.out, stage_id::weights, t.at, {t.t, t.tkv}, a,
           operand{name_of(logits_stage), t.at.head, logits, axes_of(t.t, t.tkv)});
    matrix h({head.rows, head.cols}); // (T, DV)
    for (std::size_t i = 0; i < head.rows; ++i)
        std::copy(head.data + i * head.ld, head.data + i * head.ld + head.cols, &h(i, 0));
    record(&t.out, stage_id::head, t.at, {t.t, t.tkv, n.dv}, std::move(h),
           operand{name_of(stage_id::weights), t.at.head, a, axes_of(t.t, t.tkv)},
           operand{"V", s.kv_owner(c), t.v, axes_of(t.tkv, n.dv)});
}

// One head's columns [first, first + n) of a projection made for every head at once.
matrix_view head_columns(const matrix &all, std::size_t first, std::size_t n) {
    return {all.data() + first, rows(all), n, cols(all)};
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

// Records head i's q and, for the first query head of its group, its K/V head's k and v: each
// head's columns of the projections made for every head at once.
void record_projections(const attention_params &p, const attention_config &c, std::size_t i,
                        const shared_matrix &x, const shared_matrix &x_kv, const matrix &q_all,
                        const matrix &k_all, const matrix &v_all, head_trace &t) {
    const named_dims n(c);
    const bool cross = c.kind == problem_kind::cross;
    const char *source = c.sinusoidal ? "x_pos" : "X";
    const std::size_t g = i / group_size(c);
    t.q = columns_of(q_all, i * c.d_k, c.d_k);
    record_projection(stage_id::q, t.q, x, cross ? "X_q" : source, n.t, p.w_q[i], "W_Q", n.dk, c,
                      &t.out, t.at);
    if (i % group_size(c) != 0)
        return; // k and v were recorded with the group's first query head
    t.k = columns_of(k_all, g * c.d_k, c.d_k);
    t.v = columns_of(v_all, g * c.d_v, c.d_v);
    record_projection(stage_id::k, t.k, x_kv, cross ? "X_kv" : source, n.tkv, p.w_k[g], "W_K", n.dk,
                      c, &t.out, t.at);
    record_projection(stage_id::v, t.v, x_kv, cross ? "X_kv" : source, n.tkv, p.w_v[g], "W_V", n.dv,
                      c, &t.out, t.at);
}

// The first stage `id` the trace holds (its head 0's).
const stage &first_of(const trace &t, stage_id id) {
    return *std::find_if(t.stages.begin(), t.stages.end(),
                         [&](const stage &s) { return s.id == id; });
}

// 1½. One head's queries (q_rot) or its K/V head's keys (k_rot) turned by position, into
// `turned`; traced, the scores then read the turned ones. x: (P, DK).
void turn(stage_id id, matrix_view x, const rope_table &table, const attention_config &c,
          head_trace *rec, shared_matrix &turned) {
    const bool keys = id == stage_id::k_rot;
    if (!rec) {
        turned = rotated(x, table, *c.rope);
        return;
    }
    turned = rotate_recorded(id, keys ? rec->k : rec->q, keys ? "K" : "Q", table, c, &rec->out,
                             rec->at, keys ? rec->tkv : rec->t);
    (keys ? rec->k : rec->q) = turned;
    (keys ? rec->k_name : rec->q_name) = name_of(id);
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

void attend_head(matrix_view q, matrix_view k, matrix_view v, const row_spans &keys,
                 const attention_config &c, matrix &weights, output_view head, head_trace *rec,
                 const linear_bias *bias) {
    const std::size_t n_keys = k.rows;
    std::optional<head_stages> staged; // traced: S, S̃, S̃ + B and L each kept; else all in `weights`
    if (rec)
        staged.emplace(*rec, bias, q.rows, n_keys);
    const row_spans every = rec ? all_keys(q.rows, n_keys) : row_spans();
    const row_spans &computed = rec ? every : keys; // a trace shows the hidden scores too
    matrix &s = staged ? staged->scores : weights;  // (T, T_kv)
    // 2. Score every query against every key it may see: S = Q·Kᵀ.
    gemm_bt_spans(q.rows, q.cols, n_keys, q.data, q.ld, k.data, k.ld, s.data(), n_keys, computed);
    for (std::size_t i = 0; i < q.rows; ++i) { // 3–5 a row at a time, while it is in cache
        const key_span all = computed[i];
        double *row = staged ? &staged->scaled(i, 0) : &s(i, 0);
        // 3. S̃ = S / √DK: with independent components of mean 0 and variance 1, q·k has
        // variance DK; dividing by √DK brings it back to 1.
        divide_row(&s(i, all.begin), all.end - all.begin, score_divisor(c), row + all.begin);
        // 3½. ALiBi: + B, a penalty that grows with the distance from query to key.
        if (bias && staged)
            row = staged->add_bias(i);
        else if (bias)
            for (std::size_t j = all.begin; j < all.end; ++j)
                row[j] += bias->at(i, j);
        // 4. L = S̃ + M: −∞ where a key is hidden, which the softmax turns into exactly 0.
        if (staged && rec->mask.size())
            row = staged->add_mask(i, row);
        // 5. A = softmax(L): each row's weights over the keys its query sees, summing to 1.
        softmax_span(row, &weights(i, 0), n_keys, keys[i]);
    }
    // 6. H = A·V: each output row is a weighted average of the value rows.
    gemm_spans(q.rows, n_keys, v.cols, weights.data(), n_keys, v.data, v.ld, head.data, head.ld,
               keys);
    if (staged)
        record_head(*staged, weights, head, c);
}

head_result attend(const matrix &q, const matrix &k, const matrix &v, const row_spans &keys,
                   bool masked, const attention_config &c, trace *out, stage_at at, const dim &t,
                   const dim &tkv, const linear_bias *bias, const char *q_name) {
    head_result r{matrix({rows(q), cols(v)}), matrix({rows(q), rows(k)})}; // (T, DV), (T, T_kv)
    std::optional<head_trace> rec;
    if (out)
        rec.emplace(head_trace{*out, at, t, tkv, q, k, v,
                               masked ? mask_of(keys, rows(k)) : matrix(), q_name});
    attend_head(view_of(q), view_of(k), view_of(v), keys, c, r.weights,
                {r.output.data(), rows(q), cols(v), cols(v)}, rec ? &*rec : nullptr, bias);
    if (rec) // the weights moved into the trace: the weights stage, just before the head's
        r.weights = out->stages[out->stages.size() - 2].values;
    return r;
}

head_result self_attention(const matrix &x, const matrix &w_q, const matrix &w_k, const matrix &w_v,
                           const attention_config &c, trace *out, int head) {
    const named_dims n(c);
    const stage_at at{head, no_head, no_step, {}}; // one head on its own: no K/V grouping
    // 1. Project every token to a query, a key and a value.
    const matrix q = project(stage_id::q, x, "X", n.t, w_q, "W_Q", n.dk, c, out, at); // (T, DK)
    const matrix k = project(stage_id::k, x, "X", n.t, w_k, "W_K", n.dk, c, out, at); // (T, DK)
    const matrix v = project(stage_id::v, x, "X", n.t, w_v, "W_V", n.dv, c, out, at); // (T, DV)
    return attend(q, k, v, visible_spans(c), has_mask(c), c, out, at, n.t, n.tkv);
}

// Passes 1–8. 1: Q, K and V of every head from one product each, X · [W_1 | … | W_H] (each
// entry is summed exactly as in its own head's product, so each head's columns are the bits of
// its own projection). 2–6 for every query head in its own subspace, K and V read by the whole
// group; each head's output written straight into its columns of the concat. Then 7–8.
matrix multi_head_attention(const attention_params &p, const attention_config &c, trace *out) {
    const named_dims n(c);
    // ½. X + PE when the positions are encoded into X itself (the projections then read it).
    const matrix pe = c.sinusoidal ? sinusoidal_encoding(0, c.seq_len, c.d_model) : matrix();
    const matrix positioned = c.sinusoidal ? matrix(p.x + pe) : matrix();
    const matrix &x = c.sinusoidal ? positioned : p.x;               // (T, D)
    const matrix &x_kv = c.kind == problem_kind::cross ? p.x_kv : x; // (T_kv, D)
    std::pair<shared_matrix, shared_matrix> inputs;
    if (out) {
        out->config = c;
        inputs = record_inputs(p, c, *out);
        if (c.sinusoidal) {
            inputs.first = inputs.second = positioned;
            record(out, stage_id::x_pos, {}, {n.t, n.d}, inputs.first,
                   operand{"X", no_head, p.x, axes_of(n.t, n.d)},
                   operand{"PE", no_head, pe, axes_of(n.t, n.d)});
        }
    }
    const matrix q_all = matmul(x, concat_columns(p.w_q));    // (T, H·DK)
    const matrix k_all = matmul(x_kv, concat_columns(p.w_k)); // (T_kv, H_kv·DK)
    const matrix v_all = matmul(x_kv, concat_columns(p.w_v)); // (T_kv, H_kv·DV)
    const row_spans keys = visible_spans(c);
    matrix logits({c.seq_len, c.kv_len});            // (T, T_kv), one head's at a time
    matrix concat({c.seq_len, c.num_heads * c.d_v}); // (T, H·DV)
    std::optional<head_trace> rec;
    if (out)
        rec.emplace(head_trace{
            *out, {}, n.t, n.tkv, {}, {}, {}, has_mask(c) ? mask_of(keys, c.kv_len) : matrix()});
    std::vector<shared_matrix> heads; // H × (T, DV), for the trace
    const std::optional<rope_table> turns =
        c.rope ? std::optional(rope_table_of(*c.rope, 0, c.seq_len)) : std::nullopt;
    shared_matrix q_turned;                              // (T, DK) under RoPE, one head's at a time
    std::vector<shared_matrix> k_turned(c.num_kv_heads); // (T_kv, DK) per K/V head
    for (std::size_t i = 0; i < c.num_heads; ++i) {
        const std::size_t g = i / group_size(c);
        const output_view head{concat.data() + i * c.d_v, c.seq_len, c.d_v, cols(concat)};
        if (rec) {
            logits = matrix({c.seq_len, c.kv_len}); // the last head's weights moved into the trace
            rec->at = {int(i), int(g), no_step, {}};
            record_projections(p, c, i, inputs.first, inputs.second, q_all, k_all, v_all, *rec);
        }
        matrix_view q = head_columns(q_all, i * c.d_k, c.d_k),
                    k = head_columns(k_all, g * c.d_k, c.d_k);
        if (turns) { // 1½. Turn each query and key by its position; the scores read them.
            turn(stage_id::q_rot, q, *turns, c, rec ? &*rec : nullptr, q_turned);
            if (i % group_size(c) == 0)
                turn(stage_id::k_rot, k, *turns, c, rec ? &*rec : nullptr, k_turned[g]);
            q = view_of(q_turned), k = view_of(k_turned[g]);
        }
        const linear_bias bias = c.alibi ? alibi_of(c, i) : linear_bias{};
        attend_head(q, k, head_columns(v_all, g * c.d_v, c.d_v), keys, c, logits, head,
                    rec ? &*rec : nullptr, c.alibi ? &bias : nullptr);
        if (rec)
            heads.push_back(out->stages.back().values); // the head stage just recorded
    }
    if (out && c.rope) // its promise, checked on head 0
        out->checks.rope_shift =
            rope_shift(head_columns(q_all, 0, c.d_k), head_columns(k_all, 0, c.d_k), c);
    if (out && c.alibi)
        out->checks.alibi_row_shift =
            alibi_row_shift(first_of(*out, stage_id::scaled).values, alibi_of(c, 0), keys);
    return combine(std::move(concat), heads, p.w_o, c, out, {}, n.t);
}

// x or x_q and x_kv, then passes 1–8 for every head (value counts beside each pass).
std::size_t attention_values(const attention_config &c) {
    const std::size_t t = c.seq_len, tkv = c.kv_len, d = c.d_model;
    std::size_t total = t * d + (c.kind == problem_kind::cross ? tkv * d : 0); // x or x_q, x_kv
    if (c.sinusoidal)
        total += 3 * t * d; // x_pos, X, PE
    total += c.num_heads * projection_values(t, d, c.d_k);
    total += c.num_kv_heads * (projection_values(tkv, d, c.d_k) + projection_values(tkv, d, c.d_v));
    if (c.rope) // q_rot per query head, k_rot per K/V head
        total += c.num_heads * rope_values(c, t) + c.num_kv_heads * rope_values(c, tkv);
    total += c.num_heads * head_values(c, t, tkv, has_mask(c), c.alibi);
    return total + combine_values(c, t);
}

std::size_t projection_values(std::size_t r, std::size_t k, std::size_t n) {
    return r * n + r * k + k * n;
}

std::size_t head_values(const attention_config &c, std::size_t r, std::size_t n, bool masked,
                        bool biased) {
    const std::size_t rn = r * n;
    std::size_t total = rn + r * c.d_k + n * c.d_k; // scores, Q, K
    total += 2 * rn;                                // scaled, scores
    if (biased)
        total += 3 * rn; // biased, scaled, B
    if (masked)
        total += 3 * rn;                       // masked, scaled, M
    total += 2 * rn + r;                       // weights, logits, row totals
    return total + r * c.d_v + rn + n * c.d_v; // head, weights, V
}

} // namespace attention
