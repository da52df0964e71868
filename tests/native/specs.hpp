// Generated specs of every kind, written in one line each, and a sweep that covers them all.
#pragma once

#include <optional>
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

// Every kind and switch at least once: self (± causal, ± W_O, unscaled, d_k ≠ d_v),
// grouped-query and multi-query, cross (± validKeys, T_q above and below T_kv), encoder.
inline std::vector<generated_spec> every_kind() {
    generated_spec unscaled = self(6, 12, 3, 4, 4, true);
    unscaled.scale_scores = false;
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
            encoder(4, 6, 2, 5, true)};
}

} // namespace specs
