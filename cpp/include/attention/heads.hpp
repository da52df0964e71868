// The multi-head loop, one for every kind: self-, cross- and grouped-query attention, the designed
// heads, the encoder layer's and the model's attention, the backward pass's forward, and each
// step of KV-cache decoding. For every query head i, reading K/V head g = i / G: its q and its
// group's k and v as the kind reads them (each kind records its own projection stages), passes
// 2–6 (attend_head) with ALiBi's bias for that head, the head's output written straight into its
// columns of the concat; then 7–8 (combine). A trace and a cache for the backward pass are
// options of the same run. T = query rows, T_kv = keys, H = query heads, H_kv = K/V heads,
// DK = d_k, DV = d_v, D = d_model.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "attention/passes.hpp"
#include "attention/rope.hpp"

namespace attention {

// What the backward pass reads of the forward pass.
struct attention_cache {
    matrix x;                 // (T, D): X, or X + PE
    std::vector<matrix> q, a; // H × (T, DK), H × (T, T): the queries the scores read, weights
    std::vector<matrix> k, v; // H_kv × (T, DK), (T, DV): the keys the scores read, values
    matrix concat;            // (T, H·DV): the heads side by side, before W_O
    std::optional<rope_table> back; // RoPE: the turn by −φ, a rotation's backward pass
};

// One query head's operands as its scores and its values read them: q and its group's k (turned
// by position under RoPE) and v, and where each key sits (ALiBi's distance; null: key j at j).
struct head_operands {
    matrix_view q; // (T, DK)
    matrix_view k; // (T_kv, DK)
    matrix_view v; // (T_kv, DV)
    const std::vector<std::size_t> *key_positions = nullptr;
};

// Query head i's operands, its stages recorded into rec when traced (q; k and v with its group's
// first query head; their turns under RoPE): what one kind does differently from another.
using head_reader = std::function<head_operands(std::size_t i, head_trace *rec)>;

// One pass over the heads: the rows it attends from and to, and what it is asked for beyond its
// output.
struct heads_pass {
    const row_spans &keys;           // the keys each query row sees
    dim t, tkv;                      // the query rows' and the keys' dims
    std::size_t first_query = 0;     // the first query row's position (ALiBi's distance)
    int step = no_step;              // decoding: the step every stage belongs to
    trace *out = nullptr;            // record every stage
    attention_cache *keep = nullptr; // keep q, k, v, the weights and the concat (not x, back)
};

// Passes 2–8 over every head of c. → (T, D) with W_O (w_o: (H·DV, D)), else (T, H·DV).
matrix attend_heads(const head_reader &read, const matrix &w_o, const attention_config &c,
                    const heads_pass &pass);

// rows × cols values of a view, copied. (rows, cols).
matrix copy_of(matrix_view m);

} // namespace attention
