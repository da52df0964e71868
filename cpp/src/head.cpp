// Passes 2–6 of one head, the lesson's in its order: scores, scale, soft cap, bias (ALiBi), mask,
// softmax, weighted values; and the stages they record. T = query rows, T_kv = keys.
#include "attention/passes.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "attention/alibi.hpp"
#include "attention/gemm.hpp"
#include "attention/mask.hpp"
#include "attention/ops.hpp"

namespace attention {

namespace {

// The matrices one traced head pass makes, each its own: S, then S̃ and L a row at a time
// (the weights go into the pass's own matrix). Each is recorded once and shared with the
// stages that read it.
struct head_stages {
    head_trace &t;
    const linear_bias *bias;
    // (T, T_kv); capped with a soft cap, biased with ALiBi, masked with a mask
    matrix scores, scaled, capped, biased, masked;
    matrix sink; // (T, 1): each row's share on the sink, with one

    head_stages(head_trace &trace, const linear_bias *b, bool cap, bool has_sink, std::size_t r,
                std::size_t n)
        : t(trace), bias(b), scores({r, n}), scaled({r, n}), capped(cap ? matrix({r, n}) : matrix()),
          biased(b ? matrix({r, n}) : matrix()), masked(t.mask.size() ? matrix({r, n}) : matrix()),
          sink(has_sink ? matrix({r, 1}) : matrix()) {}

    // Row i of κ·tanh(S̃ / κ), from row i of S̃. → that row.
    double *cap(std::size_t i, double kappa) {
        soft_cap_row(&scaled(i, 0), cols(capped), kappa, &capped(i, 0));
        return &capped(i, 0);
    }

    // Row i of (S̃ or its cap) + B, from that row. → the new row.
    double *add_bias(std::size_t i, const double *row) {
        for (std::size_t j = 0; j < cols(biased); ++j)
            biased(i, j) = row[j] + bias->at(i, j);
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

// The scores' dims: T, DK, T_kv, then MLA's DR and DC (empty elsewhere, which drops the RoPE
// term from the equation).
std::vector<dim> score_dims(const head_trace &t, const attention_config &c) {
    const bool mla = t.latent != nullptr;
    return {t.t, named_dims(c).dk, t.tkv, {mla ? c.d_rope : 0, "d_r"}, {mla ? c.d_latent : 0, "d_c"}};
}

// MLA's further operands of the scores: its RoPE parts (when DR > 0), and q_absorbed and c_kv,
// whose product is q·kᵀ again, reached through the latent.
std::vector<operand> latent_score_operands(const head_trace &t, const attention_config &c) {
    std::vector<operand> out;
    if (!t.latent)
        return out;
    const latent_parts &l = *t.latent;
    const dim dr{c.d_rope, "d_r"}, dc{c.d_latent, "d_c"};
    if (c.d_rope) {
        out.push_back({name_of(stage_id::q_rope), t.at.head, l.q_rope, axes_of(t.t, dr)});
        out.push_back({name_of(stage_id::k_rope), no_head, l.k_rope, axes_of(t.tkv, dr)});
    }
    out.push_back({name_of(stage_id::q_absorbed), t.at.head, l.q_absorbed, axes_of(t.t, dc)});
    out.push_back({name_of(stage_id::c_kv), no_head, l.c_kv, axes_of(t.tkv, dc)});
    return out;
}

// Records scores, scaled, capped, biased, masked (each when applied), weights and the sink's share
// (with a sink ζ), then the head's output. The weights move into the trace.
void record_head(head_stages &s, matrix &weights, output_view head, const attention_config &c,
                 const double *zeta) {
    const named_dims n(c);
    head_trace &t = s.t;
    const shared_matrix scores = std::move(s.scores);
    record(&t.out, stage_id::scores, t.at, score_dims(t, c), scores,
           operand{t.q_name, t.at.head, t.q, axes_of(t.t, n.dk)},
           operand{t.k_name, s.kv_owner(c), t.k, axes_of(t.tkv, n.dk)}, latent_score_operands(t, c));
    if (t.latent && c.d_rope)
        add_term(t.out.stages.back(), "decoupled-rope");
    shared_matrix logits = std::move(s.scaled);
    const dim divisor = c.d_rope ? dim{c.d_k + c.d_rope, "(d_k + d_r)"} : n.dk;
    record(&t.out, stage_id::scaled, t.at, {t.t, t.tkv, divisor}, logits,
           operand{name_of(stage_id::scores), t.at.head, scores, axes_of(t.t, t.tkv)});
    if (c.scale_scores) // the ablation divides by nothing
        add_term(t.out.stages.back(), "scale");
    stage_id logits_stage = stage_id::scaled;
    if (c.softcap) {
        const shared_matrix scaled = logits;
        logits = std::move(s.capped);
        const dim one{1, "1"};
        record(&t.out, stage_id::capped, t.at, {t.t, t.tkv, one}, logits,
               operand{name_of(stage_id::scaled), t.at.head, scaled, axes_of(t.t, t.tkv)},
               operand{"κ", no_head, matrix({1, 1}, *c.softcap), axes_of(one, one)});
        logits_stage = stage_id::capped;
    }
    if (s.bias) {
        const shared_matrix before = logits;
        logits = std::move(s.biased);
        record(&t.out, stage_id::biased, t.at, {t.t, t.tkv}, logits,
               operand{name_of(logits_stage), t.at.head, before, axes_of(t.t, t.tkv)},
               operand{"B", t.at.head, bias_matrix(*s.bias, t.t.size, t.tkv.size),
                       axes_of(t.t, t.tkv)});
        // B = −m·(i − j) when no key lies ahead of its query, else −m·|i − j| (alibi.hpp).
        add_term(t.out.stages.back(), s.bias->causal ? "one-sided" : "symmetric");
        logits_stage = stage_id::biased;
    }
    if (t.mask.size()) {
        const shared_matrix before = logits;
        logits = std::move(s.masked);
        record(&t.out, stage_id::masked, t.at, {t.t, t.tkv}, logits,
               operand{name_of(logits_stage), t.at.head, before, axes_of(t.t, t.tkv)},
               operand{"M", no_head, t.mask, axes_of(t.t, t.tkv)});
        for (const mask_rule r : mask_rules(c))
            add_term(t.out.stages.back(), name_of(r));
        logits_stage = stage_id::masked;
    }
    const shared_matrix a = std::move(weights);
    record(&t.out, stage_id::weights, t.at, {t.t, t.tkv}, a,
           operand{name_of(logits_stage), t.at.head, logits, axes_of(t.t, t.tkv)});
    if (zeta) {
        const dim one{1, "1"};
        record(&t.out, stage_id::sink, t.at, {t.t, one, t.tkv}, std::move(s.sink),
               operand{name_of(logits_stage), t.at.head, logits, axes_of(t.t, t.tkv)},
               operand{"ζ", t.at.head, matrix({1, 1}, *zeta), axes_of(one, one)});
    }
    matrix h({head.rows, head.cols}); // (T, DV)
    for (std::size_t i = 0; i < head.rows; ++i)
        std::copy(head.data + i * head.ld, head.data + i * head.ld + head.cols, &h(i, 0));
    if (t.latent) { // MLA: the head's output in the latent, then up through W_UV
        const latent_parts &l = *t.latent;
        const dim dc{c.d_latent, "d_c"};
        const shared_matrix latent = matmul(a, l.c_kv); // (T, DC)
        record(&t.out, stage_id::latent_head, t.at, {t.t, t.tkv, dc}, latent,
               operand{name_of(stage_id::weights), t.at.head, a, axes_of(t.t, t.tkv)},
               operand{name_of(stage_id::c_kv), no_head, l.c_kv, axes_of(t.tkv, dc)});
        record(&t.out, stage_id::head, t.at, {t.t, dc, n.dv}, std::move(h),
               operand{name_of(stage_id::latent_head), t.at.head, latent, axes_of(t.t, dc)},
               operand{"W_UV", t.at.head, l.w_uv, axes_of(dc, n.dv)});
        return;
    }
    record(&t.out, stage_id::head, t.at, {t.t, t.tkv, n.dv}, std::move(h),
           operand{name_of(stage_id::weights), t.at.head, a, axes_of(t.t, t.tkv)},
           operand{"V", s.kv_owner(c), t.v, axes_of(t.tkv, n.dv)});
}

} // namespace

void attend_head(matrix_view q, matrix_view k, matrix_view v, const row_spans &keys,
                 const attention_config &c, matrix &weights, output_view head, head_trace *rec,
                 const linear_bias *bias, const double *zeta) {
    const std::size_t n_keys = k.rows;
    std::optional<head_stages> staged; // traced: S, S̃, S̃ + B and L each kept; else all in `weights`
    if (rec)
        staged.emplace(*rec, bias, c.softcap.has_value(), zeta != nullptr, q.rows, n_keys);
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
        // 3¼. Soft cap: κ·tanh(S̃ / κ) keeps every logit inside (−κ, κ), nearly unchanged near 0.
        if (c.softcap && staged)
            row = staged->cap(i, *c.softcap);
        else if (c.softcap)
            soft_cap_row(row + all.begin, all.end - all.begin, *c.softcap, row + all.begin);
        // 3½. ALiBi: + B, a penalty that grows with the distance from query to key.
        if (bias && staged)
            row = staged->add_bias(i, row);
        else if (bias)
            for (std::size_t j = all.begin; j < all.end; ++j)
                row[j] += bias->at(i, j);
        // 4. L = S̃ + M: −∞ where a key is hidden, which the softmax turns into exactly 0.
        if (staged && rec->mask.size())
            row = staged->add_mask(i, row);
        else if (has_mask(c)) { // untraced, the spans hide every key but the sink gap inside them
            const key_span gap = sink_gap(c, i);
            std::fill(row + gap.begin, row + gap.end, -std::numeric_limits<double>::infinity());
        }
        // 5. A = softmax(L): each row's weights over the keys its query sees, summing to 1; with
        // a sink, to 1 less what the sink takes (a key of logit ζ with no value).
        if (!zeta)
            softmax_span(row, &weights(i, 0), n_keys, keys[i]);
        else if (const double share = softmax_span_sink(row, &weights(i, 0), n_keys, keys[i], *zeta);
                 staged)
            staged->sink(i, 0) = share;
    }
    // 6. H = A·V: each output row is a weighted average of the value rows.
    gemm_spans(q.rows, n_keys, v.cols, weights.data(), n_keys, v.data, v.ld, head.data, head.ld,
               keys);
    if (staged)
        record_head(*staged, weights, head, c, zeta);
}

head_result attend(const matrix &q, const matrix &k, const matrix &v, const row_spans &keys,
                   bool masked, const attention_config &c, trace *out, stage_at at, const dim &t,
                   const dim &tkv, const linear_bias *bias, const char *q_name) {
    head_result r{matrix({rows(q), cols(v)}), matrix({rows(q), rows(k)})}; // (T, DV), (T, T_kv)
    std::optional<head_trace> rec;
    if (out)
        rec.emplace(head_trace{*out, at, t, tkv, q, k, v,
                               masked ? mask_of(c, keys, rows(k)) : matrix(), q_name});
    attend_head(view_of(q), view_of(k), view_of(v), keys, c, r.weights,
                {r.output.data(), rows(q), cols(v), cols(v)}, rec ? &*rec : nullptr, bias);
    if (rec) // the weights moved into the trace: the weights stage, just before the head's
        r.weights = out->stages[out->stages.size() - 2].values;
    return r;
}

} // namespace attention
