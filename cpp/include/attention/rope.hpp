// Rotary position embedding (RoPE; Su et al. 2021): each query and key is turned, pair of
// columns by pair, by an angle that grows with its position, so that q_i · k_j depends on the
// positions only through i − j. The first `dims` columns of a head rotate, in `dims / 2` pairs:
// (2i, 2i + 1) interleaved (GPT-J, Meta's LLaMA), (i, i + dims / 2) half-split (GPT-NeoX,
// Hugging Face). Pair i at position p turns by φ = (offset + p) · θ_i, θ_i = base^(−2i / dims).
// P = positions (rows), DK = d_k, R = dims / 2 pairs.
#pragma once

#include <utility>
#include <vector>

#include "attention/passes.hpp"

namespace attention {

// The columns (a, b) pair i turns.
std::pair<std::size_t, std::size_t> rope_pair(const rope_settings &r, std::size_t i);

// What every rotation of a run reads, made once for its positions first … first + P − 1:
// θ (1, R), the angles φ (P, R), their cosines and sines (P, R), and the pairs' columns (R, 2).
struct rope_table {
    shared_matrix theta, angle, cos, sin, pairs;
};
rope_table rope_table_of(const rope_settings &r, std::size_t first, std::size_t positions);

// The table that turns each pair back: angle −φ, so cos φ and −sin φ (a turn's backward pass).
rope_table turned_back(const rope_table &t);

// x with each pair of every row p turned by φ(p, i); the columns past dims unchanged.
// x: (P, DK) → (P, DK).
matrix rotated(matrix_view x, const rope_table &table, const rope_settings &r);

// RoPE's tables as a turned stage's operands, in the stage table's order: θ (1, d/2), angle, cos,
// sin (rows, d/2), pairs (d/2, 2).
std::vector<operand> table_operands(const rope_table &table, const dim &rows);

// x rotated (rotated()), recorded into `out` when given as `id` (q_rot or k_rot) at `at`, with
// operands x (as the trace holds it, named x_name), θ, φ, cos, sin and the pairs.
// x: (P, DK) → (P, DK), P = rows.size.
shared_matrix rotate_recorded(stage_id id, const shared_matrix &x, const char *x_name,
                              const rope_table &table, const attention_config &c, trace *out,
                              stage_at at, const dim &rows);

// One head's q and k turned at the config's offset and at offset + shift: the largest change of
// q_rot, of the scores and of the weights (the config's mask). q: (T, DK), k: (T_kv, DK).
rope_shift_check rope_shift(matrix_view q, matrix_view k, const attention_config &c,
                            double shift = 7);

} // namespace attention
