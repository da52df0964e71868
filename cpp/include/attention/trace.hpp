// The trace: every stage of an attention run, with its shape algebra, values and operands.
#pragma once

#include <string>
#include <vector>

#include "attention/config.hpp"
#include "attention/matrix.hpp"

namespace attention {

constexpr int no_head = -1; // stages and operands that belong to no single head

// A matrix a stage was computed from, e.g. X and W_Q for the stage q.
struct operand {
    std::string name; // "X", "W_Q", "Q", "scores", "head", "contribution", …
    int head = no_head;
    matrix values;
};

// One dimension of a shape: its size and the symbol the lesson gives it.
struct dim {
    std::size_t size;
    std::string symbol; // "T", "d_model", "d_k", "d_v", "h·d_v"
};

// A shape equation twice over, with numbers and with symbols, token for token:
// "(5, 16) @ (16, 4) → (5, 4)" and "(T, d_model) @ (d_model, d_k) → (T, d_k)".
struct equation {
    std::string numeric;
    std::string symbolic;
};

equation shape_of(dim r, dim c);                     // (r, c)
equation product(dim m, dim k, dim n);               // (m, k) @ (k, n) → (m, n)
equation divide_by_sqrt(dim t, dim dk);              // (t, t) ÷ √dk → (t, t)
equation divide_by_one(dim t);                       // (t, t) ÷ 1 → (t, t)
equation add_mask(dim t);                            // (t, t) + mask → (t, t)
equation softmax_of(dim t);                          // softmax(t, t) → (t, t)
equation concat_of(dim h, dim t, dim dv, dim width); // h × (t, dv) → (t, width)

struct stage {
    std::string id; // x, q, k, v, scores, scaled, masked, weights, head, concat, output
    int head = no_head;
    equation eq;
    matrix values;
    std::vector<operand> operands;
};

struct trace {
    attention_config config;
    std::vector<stage> stages;
};

// How many doubles a traced run of this config records, operands included.
std::size_t trace_value_count(const attention_config &c);

} // namespace attention
