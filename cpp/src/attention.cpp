#include "attention/attention.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <xtensor/xmath.hpp>

#include "attention/alibi.hpp"
#include "attention/encoding.hpp"
#include "attention/gemm.hpp"
#include "attention/heads.hpp"
#include "attention/mask.hpp"
#include "attention/ops.hpp"
#include "attention/passes.hpp"
#include "attention/qk_norm.hpp"
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

// One head's columns [first, first + n) of a projection made for every head at once.
matrix_view head_columns(const matrix &all, std::size_t first, std::size_t n) {
    return {all.data() + first, rows(all), n, cols(all)};
}

// The inputs, each recorded once and shared by the projections that read it: X (X_q, X_kv).
void record_inputs(const shared_matrix &x, const shared_matrix &x_kv, const attention_config &c,
                   trace &out) {
    const named_dims n(c);
    if (c.kind != problem_kind::cross) {
        record(&out, stage_id::x, {}, {n.t, n.d}, x);
        return;
    }
    record(&out, stage_id::x_q, {}, {n.t, n.d}, x);
    record(&out, stage_id::x_kv, {}, {n.tkv, n.d}, x_kv);
}

// Records head i's q and, for the first query head of its group, its K/V head's k and v: each
// head's columns of the projections made for every head at once.
void record_projections(const attention_params &p, const attention_config &c, std::size_t i,
                        const shared_matrix &x, const shared_matrix &x_kv, const matrix &q_all,
                        const matrix &k_all, const matrix &v_all, head_trace &t) {
    const named_dims n(c);
    const bool cross = c.kind == problem_kind::cross;
    const char *source = c.sinusoidal ? name_of(stage_id::x_pos) : "X";
    const std::size_t g = i / group_size(c);
    t.q = columns_of(q_all, i * c.d_k, c.d_k);
    t.q_name = "Q"; // until QK-norm or RoPE passes it on
    record_projection(stage_id::q, t.q, x, cross ? "X_q" : source, n.t, p.w_q[i], "W_Q", n.dk, c,
                      &t.out, t.at);
    if (i % group_size(c) != 0)
        return; // k and v were recorded with the group's first query head
    t.k = columns_of(k_all, g * c.d_k, c.d_k);
    t.k_name = "K";
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

// 1¼. QK-norm: one head's queries (q_norm) or its K/V head's keys (k_norm) RMS-normalised, into
// `normed`; traced, what follows then reads the normalised ones. x: (P, DK).
void normalise(stage_id id, matrix_view x, const attention_config &c, head_trace *rec,
               shared_matrix &normed) {
    const bool keys = id == stage_id::k_norm;
    const std::vector<double> &gain = keys ? c.k_norm_gain : c.q_norm_gain;
    if (!rec) {
        normed = rms_normed(x, gain);
        return;
    }
    normed = rms_norm_recorded(id, keys ? rec->k : rec->q, keys ? rec->k_name : rec->q_name, gain,
                               c, &rec->out, rec->at, keys ? rec->tkv : rec->t);
    (keys ? rec->k : rec->q) = normed;
    (keys ? rec->k_name : rec->q_name) = name_of(id);
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
    turned = rotate_recorded(id, keys ? rec->k : rec->q, keys ? rec->k_name : rec->q_name, table,
                             c, &rec->out, rec->at, keys ? rec->tkv : rec->t);
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

namespace {

// The sources of every head's q, k and v in self- and cross-attention: one product each for all
// heads at once, X · [W_1 | … | W_H] (each entry summed exactly as in its own head's product, so
// each head's columns are the bits of its own projection), then RMS-normalised under QK-norm and
// turned by position under RoPE.
struct projections {
    const attention_params &w;
    const attention_config &c;
    matrix q_all, k_all, v_all;          // (T, H·DK), (T_kv, H_kv·DK), (T_kv, H_kv·DV)
    std::optional<rope_table> turns;     // RoPE: the angles of positions 0 … T − 1
    shared_matrix x, x_kv;               // the inputs as the trace holds them
    shared_matrix q_normed;              // (T, DK) under QK-norm, one head's at a time
    std::vector<shared_matrix> k_normed; // (T_kv, DK) per K/V head under QK-norm
    shared_matrix q_turned;              // (T, DK) under RoPE, one head's at a time
    std::vector<shared_matrix> k_turned; // (T_kv, DK) per K/V head under RoPE

    // Query head i's q, and its group's k and v, recorded, normalised and turned with the group's
    // first head.
    head_operands read(std::size_t i, head_trace *rec) {
        const std::size_t g = i / group_size(c);
        if (rec)
            record_projections(w, c, i, x, x_kv, q_all, k_all, v_all, *rec);
        head_operands h{head_columns(q_all, i * c.d_k, c.d_k),
                        head_columns(k_all, g * c.d_k, c.d_k),
                        head_columns(v_all, g * c.d_v, c.d_v)};
        if (c.qk_norm) { // 1¼. Each query and key row to mean square 1, times its gain.
            normalise(stage_id::q_norm, h.q, c, rec, q_normed);
            if (i % group_size(c) == 0)
                normalise(stage_id::k_norm, h.k, c, rec, k_normed[g]);
            h.q = view_of(q_normed), h.k = view_of(k_normed[g]);
        }
        if (!turns)
            return h;
        // 1½. Turn each query and key by its position; the scores read them.
        turn(stage_id::q_rot, h.q, *turns, c, rec, q_turned);
        if (i % group_size(c) == 0)
            turn(stage_id::k_rot, h.k, *turns, c, rec, k_turned[g]);
        h.q = view_of(q_turned), h.k = view_of(k_turned[g]);
        return h;
    }
};

// ½. X + PE when the positions are encoded into X itself (the projections then read it),
// recorded with the inputs. → X or X + PE (T, D), and X_kv.
std::pair<shared_matrix, shared_matrix> inputs_of(const matrix &x_given, const attention_params &w,
                                                  const attention_config &c, trace *out) {
    const named_dims n(c);
    const bool cross = c.kind == problem_kind::cross;
    shared_matrix x = x_given, x_kv = cross ? shared_matrix(w.x_kv) : x; // (T, D), (T_kv, D)
    if (out)
        record_inputs(x, x_kv, c, *out);
    if (!c.sinusoidal)
        return {x, x_kv};
    const matrix pe = sinusoidal_encoding(0, c.seq_len, c.d_model); // (T, D)
    const shared_matrix positioned = matrix(*x + pe);
    if (out)
        record(out, stage_id::x_pos, {}, {n.t, n.d}, positioned,
               operand{"X", no_head, x, axes_of(n.t, n.d)},
               operand{"PE", no_head, pe, axes_of(n.t, n.d)});
    return {positioned, positioned};
}

// What the run checks about its positions: RoPE's shift on head 0's q and k, ALiBi's row
// constants on head 0's S̃.
void check_positions(const projections &p, const attention_config &c, const row_spans &keys,
                     trace &out) {
    if (c.rope && c.qk_norm) // RoPE turns the normalised rows
        out.checks.rope_shift =
            rope_shift(view_of(rms_normed(head_columns(p.q_all, 0, c.d_k), c.q_norm_gain)),
                       view_of(rms_normed(head_columns(p.k_all, 0, c.d_k), c.k_norm_gain)), c);
    else if (c.rope)
        out.checks.rope_shift =
            rope_shift(head_columns(p.q_all, 0, c.d_k), head_columns(p.k_all, 0, c.d_k), c);
    if (c.alibi)
        out.checks.alibi_row_shift =
            alibi_row_shift(first_of(out, stage_id::scaled).values, alibi_of(c, 0), keys);
}

// What the soft cap changed: per query head, the largest |Δ| between its weights and the softmax of
// its logits uncapped (S̃, masked as the head's were).
std::vector<double> softcap_change(const trace &t, const row_spans &keys) {
    std::vector<const stage *> scaled, weights; // per query head, in head order
    for (const stage &s : t.stages)
        if (s.id == stage_id::scaled)
            scaled.push_back(&s);
        else if (s.id == stage_id::weights)
            weights.push_back(&s);
    std::vector<double> out;
    for (std::size_t h = 0; h < scaled.size(); ++h) {
        const matrix &s = scaled[h]->values, &a = weights[h]->values; // (T, T_kv) each
        std::vector<double> uncapped(cols(s));
        double worst = 0.0;
        for (std::size_t i = 0; i < rows(s); ++i) {
            softmax_span(&s(i, 0), uncapped.data(), cols(s), keys[i]);
            for (std::size_t j = 0; j < cols(s); ++j)
                worst = std::max(worst, std::fabs(uncapped[j] - a(i, j)));
        }
        out.push_back(worst);
    }
    return out;
}

// Per query head, the largest |S̃| its scaled stage holds, which QK-norm keeps within its bound.
std::vector<double> largest_logits(const trace &t) {
    std::vector<double> out;
    for (const stage &s : t.stages)
        if (s.id == stage_id::scaled)
            out.push_back(xt::amax(xt::abs(s.values.get()))());
    return out;
}

// Per query head, the largest |S̃| the same q and k would give without QK-norm (turned, under
// RoPE): what the norm bounded.
std::vector<double> largest_unnormed(const projections &p, const attention_config &c) {
    std::vector<double> out;
    for (std::size_t i = 0; i < c.num_heads; ++i) {
        matrix q = columns_of(p.q_all, i * c.d_k, c.d_k);                      // (T, DK)
        matrix k = columns_of(p.k_all, i / group_size(c) * c.d_k, c.d_k);      // (T_kv, DK)
        if (p.turns) {
            q = rotated(view_of(q), *p.turns, *c.rope);
            k = rotated(view_of(k), *p.turns, *c.rope);
        }
        out.push_back(xt::amax(xt::abs(matmul_bt(q, k)))() / score_divisor(c));
    }
    return out;
}

} // namespace

// Passes 1–8: the inputs and their projections, then every head (heads.hpp).
matrix multi_head_attention(const matrix &x, const attention_params &w, const attention_config &c,
                            trace *out, attention_cache *keep) {
    const named_dims n(c);
    if (out)
        out->config = c;
    const auto [input, input_kv] = inputs_of(x, w, c, out);
    std::optional<rope_table> turns;
    if (c.rope)
        turns = rope_table_of(*c.rope, 0, c.seq_len);
    projections p{w,
                  c,
                  matmul(input, concat_columns(w.w_q)),
                  matmul(input_kv, concat_columns(w.w_k)),
                  matmul(input_kv, concat_columns(w.w_v)),
                  std::move(turns),
                  input,
                  input_kv,
                  {},
                  std::vector<shared_matrix>(c.num_kv_heads),
                  {},
                  std::vector<shared_matrix>(c.num_kv_heads)};
    if (keep) {
        keep->x = input;
        if (p.turns)
            keep->back = turned_back(*p.turns);
    }
    const row_spans keys = visible_spans(c);
    const matrix result =
        attend_heads([&](std::size_t i, head_trace *rec) { return p.read(i, rec); }, w.w_o, c,
                     {keys, n.t, n.tkv, 0, no_step, out, keep});
    if (out)
        check_positions(p, c, keys, *out);
    if (out && c.softcap)
        out->checks.softcap_change = softcap_change(*out, keys);
    if (out && c.qk_norm) {
        out->checks.qk_norm_bound = qk_norm_bound(c);
        out->checks.qk_norm_largest = largest_logits(*out);
        out->checks.qk_norm_without = largest_unnormed(p, c);
    }
    return result;
}

matrix multi_head_attention(const attention_params &p, const attention_config &c, trace *out) {
    return multi_head_attention(p.x, p, c, out);
}

} // namespace attention
