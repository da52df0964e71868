// Heads whose weights are constructed, not drawn, so that each one shows one clear pattern, named
// for what it does. X = [position one-hot | word one-hot | 1] for the given tokens; four heads:
//   0 Previous token: every token attends to the one before it (token 0, with none, is uniform);
//   1 Same word (duplicate token): each token attends to every occurrence of its own word;
//   2 First token (attention sink): every token attends to token 0, whatever its word;
//   3 Uniform (broad): the same weight on every token it may see.
// T = tokens, V = distinct words, D = d_model = T + V + 1, DK = T, DV = V.
#pragma once

#include <string>
#include <vector>

#include "attention/attention.hpp"

namespace attention {

// One designed head: its name (what it does), its pattern (what it does, and which heads of
// trained models it resembles), and how its W_Q and W_K are built (for the page to show).
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
