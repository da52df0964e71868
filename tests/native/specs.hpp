// Generated specs of every kind, written in one line each, and a sweep that covers them all.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attention/spec.hpp"

namespace specs {

using attention::generated_spec;
using attention::problem_kind;

// Self-attention: T tokens, D = dModel, H heads of DK / DV, H_kv K/V heads (default H).
inline generated_spec self(double t, double d, double h, double dk, double dv, bool causal = false,
                           bool w_o = true, std::optional<double> h_kv = std::nullopt) {
    generated_spec s;
    s.seq_len = t, s.d_model = d, s.num_heads = h, s.d_k = dk, s.d_v = dv;
    s.causal = causal, s.output_projection = w_o, s.num_kv_heads = h_kv;
    return s;
}

// Cross-attention: T_q queries, T_kv keys, the first valid_keys of them unpadded.
inline generated_spec cross(double t_q, double t_kv, double d, double h, double dk, double dv,
                            std::optional<double> valid_keys = std::nullopt, bool w_o = true) {
    generated_spec s = self(t_q, d, h, dk, dv, false, w_o);
    s.kind = problem_kind::cross;
    s.kv_len = t_kv, s.valid_keys = valid_keys;
    return s;
}

// One encoder layer: T tokens, D = dModel, H heads (DK = DV = D / H), DFF hidden units.
inline generated_spec encoder(double t, double d, double h, double dff, bool causal = false) {
    generated_spec s;
    s.kind = problem_kind::encoder_layer;
    s.seq_len = t, s.d_model = d, s.num_heads = h, s.d_ff = dff, s.causal = causal;
    return s;
}

// KV-cache decoding of T tokens: H query heads over H_kv cached K/V heads (default H).
inline generated_spec decode(double t, double d, double h, double dk, double dv,
                             std::optional<double> h_kv = std::nullopt, bool w_o = true) {
    generated_spec s = self(t, d, h, dk, dv, false, w_o, h_kv);
    s.kind = problem_kind::kv_cache;
    return s;
}

// FlashAttention: one head of DK / DV over T tokens, in tiles of B_r queries × B_c keys.
inline generated_spec flash(double t, double d, double dk, double dv, double b_r, double b_c,
                            bool causal = false) {
    generated_spec s = self(t, d, 1, dk, dv, causal, false);
    s.kind = problem_kind::flash;
    s.block_rows = b_r, s.block_cols = b_c;
    return s;
}

// The designed heads for these tokens (X and every weight built from them).
inline generated_spec designed(std::vector<std::string> tokens, bool causal = false) {
    generated_spec s;
    s.kind = problem_kind::designed;
    s.tokens = std::move(tokens), s.causal = causal;
    return s;
}

// The same spec with these heads pruned before W_O.
inline generated_spec pruned(generated_spec s, std::vector<double> heads) {
    s.pruned_heads = std::move(heads);
    return s;
}

// The same self-attention spec, then its backward pass from a drawn dO.
inline generated_spec backward(generated_spec s) {
    s.kind = problem_kind::backward;
    return s;
}

// Every kind and switch at least once: self (± causal, ± W_O, unscaled, d_k ≠ d_v, weights at
// scale 1), grouped-query and multi-query, cross (± validKeys, T_q above and below T_kv),
// encoder, the designed heads (± causal); pruned heads in self, grouped-query, cross, encoder
// and designed attention.
inline std::vector<generated_spec> every_kind() {
    generated_spec unscaled = self(6, 12, 3, 4, 4, true);
    unscaled.scale_scores = false;
    generated_spec scaled_up = self(4, 6, 2, 3, 3);
    scaled_up.weight_scale = 1;
    return {self(5, 16, 4, 4, 4),
            self(7, 12, 3, 5, 2, true),
            self(3, 6, 1, 2, 9, false, false),
            unscaled,
            self(5, 16, 4, 4, 4, false, true, 2),
            self(6, 8, 4, 3, 2, true, true, 1),
            self(4, 12, 6, 2, 3, false, false, 3),
            cross(2, 3, 8, 2, 4, 4),
            cross(5, 3, 8, 2, 3, 5, 2),
            cross(3, 7, 6, 3, 2, 2, 4, false),
            encoder(5, 16, 4, 64),
            encoder(4, 6, 2, 5, true),
            scaled_up,
            designed({"the", "cat", "sat", "on", "the", "mat"}),
            designed({"A", "b", "a", "c"}, true),
            pruned(self(5, 16, 4, 4, 4), {1, 3}),
            pruned(self(6, 8, 4, 3, 2, true, true, 2), {0}),
            pruned(cross(3, 4, 8, 2, 4, 4, 3), {1}),
            pruned(encoder(4, 6, 2, 5, true), {0}),
            pruned(designed({"x", "y", "x"}), {0, 1, 2, 3}),
            backward(self(5, 16, 4, 4, 4)),
            backward(self(6, 8, 4, 3, 2, true, true, 2)),
            backward(self(3, 6, 1, 2, 9, false, false)),
            backward(unscaled)};
}

// The kinds whose stages carry a step: decoding (MHA, GQA, MQA, ± W_O, d_k ≠ d_v, unscaled)
// and FlashAttention (± causal, tiles that do and do not divide T, one tile, unscaled).
inline std::vector<generated_spec> stepped_kinds() {
    generated_spec unscaled_decode = decode(3, 6, 2, 2, 3, 1);
    unscaled_decode.scale_scores = false;
    generated_spec unscaled_flash = flash(4, 6, 3, 2, 3, 2, true);
    unscaled_flash.scale_scores = false;
    return {decode(4, 8, 2, 4, 4),
            decode(5, 12, 4, 3, 2, 2),
            decode(3, 8, 4, 2, 2, 1, false),
            unscaled_decode,
            flash(7, 8, 4, 4, 2, 3),
            flash(7, 8, 4, 3, 3, 2, true),
            flash(5, 6, 2, 5, 5, 5, true),
            flash(6, 4, 2, 2, 1, 6, true),
            unscaled_flash};
}

} // namespace specs
