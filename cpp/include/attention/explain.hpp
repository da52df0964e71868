// One cell of a traced stage, taken apart into the numbers that produce it, by the stage's
// cell_rule (stages.hpp).
#pragma once

#include <optional>
#include <vector>

#include "attention/trace.hpp"

namespace attention {

struct product_term {
    double a, b, product; // a · b = product
};

struct softmax_parts {
    std::vector<double> logits; // the cell's row before the softmax
    double max;                 // subtracted for stability
    std::vector<double> exps;   // exp(logit − max)
    double exp_sum;             // Σ exps (and the sink's term, with a sink)
    std::optional<double> zeta; // the head's sink logit ζ, in max (sinks)
    std::optional<double> sink; // exp(ζ − max), a term of exp_sum (sinks)
};

struct norm_parts {
    double mean;             // of the cell's row before the norm
    double std_dev;          // population standard deviation of that row
    double eps;              // added to std_dev
    std::vector<double> row; // the row itself
};

struct rms_parts {
    double mean_square;      // of the cell's row before the norm
    double eps;              // added to mean_square
    double gain;             // the column's gain λ
    std::vector<double> row; // the row itself
};

struct cell_explanation {
    double value = 0;                // the cell as the trace holds it
    std::vector<product_term> terms; // dot, dot_rows, scaled_dot, affine: Σ terms = sum
    double sum = 0;                  // Σ products, in order
    std::optional<double> bias;      // affine: value = sum + bias
    double divisor = 1;              // scaled: √d_k (1 without scaling)
    std::optional<double> input;     // mask, relu, norm: the cell before this stage
    std::optional<double> mask;      // mask: M[i, j], 0 or −∞
    std::optional<double> cap;       // soft_cap: κ; value = κ·tanh(input / κ)
    std::optional<double> gate;      // gate: 1 for a kept head's column, 0 for a pruned one
    std::optional<double> weight;    // softmax_backward: A[i, j]; value = weight·(input − sum)
    bool masked = false;             // masked / weights: the key is hidden from the query
    std::optional<softmax_parts> softmax; // weights: value = exps[col] / exp_sum
    std::vector<double> addends;          // sum: value = addends[0] + addends[1]
    std::optional<norm_parts> norm;       // norm: value = (input − mean) / (std_dev + eps)
    std::optional<rms_parts> rms; // rms_norm: value = input / √(mean_square + eps) · gain
    double alpha = 1;                     // running_sum, running_out: exp(m_old − m_new)
    double previous = 0;                  // running_*: the row's m, l or O before the tile
    std::optional<double> row_max;        // running_max: the max of the tile's row
    std::vector<double> row;              // running_sum: the tile's row of P, summed
    int source_head = no_head;            // concat: the head whose column this is; d_head: its own
    std::size_t source_col = 0;           // concat: the column inside that head; d_head: the column
                                          // of d_concat
    std::optional<double> next_token;     // token_loss: the token that came next (input: its p)
};

// How many numbers e holds: its scalars and every part of its lists.
std::size_t numbers_in(const cell_explanation &e);

// Explains t's stage `id` of `head` (at decode step or tile `step`) at (row, col); throws
// std::invalid_argument naming the field when the stage, head or cell does not exist.
cell_explanation explain_cell(const trace &t, stage_id id, int head, std::size_t row,
                              std::size_t col, int step = no_step);

} // namespace attention
