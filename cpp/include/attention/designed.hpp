// Heads whose weights are constructed, not drawn, so that each one shows a pattern the lesson
// names. X = [position one-hot | word one-hot | 1] for the given tokens; four heads:
//   0 Positional: every token attends to the previous one;
//   1 Coreference (same word): every token attends to each occurrence of its own word;
//   2 Separator/delimiter: every token attends to the first token (an attention sink);
//   3 Not all heads are interpretable: a broad head, uniform over the tokens it may see.
// T = tokens, V = distinct words, D = d_model = T + V + 1, DK = T, DV = V.
#pragma once

#include <string>
#include <vector>

#include "attention/attention.hpp"

namespace attention {

// One designed head: the lesson's table row it stands for, its pattern, and how its W_Q and
// W_K are built (for the page to show beside the numbers).
struct designed_head {
    std::string name;
    std::string pattern;
    std::string construction;
};

const std::vector<designed_head> &designed_heads();

// X and every head's weights for these tokens (words compared without case). W_V copies each
// token's word features; W_O averages the four heads back into the word features of d_model.
attention_params designed_params(const std::vector<std::string> &tokens);

// The logit a designed head gives the key it looks for, after ÷ √DK (the others get 0).
constexpr double designed_logit = 8.0;

} // namespace attention
