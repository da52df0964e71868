// One cell of a traced stage, taken apart into the numbers that produce it.
#pragma once

#include <optional>
#include <string>
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
    double exp_sum;             // Σ exps
};

struct cell_explanation {
    double value = 0;                     // the cell as the trace holds it
    std::vector<product_term> terms;      // dot-product stages: Σ terms = sum
    double sum = 0;                       // Σ products, in order
    double divisor = 1;                   // scaled: √d_k (1 without scaling)
    bool masked = false;                  // masked / weights: j > i under a causal mask
    std::optional<softmax_parts> softmax; // weights: value = exps[col] / exp_sum
    int source_head = no_head;            // concat: the head whose column this is
    std::size_t source_col = 0;           // concat: the column inside that head
};

// Explains t's stage `stage_id` of `head` at (row, col); throws std::invalid_argument
// naming the field when the stage, head or cell does not exist.
cell_explanation explain_cell(const trace &t, const std::string &stage_id, int head,
                              std::size_t row, std::size_t col);

} // namespace attention
