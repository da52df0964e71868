// What a caller asks for, before any checking: a generated, explicit or preset spec,
// and the validated problem it becomes. Field names in messages are the JS names.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attention/attention.hpp"
#include "attention/config.hpp"

namespace attention {

using row_list = std::vector<std::vector<double>>; // a matrix as the caller wrote it

// Sizes to draw a problem from numpy's generator, like the lesson's examples.
// Numbers arrive as doubles so that 2.5, −1 or NaN can be rejected by name.
struct generated_spec {
    double seed = 42;
    double seq_len = 0;        // seqLen
    double d_model = 0;        // dModel
    double num_heads = 1;      // numHeads
    std::optional<double> d_k; // dK, default dModel / numHeads
    std::optional<double> d_v; // dV, default dModel / numHeads
    bool causal = false;
    bool output_projection = true; // outputProjection
    bool scale_scores = true;      // scaleScores
};

// Matrices given directly; one W_Q, W_K, W_V per head.
struct explicit_spec {
    row_list x;                     // X: (T, D)
    std::vector<row_list> w_q, w_k; // W_Q, W_K: H × (D, DK)
    std::vector<row_list> w_v;      // W_V: H × (D, DV)
    std::optional<row_list> w_o;    // W_O: (H·DV, D)
    bool causal = false;
    bool scale_scores = true;
};

struct problem {
    attention_config config;
    attention_params params;
};

// Validates every field (and, when traced, the trace budget), then draws X, every W_Q,
// every W_K, every W_V and W_O in that order from numpy's generator seeded with spec.seed.
problem make_problem(const generated_spec &spec, bool traced = false);

// Validates every matrix (shape, raggedness, finiteness, size), then copies it.
problem make_problem(const explicit_spec &spec);

// The lesson's examples: "lesson-self-attention", "lesson-multi-head", "lesson-causal".
generated_spec preset(const std::string &name);

// Throws unless a traced run of c fits the trace budget.
void check_trace_budget(const attention_config &c);

} // namespace attention
