// One head's attention computed FlashAttention's way: blocks of B_r query rows against blocks of
// B_c key rows, with a softmax updated online (a running max μ, sum Z and output U per row), so
// that no T × T matrix is ever formed. T = tokens, D = d_model, DK = d_k, DV = d_v.
#pragma once

#include "attention/attention.hpp"

namespace attention {

// p: X (T, D) and one W_Q, W_K (D, DK), W_V (D, DV). Returns (T, DV). When out is given it
// records x, q, k, v; per tile in loop order tile_scores, tile_max, tile_sum, tile_out; per
// query block block_out; then `stacked` and `reference` (ordinary attention), and in
// out->checks their largest difference relative to the largest |reference|. Under the causal
// mask a tile whose first key comes after its block's last query is skipped, unrecorded.
matrix flash_attention(const attention_params &p, const attention_config &c, trace *out = nullptr);

// q: (T, DK), k: (T, DK), v: (T, DV) → (T, DV): the tiled loop alone (no projections).
matrix tiled_attention(const matrix &q, const matrix &k, const matrix &v, const attention_config &c,
                       trace *out = nullptr);

// Score-side floats one head holds at once while it attends (Q, K, V and the output O, T × DV,
// are held either way and not counted): the whole T × T score matrix, against one B_r × B_c
// tile and the running m and l of that query block's B_r rows.
struct flash_floats {
    std::size_t standard; // T²
    std::size_t tiled;    // B_r · B_c + 2 · B_r
};
flash_floats floats_held(std::size_t t, std::size_t block_rows, std::size_t block_cols);

// Whether some query of block [i0, i1) sees some key of block [j0, j1): else the tile is skipped.
bool tile_needed(const attention_config &c, std::size_t i0, std::size_t i1, std::size_t j0,
                 std::size_t j1);

} // namespace attention
