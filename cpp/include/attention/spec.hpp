// What a caller asks for, before any checking: a generated or explicit spec, and the validated
// problem it becomes. Field names in messages are the JS names.
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attention/attention.hpp"
#include "attention/config.hpp"
#include "attention/encoder.hpp"

namespace attention {

struct model; // model.hpp

// Sizes to draw a problem from numpy's generator, like the lesson's examples.
// Numbers arrive as doubles so that 2.5, −1 or NaN can be rejected by name.
struct generated_spec {
    problem_kind kind = problem_kind::self;
    double seed = 42;
    double skip = 0;                    // normals drawn and discarded before X
    double seq_len = 0;                 // seqLen (queryLen in cross-attention)
    double kv_len = 0;                  // keyLen: cross-attention only
    double d_model = 0;                 // dModel
    double num_heads = 1;               // numHeads
    std::optional<double> num_kv_heads; // numKvHeads, default numHeads (self-attention only)
    std::optional<double> d_k;          // dK, default dModel / numHeads
    std::optional<double> d_v;          // dV, default dModel / numHeads
    std::optional<double> d_ff;         // dFF: the encoder layer's, default 4 · dModel
    std::optional<double> d_latent;     // dLatent: MLA's d_c (required there)
    std::optional<double> d_rope;       // dRope: MLA's d_r, default 0 (no decoupled RoPE)
    std::optional<double> valid_keys;   // validKeys: cross-attention's unpadded keys
    double block_rows = 0;              // blockRows: FlashAttention's B_r
    double block_cols = 0;              // blockCols: FlashAttention's B_c
    bool causal = false;
    bool output_projection = true;    // outputProjection (always on in the encoder layer)
    bool scale_scores = true;         // scaleScores
    double weight_scale = 0.1;        // weightScale: drawn weights are randn · weightScale
    std::vector<double> pruned_heads; // prunedHeads: heads zeroed before W_O
    std::vector<std::string> tokens;  // tokens: kind designed's words (they build X)
    std::optional<row_list> d_output; // dOutput: kind backward's ∂loss/∂output, else drawn
    std::string checkpoint;           // kind model: the shipped model (checkpoints.hpp), or
    std::shared_ptr<const model> net; // kind model: the model given instead (checked)
    std::vector<double> token_ids;    // kind model's tokens: ids in [0, V), 2 … T of them
    std::optional<std::vector<double>> scored; // kind model: the positions whose loss counts
    bool draw_sinks = false; // sinks: true: a sink logit per query head, randn(h) after every draw
};

// Matrices given directly: one W_Q per query head, one W_K and W_V per K/V head.
struct explicit_spec {
    problem_kind kind = problem_kind::self; // self or cross
    row_list x;                             // X (X_q in cross-attention): (T, D)
    row_list x_kv;                          // X_kv: (T_kv, D), cross-attention only
    std::vector<row_list> w_q;              // W_Q: H × (D, DK)
    std::vector<row_list> w_k;              // W_K: H_kv × (D, DK)
    std::vector<row_list> w_v;              // W_V: H_kv × (D, DV)
    std::optional<row_list> w_o;            // W_O: (H·DV, D)
    std::optional<double> valid_keys;       // validKeys: cross-attention only
    bool causal = false;
    bool scale_scores = true;
    std::vector<double> pruned_heads; // prunedHeads
    std::optional<row_list> d_output; // dOutput: kind backward's ∂loss/∂output, else drawn
    double seed = 42;                 // kind backward: draws dO when it is not given
    // Kind mla's own (X, W_Q and W_O above): W_DKV (D, DC), H × W_UK (DC, DK), H × W_UV
    // (DC, DV), W_KR (D, DR) and H × W_QR (D, DR), both or neither.
    row_list w_dkv;
    std::vector<row_list> w_uk, w_uv, w_qr;
    std::optional<row_list> w_kr;
};

struct problem {
    attention_config config;
    attention_params params;
    ffn_params ffn;  // the encoder layer's
    matrix d_output; // kind backward: (T, D), or (T, H·DV) without W_O
    double seed = std::numeric_limits<double>::quiet_NaN(); // drawn with; NaN: nothing drawn
    std::shared_ptr<const model> net;   // kind model: the model it runs (shipped or given)
    std::vector<std::size_t> token_ids; // kind model: the tokens it reads
    std::vector<double> counted; // kind model: 1 where position t's loss counts, else 0 (n − 1)
};

// Validates every field (and, when traced, the trace budget), then draws from numpy's
// generator seeded with spec.seed, after `skip` discarded normals: X (or X_q, then X_kv),
// every W_Q, every W_K, every W_V, W_O; for the encoder layer then W1, W2, b1, b2 (weights
// times weight_scale); for kind backward then dO, unless it is given (randn, not scaled); then,
// for sinks: true, one sink logit per query head (randn(h), not scaled). Kind mla draws X, W_DKV,
// every W_UK, every W_UV, every W_Q, W_KR, every W_QR (with dRope), W_O. Kind designed draws
// nothing: its matrices are built (designed.hpp).
problem make_problem(const generated_spec &spec, bool traced = false);

// Validates every matrix (shape, raggedness, finiteness, size), then copies it.
problem make_problem(const explicit_spec &spec);

} // namespace attention
