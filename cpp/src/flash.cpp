#include "attention/flash.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <xtensor/xview.hpp>

#include "attention/mask.hpp"
#include "attention/ops.hpp"
#include "attention/passes.hpp"

namespace attention {

namespace {

constexpr double minus_inf = -std::numeric_limits<double>::infinity();

matrix rows_of(const matrix &m, std::size_t begin, std::size_t end) {
    return xt::view(m, xt::range(begin, end), xt::all());
}

// One query block's running state: after each key block, for every row, the max logit so far
// (m), the sum of exp(logit − m) so far (l) and the weighted values not yet divided by l (O).
struct running {
    matrix m; // (B_r, 1)
    matrix l; // (B_r, 1)
    matrix o; // (B_r, DV)
};

// S = Q_i · K_jᵀ / √DK, −∞ where the mask hides a key from its query (mask.hpp).
matrix tile_logits(const matrix &q_i, const matrix &k_j, const tile_span &s,
                   const attention_config &c) {
    matrix scores = matmul_bt(q_i, k_j); // (B_r, B_c)
    const double divisor = score_divisor(c);
    for (std::size_t r = 0; r < rows(scores); ++r) {
        const key_span seen = visible_keys(c, s.query_begin + r);
        for (std::size_t j = 0; j < cols(scores); ++j) {
            const std::size_t key = s.key_begin + j;
            scores(r, j) = key < seen.begin || key >= seen.end ? minus_inf : scores(r, j) / divisor;
        }
    }
    return scores;
}

// The online softmax's update by one tile: the new max, the factor α = exp(m − m_new) that
// rescales what was summed under the old max, P = exp(S − m_new), then l and O.
struct tile_update {
    matrix m_new; // (B_r, 1)
    matrix alpha; // (B_r, 1)
    matrix p;     // (B_r, B_c)
};

tile_update update_of(const running &state, const matrix &s) {
    tile_update u{state.m, matrix({rows(s), std::size_t(1)}), matrix({rows(s), cols(s)})};
    for (std::size_t r = 0; r < rows(s); ++r) {
        for (std::size_t j = 0; j < cols(s); ++j)
            u.m_new(r, 0) = std::max(u.m_new(r, 0), s(r, j));
        // A row that has seen no key yet (its window starts in a later tile) keeps m = −∞, and
        // exp(−∞ − (−∞)) would be NaN: it adds nothing. Once it has, m_new is finite, and at
        // its first keys α = exp(−∞) = 0.
        const bool none = u.m_new(r, 0) == minus_inf;
        u.alpha(r, 0) = none ? 0.0 : std::exp(state.m(r, 0) - u.m_new(r, 0));
        for (std::size_t j = 0; j < cols(s); ++j)
            u.p(r, j) = none ? 0.0 : std::exp(s(r, j) - u.m_new(r, 0));
    }
    return u;
}

running advance(const running &state, const tile_update &u, const matrix &v_j) {
    running next{u.m_new, state.l, matrix()};
    const matrix pv = matmul(u.p, v_j); // (B_r, DV)
    next.o = pv;
    for (std::size_t r = 0; r < rows(u.p); ++r) {
        double total = 0.0;
        for (std::size_t j = 0; j < cols(u.p); ++j)
            total += u.p(r, j);
        next.l(r, 0) = u.alpha(r, 0) * state.l(r, 0) + total;
        for (std::size_t j = 0; j < cols(pv); ++j)
            next.o(r, j) = u.alpha(r, 0) * state.o(r, j) + pv(r, j);
    }
    return next;
}

void record_tile(trace *out, const attention_config &c, stage_at at, const matrix &q_i,
                 const matrix &k_j, const matrix &v_j, const matrix &s, const running &before,
                 const tile_update &u, const running &after) {
    const dim br{rows(q_i), "B_r"}, bc{rows(k_j), "B_c"}, one{1, "1"}, dk{c.d_k, "d_k"},
        dv{c.d_v, "d_v"};
    record(out, stage_id::tile_scores, at, {br, dk, bc}, s, operand{"Q_i", 0, q_i, axes_of(br, dk)},
           operand{"K_j", 0, k_j, axes_of(bc, dk)});
    if (c.scale_scores)
        add_term(out->stages.back(), "scale");
    for (const mask_rule r : mask_rules(c)) // −∞ where a rule hides the key
        add_term(out->stages.back(), name_of(r));
    record(out, stage_id::tile_max, at, {br, bc, one}, after.m,
           operand{"m", 0, before.m, axes_of(br, one)},
           operand{name_of(stage_id::tile_scores), 0, s, axes_of(br, bc)});
    record(out, stage_id::tile_sum, at, {br, bc, one}, after.l,
           operand{"l", 0, before.l, axes_of(br, one)}, operand{"α", 0, u.alpha, axes_of(br, one)},
           operand{"P", 0, u.p, axes_of(br, bc)});
    record(out, stage_id::tile_out, at, {br, bc, dv, one}, after.o,
           operand{"O", 0, before.o, axes_of(br, dv)}, operand{"α", 0, u.alpha, axes_of(br, one)},
           operand{"P", 0, u.p, axes_of(br, bc)}, operand{"V_j", 0, v_j, axes_of(bc, dv)});
}

// O / l for every row of a finished query block. (B_r, DV).
matrix normalised(const running &state) {
    matrix out = state.o;
    for (std::size_t r = 0; r < rows(out); ++r)
        for (std::size_t j = 0; j < cols(out); ++j)
            out(r, j) /= state.l(r, 0);
    return out;
}

// Every key block of query block [i0, i1): the block's output, (i1 − i0, DV).
matrix query_block(const matrix &q, const matrix &k, const matrix &v, std::size_t i0,
                   std::size_t i1, const attention_config &c, trace *out, int &ordinal) {
    const matrix q_i = rows_of(q, i0, i1); // (B_r, DK)
    running state{matrix({i1 - i0, std::size_t(1)}, minus_inf),
                  matrix({i1 - i0, std::size_t(1)}, 0.0), matrix({i1 - i0, c.d_v}, 0.0)};
    std::size_t first_key = c.seq_len, last_key = 0; // the keys the block read
    for (std::size_t j0 = 0; j0 < c.seq_len; j0 += c.block_cols) {
        const std::size_t j1 = std::min(c.seq_len, j0 + c.block_cols);
        if (!tile_needed(c, i0, i1, j0, j1))
            continue; // the mask hides every key of this tile from every query of the block
        const tile_span span{i0, i1, j0, j1};
        const matrix k_j = rows_of(k, j0, j1), v_j = rows_of(v, j0, j1); // (B_c, DK|DV)
        const matrix s = tile_logits(q_i, k_j, span, c);
        const tile_update u = update_of(state, s);
        const running next = advance(state, u, v_j);
        if (out)
            record_tile(out, c, {0, 0, ordinal, span}, q_i, k_j, v_j, s, state, u, next);
        state = next;
        first_key = std::min(first_key, j0), last_key = j1;
        ++ordinal;
    }
    matrix block = normalised(state);
    if (out) {
        const dim br{i1 - i0, "B_r"}, one{1, "1"}, dv{c.d_v, "d_v"};
        record(out, stage_id::block_out,
               {0, 0, ordinal - 1, tile_span{i0, i1, first_key, last_key}}, {br, dv, one}, block,
               operand{"O", 0, state.o, axes_of(br, dv)},
               operand{"l", 0, state.l, axes_of(br, one)});
    }
    return block;
}

// Ordinary attention of the same head, recorded as `reference`; the largest difference from the
// tiled output, relative to the largest |reference|, goes into out->checks.
void check_against_reference(const matrix &q, const matrix &k, const matrix &v, const matrix &tiled,
                             const attention_config &c, trace *out) {
    const named_dims n(c);
    const matrix reference =
        attend(q, k, v, visible_spans(c), c.causal, c, nullptr, {}, n.t, n.t).output;
    record(out, stage_id::reference, {}, {n.t, n.dv}, reference);
    if (c.scale_scores)
        add_term(out->stages.back(), "scale");
    for (const mask_rule r : mask_rules(c))
        add_term(out->stages.back(), name_of(r));
    double scale = 1.0, worst = 0.0;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        scale = std::max(scale, std::fabs(reference.data()[i]));
        worst = std::max(worst, std::fabs(tiled.data()[i] - reference.data()[i]));
    }
    out->checks.max_difference = worst / scale;
}

} // namespace

// The spans move only forward, so the block's first and last rows bound what it sees.
bool tile_needed(const attention_config &c, std::size_t i0, std::size_t i1, std::size_t j0,
                 std::size_t j1) {
    return j1 > visible_keys(c, i0).begin && j0 < visible_keys(c, i1 - 1).end;
}

matrix tiled_attention(const matrix &q, const matrix &k, const matrix &v, const attention_config &c,
                       trace *out) {
    matrix result({c.seq_len, c.d_v}); // (T, DV)
    int ordinal = 0;
    for (std::size_t i0 = 0; i0 < c.seq_len; i0 += c.block_rows) {
        const std::size_t i1 = std::min(c.seq_len, i0 + c.block_rows);
        const matrix block = query_block(q, k, v, i0, i1, c, out, ordinal);
        std::copy(block.begin(), block.end(), result.begin() + std::ptrdiff_t(i0 * c.d_v));
    }
    if (out) {
        const named_dims n(c);
        const std::size_t blocks = (c.seq_len + c.block_rows - 1) / c.block_rows;
        record(out, stage_id::stacked, {}, {{blocks, "blocks"}, {c.block_rows, "B_r"}, n.dv, n.t},
               result);
    }
    return result;
}

matrix flash_attention(const attention_params &p, const attention_config &c, trace *out) {
    const named_dims n(c);
    const stage_at at{0, 0, no_step, {}};
    if (out) {
        out->config = c;
        record(out, stage_id::x, {}, {n.t, n.d}, p.x);
    }
    const matrix q =
        project(stage_id::q, p.x, "X", n.t, p.w_q[0], "W_Q", n.dk, c, out, at); // (T, DK)
    const matrix k =
        project(stage_id::k, p.x, "X", n.t, p.w_k[0], "W_K", n.dk, c, out, at); // (T, DK)
    const matrix v =
        project(stage_id::v, p.x, "X", n.t, p.w_v[0], "W_V", n.dv, c, out, at); // (T, DV)
    matrix result = tiled_attention(q, k, v, c, out);
    if (out)
        check_against_reference(q, k, v, result, c, out);
    return result;
}

// Query blocks run one after another (FlashAttention-2's order), so one block's tile and its
// rows' m and l are all the score-side floats alive at once; a block is at most T rows and T keys.
flash_floats floats_held(std::size_t t, std::size_t block_rows, std::size_t block_cols) {
    const std::size_t br = std::min(block_rows, t), bc = std::min(block_cols, t);
    return {t * t, br * bc + 2 * br};
}

} // namespace attention
