// The work budget of the model's entry points: how many multiply-adds a call will take, known from
// the config and the counts before anything is computed, so that a call that would run for
// minutes is refused at once, naming the count to lower (lossAndGradients, headScores, train).
#pragma once

#include <cstddef>
#include <string>

#include "attention/model.hpp"

namespace attention {

struct work_limits {
    // Multiply-adds a call may take: the default induction run (1000 steps of 32 sequences) takes
    // 43 % of it, 10 s in WebAssembly under node on one core of the test machine (2026-12-06).
    static constexpr double max_work = 68719476736.0; // 2³⁶
    // Doubles a train call's checkpoints may hold together (each: the model, Adam's m and v).
    static constexpr double max_checkpoint_values = 16777216.0; // 2²⁴: 128 MiB
};

// Multiply-adds of one sequence's forward pass: every layer's projections, QKᵀ, A·V and W_O, then
// the unembedding (the embedding is a lookup).
double forward_work(const model_config &c);

// The numbers a model's params hold.
double parameter_count(const model_config &c);

// Throws, naming field, unless `work` multiply-adds (of `what`: "256 sequences of this model") fit
// work_limits::max_work; `instead` says what to ask for.
void check_work(double work, const std::string &field, const std::string &what,
                const std::string &instead);

} // namespace attention
