// Every stage the engine can record, in one table: its id (what JS sees), its shape equation,
// and how explain_cell takes one of its cells apart. The passes, the trace and
// explain all go through this table; adding a stage is one entry here plus one record() call.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace attention {

enum class stage_id {
    x,          // (T, D)       self-attention's tokens
    x_q,        // (T_q, D)     cross-attention's query tokens
    x_kv,       // (T_kv, D)    cross-attention's key/value tokens
    q,          // (T, DK)      X · W_Q
    k,          // (T_kv, DK)   X · W_K
    v,          // (T_kv, DV)   X · W_V
    scores,     // (T, T_kv)    Q · Kᵀ
    scaled,     // (T, T_kv)    scores / √DK
    masked,     // (T, T_kv)    scaled + M
    weights,    // (T, T_kv)    row softmax
    head,       // (T, DV)      weights · V
    concat,     // (T, H·DV)    heads side by side
    output,     // (T, D)       concat · W_O
    residual1,  // (T, D)       X + attention output
    norm1,      // (T, D)       layer norm
    ffn_pre,    // (T, DFF)     norm1 · W1 + b1
    ffn_hidden, // (T, DFF)     ReLU
    ffn_out,    // (T, D)       hidden · W2 + b2
    residual2,  // (T, D)       norm1 + ffn_out
    norm2,      // (T, D)       layer norm: the layer's output
    // KV-cache decoding, one step t at a time (stage.step = t):
    x_t,              // (1, D)        row t of X
    k_new,            // (1, DK)       x_t · W_K
    v_new,            // (1, DV)       x_t · W_V
    k_cache,          // (t+1, DK)     the cached keys with k_new appended
    v_cache,          // (t+1, DV)     the cached values with v_new appended
    stacked,          // (T, ·)        the steps' (or the query blocks') outputs, stacked
    causal_reference, // (T, ·)        the same sizes as one causal forward pass
    // FlashAttention's tiled forward pass (stage.tile: the tile's query and key rows):
    tile_scores, // (B_r, B_c)   Q_i · K_jᵀ / √DK, −∞ above the diagonal when causal
    tile_max,    // (B_r, 1)     running max m after the tile
    tile_sum,    // (B_r, 1)     running sum l after the tile
    tile_out,    // (B_r, DV)    running output O after the tile, not yet divided by l
    block_out,   // (B_r, DV)    O / l: the query block's output
    reference,   // (T, DV)      ordinary attention, for comparison
    pruned,      // (T, H·DV)    the concat with the pruned heads' columns zeroed
};

// How explain_cell takes a cell (i, j) apart; operands are read by position.
enum class cell_rule {
    none,            // drawn, not computed
    dot,             // Σ_p op0[i, p] · op1[p, j]
    dot_rows,        // Σ_p op0[i, p] · op1[j, p]   (Q · Kᵀ without the transpose)
    scaled_dot,      // the scores stage's dot, then ÷ divisor
    mask,            // op0[i, j] + op1[i, j], op1 the mask M (0 or −∞)
    softmax,         // exp(op0[i, j] − max) / Σ_k exp(op0[i, k] − max)
    copy_column,     // column j comes from one head's column
    sum,             // op0[i, j] + op1[i, j]
    norm,            // (op0[i, j] − mean_i) / (std_i + ε)
    affine,          // Σ_p op0[i, p] · op1[p, j] + op2[0, j]
    relu,            // max(0, op0[i, j])
    scaled_dot_rows, // Σ_p op0[i, p] · op1[j, p] ÷ divisor, −∞ where masked
    running_max,     // max(op0[i, 0], max_k op1[i, k])
    running_sum,     // op1[i, 0] · op0[i, 0] + Σ_k op2[i, k]       (α · l + Σ P)
    running_out,     // op1[i, 0] · op0[i, j] + Σ_p op2[i, p] · op3[p, j]   (α · O + P · V)
    divide_rows,     // op0[i, j] / op1[i, 0]
    gate,            // op0[i, j] · op1[0, j], the gate 1 or 0
};

struct stage_entry {
    stage_id id;
    const char *name; // the id JS and the fixtures use
    // The shape equation, written once for numbers and symbols alike: $0, $1, … stand for the
    // dimensions the stage's pass names, in order; $sN for the divisor √$N (1 without scaling).
    const char *equation;
    std::size_t rows, cols; // which of those dimensions are the result's rows and columns
    cell_rule cell;
    bool row_totals; // the trace carries Σ of each row (the weights: each row sums to 1)
};

// The entry of a stage.
const stage_entry &entry(stage_id id);

// The stage's name, e.g. "scores".
inline const char *name_of(stage_id id) {
    return entry(id).name;
}

// The stage with this name, if any.
std::optional<stage_id> stage_named(const std::string &name);

// Every stage name, comma-separated, for messages.
std::string stage_names();

} // namespace attention
