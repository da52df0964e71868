// The attention-only model's forward pass (model.hpp) as a trace, for spec kind "model": every
// stage a learner steps through, from the embeddings to the loss.
#pragma once

#include <vector>

#include "attention/model.hpp"
#include "attention/trace.hpp"

namespace attention {

// tokens: 2 ≤ n ≤ T token ids below V; counted: n − 1 weights, 1 where position t's loss counts
// (checked by the caller). Records embedded (W_E[tokens] + W_P), then per layer l its causal
// self-attention stages, x … output, and residual (x_l + output), each with stage.step = l;
// then logits, probabilities, token_loss (−ln p of each next token: n − 1 rows) and loss
// (Σ counted·token_loss ÷ Σ counted). → the loss, (1, 1).
matrix model_pass(const model &m, const std::vector<std::size_t> &tokens,
                  const std::vector<double> &counted, trace *out);

} // namespace attention
