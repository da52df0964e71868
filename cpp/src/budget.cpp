// The stages each kind's traced run records, with the dims it records them with; each stage's
// count of values (its own, its row totals, every operand) is the stage table's (stage_values).
// The native tests and the fuzzer hold every count equal to what a run records.
#include "attention/budget.hpp"

#include <algorithm>
#include <string>

#include "attention/decode.hpp"
#include "attention/flash.hpp"
#include "attention/stages.hpp"
#include "attention/validation.hpp"

namespace attention {

namespace {

using s = stage_id;

std::size_t n(stage_id id, const std::vector<std::size_t> &dims) {
    return stage_values(id, dims);
}

// One rotation (q_rot, k_rot, d_q_unrot, d_k_unrot) of p rows: (p, DK) with θ, φ, cos, sin, pairs.
std::size_t rotation(const attention_config &c, std::size_t p) {
    return c.rope ? n(s::q_rot, {p, c.d_k, c.rope->dims / 2, 1, 2}) : 0;
}

// One QK-norm (q_norm, k_norm) of p rows: (p, DK) with its gain (1, DK).
std::size_t normalising(const attention_config &c, std::size_t p) {
    return c.qk_norm ? n(s::q_norm, {p, c.d_k, 1}) : 0;
}

// Passes 2–6 of one head: r query rows against k keys.
std::size_t one_head(const attention_config &c, std::size_t r, std::size_t k, bool masked) {
    std::size_t total = n(s::scores, {r, c.d_k, k, 0, 0}) + n(s::scaled, {r, k, c.d_k});
    total += (c.softcap ? n(s::capped, {r, k, 1}) : 0) + (c.alibi ? n(s::biased, {r, k}) : 0);
    total += masked ? n(s::masked, {r, k}) : 0;
    const std::size_t sink = c.sinks.empty() ? 0 : n(s::sink, {r, 1, k});
    return total + n(s::weights, {r, k}) + sink + n(s::head, {r, k, c.d_v});
}

// Passes 7–8 for r rows: the concat (with more than one head, or before W_O), pruned, output.
std::size_t combined(const attention_config &c, std::size_t r) {
    const std::size_t h = c.num_heads, hdv = h * c.d_v;
    const std::size_t concat = n(s::concat, {h, r, c.d_v, hdv});
    if (!c.output_projection)
        return h > 1 ? concat : 0;
    const std::size_t pruned = c.pruned_heads.empty() ? 0 : n(s::pruned, {r, hdv, 1});
    return concat + pruned + n(s::output, {r, hdv, c.d_model, h});
}

// x (x_q, x_kv), x_pos, every head's projections, turns and passes 2–6, then 7–8.
std::size_t attention(const attention_config &c) {
    const std::size_t t = c.seq_len, tkv = c.kv_len, d = c.d_model, dk = c.d_k, dv = c.d_v;
    std::size_t total =
        c.kind == problem_kind::cross ? n(s::x_q, {t, d}) + n(s::x_kv, {tkv, d}) : n(s::x, {t, d});
    total += c.sinusoidal ? n(s::x_pos, {t, d}) : 0;
    total += c.num_heads * (n(s::q, {t, d, dk}) + normalising(c, t) + rotation(c, t));
    total += c.num_kv_heads * (n(s::k, {tkv, d, dk}) + n(s::v, {tkv, d, dv}) +
                               normalising(c, tkv) + rotation(c, tkv));
    return total + c.num_heads * one_head(c, t, tkv, has_mask(c)) + combined(c, t);
}

// Every step t: x_t, each head's q (turned), each K/V head's new key and value into its cache,
// passes 2–8 for one row; then stacked and the causal reference.
std::size_t decoding(const attention_config &c) {
    const std::size_t d = c.d_model, dk = c.d_k, dv = c.d_v, t_all = c.seq_len;
    const std::size_t width = c.output_projection ? d : c.num_heads * dv;
    std::size_t total =
        n(s::stacked, {t_all, 1, width, t_all}) + n(s::causal_reference, {t_all, width});
    for (std::size_t t = 0; t < t_all; ++t) {
        const std::size_t before = t ? cached_tokens(c, t - 1) : 0, after = cached_tokens(c, t);
        total += n(s::x_t, {1, d}) +
                 c.num_heads * (n(s::q, {1, d, dk}) + normalising(c, 1) + rotation(c, 1));
        total += c.num_kv_heads *
                 (n(s::k_new, {1, d, dk}) + normalising(c, 1) + rotation(c, 1) +
                  n(s::v_new, {1, d, dv}) +
                  n(s::k_cache, {before, dk, 1, after}) + n(s::v_cache, {before, dv, 1, after}));
        total += c.num_heads * one_head(c, 1, after, false) + combined(c, 1);
    }
    return total;
}

// x, q, k, v; each needed tile's four stages and each query block's output; stacked and the
// reference.
std::size_t tiling(const attention_config &c) {
    const std::size_t t = c.seq_len, d = c.d_model, dk = c.d_k, dv = c.d_v;
    const std::size_t blocks = (t + c.block_rows - 1) / c.block_rows;
    std::size_t total =
        n(s::x, {t, d}) + n(s::q, {t, d, dk}) + n(s::k, {t, d, dk}) + n(s::v, {t, d, dv});
    total += n(s::stacked, {blocks, c.block_rows, dv, t}) + n(s::reference, {t, dv});
    for (std::size_t i0 = 0; i0 < t; i0 += c.block_rows) {
        const std::size_t r = std::min(t, i0 + c.block_rows) - i0;
        total += n(s::block_out, {r, dv, 1});
        for (std::size_t j0 = 0; j0 < t; j0 += c.block_cols) {
            const std::size_t b = std::min(t, j0 + c.block_cols) - j0;
            if (tile_needed(c, i0, i0 + r, j0, j0 + b))
                total += n(s::tile_scores, {r, dk, b}) + n(s::tile_max, {r, b, 1}) +
                         n(s::tile_sum, {r, b, 1}) + n(s::tile_out, {r, b, dv, 1});
        }
    }
    return total;
}

// MLA: x, c_kv, k_rope; per head q, q_rope, k, v, q_absorbed, passes 2–5, latent_head and head;
// then 7–8.
std::size_t latent_heads(const attention_config &c) {
    const std::size_t t = c.seq_len, d = c.d_model, dk = c.d_k, dv = c.d_v, dc = c.d_latent,
                      dr = c.d_rope;
    const std::size_t turn = dr ? n(s::k_rope, {t, dr, dr / 2, 1, 2, d}) : 0;
    std::size_t head = n(s::q, {t, d, dk}) + turn + n(s::k, {t, dc, dk}) + n(s::v, {t, dc, dv}) +
                       n(s::q_absorbed, {t, dk, dc}) + n(s::scores, {t, dk, t, dr, dc});
    head += n(s::scaled, {t, t, dk}) + (c.causal ? n(s::masked, {t, t}) : 0) + n(s::weights, {t, t});
    head += n(s::latent_head, {t, t, dc}) + n(s::head, {t, dc, dv});
    return n(s::x, {t, d}) + n(s::c_kv, {t, d, dc}) + turn + c.num_heads * head + combined(c, t);
}

// The encoder layer's two sub-layers after attention.
std::size_t sublayers(const attention_config &c) {
    const std::size_t t = c.seq_len, d = c.d_model, dff = c.d_ff;
    return n(s::residual1, {t, d}) + n(s::norm1, {t, d}) + n(s::ffn_pre, {t, d, dff, 1}) +
           n(s::ffn_hidden, {t, dff}) + n(s::ffn_out, {t, dff, d, 1}) + n(s::residual2, {t, d}) +
           n(s::norm2, {t, d});
}

// dO, then W_O's and the concat's gradients, each query head's and each K/V head's, and dX.
std::size_t gradients(const attention_config &c) {
    const std::size_t t = c.seq_len, d = c.d_model, dk = c.d_k, dv = c.d_v, h = c.num_heads;
    const std::size_t hk = c.num_kv_heads, hdv = h * dv, g = h / hk;
    std::size_t total = n(s::d_output, {t, c.output_projection ? d : hdv});
    if (c.output_projection)
        total += n(s::d_w_o, {hdv, t, d}) + n(s::d_concat, {t, d, hdv});
    total += h * (n(s::d_head, {h, t, dv, hdv}) + n(s::d_weights, {t, dv, t}) +
                  n(s::d_scaled, {t, t}) + n(s::d_scores, {t, t, dk}) + n(s::d_q, {t, t, dk}) +
                  rotation(c, t) + n(s::d_w_q, {d, t, dk}));
    total += hk * (n(s::d_v, {t, t, dv, g}) + n(s::d_k, {t, t, dk, g}) + rotation(c, t) +
                   n(s::d_w_k, {d, t, dk}) + n(s::d_w_v, {d, t, dv}));
    return total + n(s::d_x, {t, d, h + 2 * hk, h, hk});
}

// The model: embedded, each layer's attention and residual, logits, probabilities, token_loss,
// loss.
std::size_t model_pass(const attention_config &c) {
    const std::size_t t = c.seq_len, d = c.d_model, v = c.vocab;
    std::size_t total = n(s::embedded, {t, d});
    total += c.num_layers * (attention(c) + n(s::residual, {t, d}));
    total += n(s::logits, {t, d, v}) + n(s::probabilities, {t, v});
    return total + n(s::token_loss, {t, v, t - 1, 1}) + n(s::loss, {t - 1, 1});
}

} // namespace

std::size_t trace_value_count(const attention_config &c) {
    switch (c.kind) {
    case problem_kind::kv_cache:
        return decoding(c);
    case problem_kind::flash:
        return tiling(c);
    case problem_kind::encoder_layer:
        return attention(c) + sublayers(c);
    case problem_kind::backward:
        return attention(c) + gradients(c);
    case problem_kind::model:
        return model_pass(c);
    case problem_kind::mla:
        return latent_heads(c);
    default: // self, cross, designed
        return attention(c);
    }
}

void check_trace_budget(const attention_config &c) {
    const std::size_t values = trace_value_count(c);
    if (values > limits::max_trace_values)
        reject("trace", std::to_string(c.seq_len) + " tokens and " + std::to_string(c.num_heads) +
                            " heads need " + std::to_string(values) +
                            " values, above the trace budget of " +
                            std::to_string(limits::max_trace_values) +
                            " (128 MiB); use fewer tokens or heads");
}

} // namespace attention
