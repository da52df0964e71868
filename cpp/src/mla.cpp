#include "attention/mla.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <xtensor/xmath.hpp>

#include "attention/heads.hpp"
#include "attention/mask.hpp"
#include "attention/ops.hpp"
#include "attention/passes.hpp"
#include "attention/rope.hpp"

namespace attention {

namespace {

// RoPE(x · w): the decoupled part of a query or of the shared key, recorded as `id` when traced,
// with x · w, RoPE's tables, then x and w. x: (T, D), w: (D, DR) → (T, DR).
shared_matrix rope_part(stage_id id, const matrix &x, const matrix &w, const char *w_name,
                        const rope_table &turns, const attention_config &c, trace *out,
                        stage_at at) {
    const shared_matrix projected = matmul(x, w); // (T, DR)
    const shared_matrix turned = rotated(view_of(projected), turns, *c.rope);
    if (!out)
        return turned;
    const dim t{c.seq_len, "T"}, dr{c.d_rope, "d_r"}, pairs{c.d_rope / 2, "d/2"}, one{1, "1"},
        two{2, "2"}, d{c.d_model, "d_model"};
    const std::string product = std::string("X·") + w_name;
    record(out, id, at, {t, dr, pairs, one, two, d}, turned,
           operand{product, at.head, projected, axes_of(t, dr)}, table_operands(turns, t),
           operand{"X", no_head, x, axes_of(t, d)}, operand{w_name, at.head, w, axes_of(d, dr)});
    return turned;
}

// What every head reads, made once (the latent, the shared RoPE key, RoPE's angles), and one
// head's operands at a time, each head's q and k wide enough for both terms of its scores.
struct latent_reader {
    const attention_params &p;
    const attention_config &c;
    trace *out;
    std::optional<rope_table> turns; // RoPE over positions 0 … T − 1, when DR > 0
    shared_matrix c_kv, k_rope;      // (T, DC), (T, DR)
    latent_parts parts;              // the head's, as its scores and output read them
    matrix q_wide, k_wide;           // (T, DK + DR): [q | q_rope], [k | k_rope]
    shared_matrix v;                 // (T, DV)

    // Head i's q (and q_rope), its k and v up from the latent, and q_absorbed; recorded in
    // that order when traced. q · kᵀ + q_rope · k_ropeᵀ is one product of the wide rows.
    head_operands read(std::size_t i, head_trace *rec) {
        const dim t{c.seq_len, "T"}, d{c.d_model, "d_model"}, dk{c.d_k, "d_k"}, dv{c.d_v, "d_v"},
            dc{c.d_latent, "d_c"};
        const latent_params &w = p.latent;
        const shared_matrix q = matmul(p.x, p.w_q[i]);      // (T, DK)
        const shared_matrix k = matmul(c_kv, w.w_uk[i]);    // (T, DK)
        v = matmul(c_kv, w.w_uv[i]);                         // (T, DV)
        if (rec)
            record(&rec->out, stage_id::q, rec->at, {t, d, dk}, q,
                   operand{"X", no_head, p.x, axes_of(t, d)},
                   operand{"W_Q", int(i), p.w_q[i], axes_of(d, dk)});
        const shared_matrix q_rope = c.d_rope ? rope_part(stage_id::q_rope, p.x, w.w_qr[i], "W_QR",
                                                          *turns, c, rec ? out : nullptr,
                                                          rec ? rec->at : stage_at{})
                                              : shared_matrix();
        q_wide = c.d_rope ? concat_columns({q, q_rope}) : q.get();
        k_wide = c.d_rope ? concat_columns({k, k_rope}) : k.get();
        if (!rec)
            return {view_of(q_wide), view_of(k_wide), view_of(v.get())};
        record(out, stage_id::k, rec->at, {t, dc, dk}, k,
               operand{name_of(stage_id::c_kv), no_head, c_kv, axes_of(t, dc)},
               operand{"W_UK", int(i), w.w_uk[i], axes_of(dc, dk)});
        record(out, stage_id::v, rec->at, {t, dc, dv}, v,
               operand{name_of(stage_id::c_kv), no_head, c_kv, axes_of(t, dc)},
               operand{"W_UV", int(i), w.w_uv[i], axes_of(dc, dv)});
        const shared_matrix absorbed = matmul_bt(q, w.w_uk[i]); // (T, DC)
        record(out, stage_id::q_absorbed, rec->at, {t, dk, dc}, absorbed,
               operand{"Q", int(i), q, axes_of(t, dk)},
               operand{"W_UK", int(i), w.w_uk[i], axes_of(dc, dk)});
        rec->q = q, rec->k = k, rec->v = v;
        rec->q_name = "Q", rec->k_name = "K";
        parts = {c_kv, k_rope, q_rope, absorbed, w.w_uv[i]};
        rec->latent = &parts;
        return {view_of(q_wide), view_of(k_wide), view_of(v.get())};
    }
};

const matrix &operand_named(const stage &s, const char *name) {
    return std::find_if(s.operands.begin(), s.operands.end(),
                        [&](const operand &o) { return o.name == name; })
        ->values.get();
}

double largest_difference(const matrix &a, const matrix &b) {
    return xt::amax(xt::abs(a - b))();
}

// The absorbed path against the stages: per head, q_absorbed · c_kvᵀ + q_rope · k_ropeᵀ against
// its scores, and latent_head · W_UV against its head. → the largest |Δ|.
double absorbed_difference(const trace &t) {
    double worst = 0.0;
    for (const stage &s : t.stages) {
        if (s.id == stage_id::scores) {
            matrix through_latent = matmul_bt(operand_named(s, "q_absorbed"), operand_named(s, "c_kv"));
            if (t.config.d_rope)
                through_latent += matmul_bt(operand_named(s, "q_rope"), operand_named(s, "k_rope"));
            worst = std::max(worst, largest_difference(through_latent, s.values));
        } else if (s.id == stage_id::head) {
            const matrix up = matmul(operand_named(s, "latent_head"), operand_named(s, "W_UV"));
            worst = std::max(worst, largest_difference(up, s.values));
        }
    }
    return worst;
}

} // namespace

matrix latent_attention(const attention_params &p, const attention_config &c, trace *out) {
    const dim t{c.seq_len, "T"}, d{c.d_model, "d_model"}, dc{c.d_latent, "d_c"};
    if (out)
        out->config = c;
    latent_reader r{p, c, out, std::nullopt, matmul(p.x, p.latent.w_dkv), {}, {}, {}, {}, {}};
    if (out) {
        record(out, stage_id::x, {}, {t, d}, p.x);
        record(out, stage_id::c_kv, {}, {t, d, dc}, r.c_kv, operand{"X", no_head, p.x, axes_of(t, d)},
               operand{"W_DKV", no_head, p.latent.w_dkv, axes_of(d, dc)});
    }
    if (c.d_rope) {
        r.turns = rope_table_of(*c.rope, 0, c.seq_len);
        r.k_rope = rope_part(stage_id::k_rope, p.x, p.latent.w_kr, "W_KR", *r.turns, c, out, {});
    }
    const row_spans keys = visible_spans(c);
    const matrix result =
        attend_heads([&](std::size_t i, head_trace *rec) { return r.read(i, rec); }, p.w_o, c,
                     {keys, t, t, 0, no_step, out, nullptr});
    if (out)
        out->checks.absorbed_difference = absorbed_difference(*out);
    return result;
}

latent_cache_floats latent_cache(const attention_config &c) {
    latent_cache_floats f{c.d_latent + c.d_rope, c.num_heads * (c.d_k + c.d_v), {}};
    for (std::size_t kv = 1; kv < c.num_heads; ++kv)
        if (c.num_heads % kv == 0)
            f.gqa.push_back({kv, kv * (c.d_k + c.d_v)});
    return f;
}

} // namespace attention
