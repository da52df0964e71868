// The trace: every stage of a run, with its shape algebra, values and operands, and the
// recorder the passes hand their tensors to.
#pragma once

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attention/config.hpp"
#include "attention/matrix.hpp"
#include "attention/stages.hpp"

namespace attention {

constexpr int no_head = -1; // stages and operands that belong to no single head
constexpr int no_step = -1; // stages outside KV-cache decoding's steps and FlashAttention's tiles

// One dimension of a shape: its size and the symbol the lesson gives it.
struct dim {
    std::size_t size;
    std::string symbol; // "T", "T_q", "T_kv", "d_model", "d_k", "d_v", "d_ff", "h", "h·d_v", "1"
};

// What a matrix's rows and columns are, in symbols: ("T", "d_k").
struct axes {
    std::string rows, cols;
};

// A matrix the trace holds, shared rather than copied: one stage's values are often a later
// stage's operand (scores beside scaled, weights beside head) and X an operand of every q, k
// and v, so each is held once. Immutable once recorded. Converts to const matrix & where a
// matrix is read; templates (xt::allclose, ==) take get() or *.
class shared_matrix {
  public:
    shared_matrix() = default; // empty: no values
    // Takes m over (moved when an rvalue, else copied once).
    shared_matrix(matrix m) : held_(std::make_shared<const matrix>(std::move(m))) {}

    const matrix &get() const { return held_ ? *held_ : empty(); }
    operator const matrix &() const { return get(); }
    const matrix &operator*() const { return get(); }
    const matrix *operator->() const { return &get(); }

    double operator()(std::size_t i, std::size_t j) const { return get()(i, j); }
    decltype(auto) shape() const { return get().shape(); }
    std::size_t size() const { return get().size(); }
    const double *data() const { return get().data(); }
    auto begin() const { return get().cbegin(); }
    auto end() const { return get().cend(); }

  private:
    static const matrix &empty() {
        static const matrix none; // shape (0, 0)
        return none;
    }
    std::shared_ptr<const matrix> held_;
};

// A matrix a stage was computed from, e.g. X and W_Q for the stage q.
struct operand {
    std::string name; // "X", "W_Q", "Q", "scores", "M", "head", "contribution", …
    int head = no_head;
    shared_matrix values;
    axes ax;
};

// A shape equation twice over, with numbers and with symbols, token for token:
// "(5, 16) @ (16, 4) → (5, 4)" and "(T, d_model) @ (d_model, d_k) → (T, d_k)".
struct equation {
    std::string numeric;
    std::string symbolic;
};

// The rows of Q (queries) and of K and V (keys) a FlashAttention tile covers, half-open.
struct tile_span {
    std::size_t query_begin, query_end, key_begin, key_end;
};

// Where a stage belongs: a query head and the K/V head it reads (no_head for neither); a decode
// step or a tile's place in loop order (no_step for neither), and the tile's rows.
struct stage_at {
    int head = no_head;
    int kv_head = no_head;
    int step = no_step;
    std::optional<tile_span> tile;
};

struct stage {
    stage_id id;
    int head = no_head;    // the query head; k and v: the first query head of their group
    int kv_head = no_head; // the K/V head the stage reads or is
    int step = no_step;    // KV-cache decoding: the step t; FlashAttention: the tile's ordinal
    std::optional<tile_span> tile;
    equation eq;
    shared_matrix values;
    axes ax;
    std::vector<operand> operands;
    shared_matrix totals; // (rows, 1) Σ of each row, for stages whose entry asks; else empty
    // What the pass applied beside its operands, in its order: masked, the rules M combines
    // (mask.hpp's names: "causal", "prefix", "window", "documents", "padding"); scaled, "scale"
    // (÷√d_k; none in the ablation); biased, ALiBi's distance, "one-sided" (i − j) or "symmetric"
    // (|i − j|); a decode step's x_t, "sinusoidal" when it is row t of X + PE. Else none.
    std::vector<std::string> terms;
};

// RoPE's promise checked on head 0: every position shifted by `shift` moves q_rot (its largest
// change) but not the scores or the weights (theirs, rounding only).
struct rope_shift_check {
    double shift, q_rot, scores, weights;
};

// The premise of ÷√d_k measured on one query head: the population variance of S and of S̃ over
// the entries its queries see (the ones the softmax reads), pooled over a decode's steps.
struct score_spread {
    std::size_t head;                 // the query head
    std::optional<std::size_t> layer; // a model's layer (its heads are per layer); else none
    double scores;                    // var(S)
    double scaled;                    // var(S̃): var(S) / d_k when the scores are scaled
    std::size_t entries;              // how many scores were pooled
};

// One row of the √d_k study (gradient_scaling.hpp): a single head at this d_k and
// weight scale, its scores divided by √d_k or not, and what that does to the softmax and to the
// gradient reaching the scores.
struct scaling_point {
    std::size_t d_k;
    double weight_scale;
    bool scaled;              // ÷√d_k applied
    double variance;          // var of the scaled scores S̃ (= S without scaling)
    double max_weight;        // the mean over rows of each row's largest weight
    double mean_abs_d_scaled; // mean |dS̃|: the gradient leaving the softmax
    double mean_abs_d_scores; // mean |dS|: what reaches Q·Kᵀ (dS̃ ÷ √d_k)
};

// One entry of a weight gradient beside the slope of the loss along it (gradient_check.hpp).
struct gradient_check {
    std::string matrix;   // "W_Q", "W_K", "W_V" (head and K/V head 0) or "W_O"
    std::size_t row, col; // the entry: dW's largest in magnitude
    double step;          // ε
    double analytic;      // dW[row, col], as the backward pass computed it
    double numeric;       // (ℒ(W + εE) − ℒ(W − εE)) / 2ε
};

// What a run checks about itself, for the chapters that compute one thing two ways.
struct trace_checks {
    std::optional<double> output_change;  // pruning: ‖Δoutput‖ / ‖output‖ (Frobenius)
    std::optional<double> max_difference; // decoded vs causal; tiled vs ordinary (relative)
    std::vector<double> step_differences; // decoding: max |Δ| of each step's row
    std::vector<double> cache_bytes;      // decoding: bytes the float64 cache holds after each step
    std::vector<double> cache_slots;      // decoding: the cache row each step wrote (a ring of W)
    std::vector<std::vector<double>> slot_tokens; // decoding: the token each row holds after each step
    std::optional<rope_shift_check> rope_shift; // RoPE: positions shifted, head 0
    std::vector<score_spread> score_variance;   // per query head, in head order (not in flash)
    std::optional<double> alibi_row_shift;  // ALiBi: max |Δweights| of head 0 when each row of B
                                            // gets a constant (m·i: −m·(i − j) becomes +m·j)
    std::vector<double> softcap_change;     // soft cap: per query head, max |Δweights| against the
                                            // same logits uncapped
    std::optional<double> qk_norm_bound;    // QK-norm: the largest |S̃| it allows (qk_norm.hpp)
    std::vector<double> qk_norm_largest;    // QK-norm: per query head, its largest |S̃|
    std::vector<double> qk_norm_without;    // … and the largest the same q, k give unnormalised
    std::vector<double> macs_cached;        // decoding: multiply-adds of each step with the cache
    std::vector<double> macs_recomputed;    // … and recomputing every past K and V instead
    std::vector<double> macs_cached_so_far; // decoding: Σ of macs_cached over steps 0 … t
    std::vector<double> macs_recomputed_so_far; // … and of macs_recomputed
    std::vector<double> causal_prefix; // causal: max |Δ| of row t against tokens 0 … t alone
    std::optional<double> absorbed_difference; // MLA: max |Δ| of the absorbed path's scores and
                                               // heads against the unabsorbed ones
    std::vector<scaling_point> gradient_scaling; // backward: the √d_k study (gradient_scaling.hpp)
    std::vector<gradient_check> gradient_checks; // backward: dW against ℒ's slope, per matrix
};

struct trace {
    attention_config config;
    std::vector<stage> stages;
    trace_checks checks;
};

// A stage from its table entry: the equation filled with the dims its pass names ($0, $1, …
// in that order), its axes the result's, its row totals when the entry asks for them.
// values: a shared_matrix is shared, a matrix rvalue moved in, a matrix lvalue copied.
stage make_stage(const trace &t, stage_id id, stage_at at, const std::vector<dim> &dims,
                 shared_matrix values);

// The operands of a stage being recorded: one operand, or a list of them (one per head).
inline void add_operands(stage &s, operand &&o) {
    s.operands.push_back(std::move(o));
}
inline void add_operands(stage &s, std::vector<operand> &&list) {
    for (operand &o : list)
        s.operands.push_back(std::move(o));
}

// Throws std::logic_error unless the stage's operands are the ones its entry declares, each of
// its declared shape under these dims (and a name* list as long as its declared count).
void check_operands(const stage &s, const std::vector<dim> &dims);

// Appends a stage; operands (each an operand or a list of them) are moved in one by one (a
// braced list would copy each twice). Callers test `out` first, so that a run without a trace
// copies nothing.
template <class... Operands>
void record(trace *out, stage_id id, stage_at at, const std::vector<dim> &dims,
            shared_matrix values, Operands &&...operands) {
    stage s = make_stage(*out, id, at, dims, std::move(values));
    (add_operands(s, std::forward<Operands>(operands)), ...);
    check_operands(s, dims);
    out->stages.push_back(std::move(s));
}

// Adds a term the pass applied to the stage it just recorded (stage::terms). Throws
// std::logic_error unless the stage's entry declares it (stages.hpp).
void add_term(stage &s, const char *term);

// The axes of a matrix whose rows and columns are these dimensions.
inline axes axes_of(const dim &r, const dim &c) {
    return {r.symbol, c.symbol};
}

// How many doubles this trace records, operands and totals included, a matrix shared by
// several of them counted at each.
std::size_t recorded_value_count(const trace &t);

} // namespace attention
