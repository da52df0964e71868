#include "attention/decode.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <xtensor/xview.hpp>

#include "attention/encoding.hpp"
#include "attention/heads.hpp"
#include "attention/kv_size.hpp"
#include "attention/mask.hpp"
#include "attention/ops.hpp"
#include "attention/passes.hpp"
#include "attention/qk_norm.hpp"
#include "attention/rope.hpp"

namespace attention {

namespace {

// rows of a, then the one row of b below them. a: (N, K), b: (1, K) → (N + 1, K).
matrix append_row(const matrix &a, const matrix &b) {
    matrix out({rows(a) + 1, cols(b)});
    std::copy(a.begin(), a.end(), out.begin());
    std::copy(b.begin(), b.end(), out.begin() + std::ptrdiff_t(a.size()));
    return out;
}

matrix row_of(const matrix &m, std::size_t i) {
    return xt::view(m, xt::range(i, i + 1), xt::all()); // (1, cols)
}

// The cache of one K/V head: its keys and values, one row per token it holds, and the position
// of each. With a window of W it is a ring of W slots: once full, step t overwrites slot t mod W.
struct kv_cache {
    matrix keys;                        // (n, DK), n ≤ W
    matrix values;                      // (n, DV)
    std::vector<std::size_t> positions; // (n): the token in each slot
};

// The slot step t writes: a new row while the cache grows, else the oldest one, t mod W; under
// sink tokens the first k slots stay pinned and the ring is the W − k after them.
std::size_t slot_of(const attention_config &c, std::size_t t) {
    if (!c.window || t < *c.window)
        return t;
    const std::size_t k = c.sink_tokens.value_or(0);
    return k + (t - k) % (*c.window - k);
}

// a with row `slot` set to r: appended when slot is a's row count. a: (N, K), r: (1, K).
matrix with_row(const matrix &a, const matrix &r, std::size_t slot) {
    if (slot == rows(a))
        return append_row(a, r);
    matrix out = a;
    std::copy(r.begin(), r.end(), &out(slot, 0));
    return out;
}

// The cache's rows as the lesson names them: t before step t, t + 1 after; W once a window is
// full.
dim cache_rows(const attention_config &c, std::size_t n, const char *growing) {
    return {n, c.window && n == *c.window ? "W" : growing};
}

// Step t's key (turned by its position under RoPE) and value, written to the cache's slot for
// t, each recorded with the cache before it.
void extend(kv_cache &cache, const matrix &x_t, const matrix &w_k, const matrix &w_v,
            const attention_config &c, trace *out, stage_at at, std::size_t t,
            const rope_table *turns) {
    const named_dims n(c);
    const std::size_t slot = slot_of(c, t), held = rows(cache.keys);
    const dim one{1, "1"}, past = cache_rows(c, held, "t"),
                           now = cache_rows(c, std::max(held, slot + 1), "t+1");
    matrix k_new =
        project(stage_id::k_new, x_t, name_of(stage_id::x_t), one, w_k, "W_K", n.dk, c, out, at);
    const char *key_name = name_of(stage_id::k_new);
    if (c.qk_norm) { // normalised, then turned, as every key of a forward pass is
        k_new = rms_norm_recorded(stage_id::k_norm, k_new, key_name, c.k_norm_gain, c, out, at, one);
        key_name = name_of(stage_id::k_norm);
    }
    if (turns) { // a key is turned at its own position before it enters the cache
        k_new = rotate_recorded(stage_id::k_rot, k_new, key_name, *turns, c, out, at, one);
        key_name = name_of(stage_id::k_rot);
    }
    const matrix v_new =
        project(stage_id::v_new, x_t, name_of(stage_id::x_t), one, w_v, "W_V", n.dv, c, out, at);
    matrix keys = with_row(cache.keys, k_new, slot), values = with_row(cache.values, v_new, slot);
    if (out) {
        // "ring": the window's W slots were full, and the new row overwrote the oldest.
        const bool overwrote = slot < held;
        record(out, stage_id::k_cache, at, {past, n.dk, one, now}, keys,
               operand{"K_cache", at.head, cache.keys, axes_of(past, n.dk)},
               operand{key_name, at.head, k_new, axes_of(one, n.dk)});
        if (overwrote)
            add_term(out->stages.back(), "ring");
        record(out, stage_id::v_cache, at, {past, n.dv, one, now}, values,
               operand{"V_cache", at.head, cache.values, axes_of(past, n.dv)},
               operand{name_of(stage_id::v_new), at.head, v_new, axes_of(one, n.dv)});
        if (overwrote)
            add_term(out->stages.back(), "ring");
    }
    cache.keys = std::move(keys), cache.values = std::move(values);
    if (slot == cache.positions.size())
        cache.positions.push_back(t);
    else
        cache.positions[slot] = t;
}

// One decode step: token t's output row, (1, D) with W_O, else (1, H·DV). x: (T, D), the
// tokens' rows with their positions' encoding when the config adds one. Each query head's q is
// projected (and turned to position t) here; its group's first head writes the new key and value
// into the group's cache; then every head reads its group's cache (heads.hpp).
matrix step(const attention_params &p, const matrix &x, const attention_config &c,
            std::vector<kv_cache> &caches, std::size_t t, trace *out) {
    const named_dims n(c);
    const dim one{1, "1"};
    const matrix x_t = row_of(x, t); // (1, D)
    if (out) {
        record(out, stage_id::x_t, {no_head, no_head, int(t), {}}, {one, n.d}, x_t);
        if (c.sinusoidal) // x_t is row t of X + PE: the encoding was added before the steps
            add_term(out->stages.back(), "sinusoidal");
    }
    const std::optional<rope_table> turns =
        c.rope ? std::optional(rope_table_of(*c.rope, t, 1)) : std::nullopt;
    std::vector<shared_matrix> queries(c.num_heads); // (1, DK) each, as the scores read them
    const auto read = [&](std::size_t i, head_trace *rec) {
        const std::size_t g = i / group_size(c);
        const stage_at at{int(i), int(g), int(t), {}};
        trace *into = rec ? &rec->out : nullptr;
        shared_matrix q = project(stage_id::q, x_t, name_of(stage_id::x_t), one, p.w_q[i], "W_Q",
                                  n.dk, c, into, at);
        const char *q_name = "Q";
        if (c.qk_norm) {
            q = rms_norm_recorded(stage_id::q_norm, q, q_name, c.q_norm_gain, c, into, at, one);
            q_name = name_of(stage_id::q_norm);
        }
        if (turns) { // the query at its position t
            q = rotate_recorded(stage_id::q_rot, q, q_name, *turns, c, into, at, one);
            q_name = name_of(stage_id::q_rot);
        }
        if (i % group_size(c) == 0)
            extend(caches[g], x_t, p.w_k[g], p.w_v[g], c, into, at, t, turns ? &*turns : nullptr);
        const kv_cache &cache = caches[g];
        if (rec) { // the scores read q (q_rot) and the cache's keys, the values its values
            rec->q = q, rec->k = cache.keys, rec->v = cache.values;
            rec->q_name = q_name;
        }
        queries[i] = q;
        return head_operands{view_of(queries[i]), view_of(cache.keys), view_of(cache.values),
                             &cache.positions};
    };
    const std::size_t held = cached_tokens(c, t); // every cache's rows once step t wrote its own
    const row_spans keys = all_keys(1, held);
    return attend_heads(read, p.w_o, c,
                        {keys, one, cache_rows(c, held, "t+1"), t, int(t), out, nullptr});
}

// The decoded rows against one causal forward pass: their largest difference, overall and per
// row, and what the cache holds and costs at every step.
void check_against_causal(const attention_params &p, const attention_config &c,
                          const matrix &decoded, trace *out) {
    attention_config causal = c;
    causal.kind = problem_kind::self;
    const matrix reference = multi_head_attention(p, causal); // (T, ·)
    const named_dims n(c);
    const dim width{cols(reference), c.output_projection ? "d_model" : "h·d_v"};
    record(out, stage_id::causal_reference, {}, {n.t, width}, reference);
    // What the one causal pass applied, for the page to write its formula from.
    stage &recorded = out->stages.back();
    if (c.scale_scores)
        add_term(recorded, "scale");
    for (const mask_rule r : mask_rules(causal))
        add_term(recorded, name_of(r));
    if (c.alibi)
        add_term(recorded, "one-sided"); // every key at or before its query
    if (c.rope)
        add_term(recorded, "rope");
    if (c.qk_norm)
        add_term(recorded, "qk-norm");
    if (c.softcap)
        add_term(recorded, "softcap");
    if (!c.sinks.empty())
        add_term(recorded, "sinks");
    trace_checks &checks = out->checks;
    checks.max_difference = 0.0;
    for (std::size_t t = 0; t < c.seq_len; ++t) {
        double worst = 0.0;
        for (std::size_t j = 0; j < cols(reference); ++j)
            worst = std::max(worst, std::fabs(decoded(t, j) - reference(t, j)));
        checks.step_differences.push_back(worst);
        checks.max_difference = std::max(*checks.max_difference, worst);
        checks.cache_bytes.push_back(double(kv_cache_bytes(cached_tokens(c, t), c.d_k, c.d_v,
                                                           c.num_kv_heads, 1, sizeof(double), 1)));
        checks.cache_slots.push_back(double(slot_of(c, t)));
        checks.macs_cached.push_back(decode_macs(c, t, true));
        checks.macs_recomputed.push_back(decode_macs(c, t, false));
        const double cached_before = t ? checks.macs_cached_so_far.back() : 0.0;
        const double recomputed_before = t ? checks.macs_recomputed_so_far.back() : 0.0;
        checks.macs_cached_so_far.push_back(cached_before + checks.macs_cached.back());
        checks.macs_recomputed_so_far.push_back(recomputed_before + checks.macs_recomputed.back());
    }
}

} // namespace

matrix decode_with_cache(const attention_params &p, const attention_config &c, trace *out) {
    if (out)
        out->config = c;
    std::vector<kv_cache> caches(c.num_kv_heads, {matrix({0, c.d_k}), matrix({0, c.d_v}), {}});
    const matrix x =
        c.sinusoidal ? matrix(p.x + sinusoidal_encoding(0, c.seq_len, c.d_model)) : p.x;
    matrix decoded; // (T, ·): one row per step
    for (std::size_t t = 0; t < c.seq_len; ++t) {
        const matrix row = step(p, x, c, caches, t, out); // (1, ·)
        if (out) // every K/V head's cache holds the same tokens
            out->checks.slot_tokens.emplace_back(caches[0].positions.begin(),
                                                 caches[0].positions.end());
        if (t == 0)
            decoded = matrix({c.seq_len, cols(row)});
        std::copy(row.begin(), row.end(), decoded.begin() + std::ptrdiff_t(t * cols(row)));
    }
    if (out) {
        const named_dims n(c);
        const dim one{1, "1"}, width{cols(decoded), c.output_projection ? "d_model" : "h·d_v"};
        record(out, stage_id::stacked, {}, {n.t, one, width, n.t}, decoded);
        check_against_causal(p, c, decoded, out);
    }
    return decoded;
}

std::size_t cached_tokens(const attention_config &c, std::size_t t) {
    return c.window ? std::min(t + 1, *c.window) : t + 1;
}

double decode_macs(const attention_config &c, std::size_t t, bool cached) {
    const double d = double(c.d_model), h = double(c.num_heads), h_kv = double(c.num_kv_heads);
    const double dk = double(c.d_k), dv = double(c.d_v), n = double(cached_tokens(c, t));
    const double kv_rows = cached ? 1.0 : n; // tokens whose K and V are projected this step
    double macs = h * d * dk;                // q of the new token
    macs += kv_rows * h_kv * d * (dk + dv);  // k and v
    macs += h * n * (dk + dv);               // scores against every cached key, weights · V
    if (c.output_projection)
        macs += h * dv * d; // W_O
    return macs;
}

} // namespace attention
