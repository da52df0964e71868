// ALiBi (Press et al. 2022, "Train short, test long"): no position enters X or q and k; instead
// each head adds to its scaled scores a penalty that grows with the distance from query to key,
// B_ij = −m_h · (i − j) under a causal mask (−m_h · |i − j| without), with one slope m_h per
// head. T = queries, T_kv = keys, H = heads.
#pragma once

#include <cmath>
#include <vector>

#include "attention/config.hpp"
#include "attention/gemm.hpp"
#include "attention/matrix.hpp"

namespace attention {

// A bias added to one head's scaled scores that grows with the distance from query to key
// (ALiBi, alibi.hpp): B_ij = −slope · (p_i − p_j) when causal, −slope · |p_i − p_j| otherwise,
// p_i = first_query + i the query's position and p_j = j the key's.
struct linear_bias {
    double slope = 0;
    bool causal = false;
    std::size_t first_query = 0;
    const std::vector<std::size_t> *key_positions = nullptr; // key j's position, else j

    double at(std::size_t i, std::size_t j) const {
        const double key = key_positions ? double((*key_positions)[j]) : double(j);
        const double d = double(first_query + i) - key;
        return -slope * (causal ? d : std::fabs(d));
    }
};

// The slope of each of h heads by Press et al.'s rule: for h a power of two, 2^(−8/h) raised to
// 1 … h (8 heads: 1/2, 1/4, … 1/256); otherwise the slopes of the power of two below h, then
// every other slope of twice that, until there are h.
std::vector<double> alibi_slopes(std::size_t heads);

// Head h's bias for queries at positions first_query … and keys at 0 … T_kv − 1.
linear_bias alibi_of(const attention_config &c, std::size_t head, std::size_t first_query = 0);

// B_ij for that head. (T, T_kv).
matrix bias_matrix(const linear_bias &b, std::size_t rows, std::size_t keys);

// ALiBi's row constants do nothing: the largest change of one head's weights when row i of B
// gets b_i = slope · p_i (under a causal mask −m·(i − j) then reads +m·j). scaled: that head's
// S̃ (T, T_kv); keys: each row's visible span.
double alibi_row_shift(const matrix &scaled, const linear_bias &b, const row_spans &keys);

} // namespace attention
