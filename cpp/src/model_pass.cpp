#include "attention/model_pass.hpp"

#include "attention/ops.hpp"
#include "attention/passes.hpp"

namespace attention {

matrix model_pass(const model &m, const std::vector<std::size_t> &tokens,
                  const std::vector<double> &counted, trace *out) {
    const std::size_t n = tokens.size();
    const sequence_pass pass = forward_sequence(m, tokens, out);
    next_token next = next_token_losses(pass.logits, tokens);

    // Position i predicts token i + 1: the loss reads p[i, tokens[i + 1]].
    matrix ids({n - 1, 1}), token_loss({n - 1, 1}), weight({n - 1, 1}); // (n − 1, 1)
    double total = 0, weights = 0;
    for (std::size_t i = 0; i + 1 < n; ++i) {
        ids(i, 0) = double(tokens[i + 1]);
        token_loss(i, 0) = next.losses[i];
        weight(i, 0) = counted[i];
        total += counted[i] * token_loss(i, 0);
        weights += counted[i];
    }
    matrix loss({1, 1}, total / weights); // (1, 1)
    if (!out)
        return loss;
    const attention_config c = model_pass_config(m.config, n);
    out->config = c;
    const dim t{n, "T"}, d{c.d_model, "d_model"}, v{c.vocab, "V"}, one{1, "1"};
    const dim scored{n - 1, "T − 1"};
    const axes tv = axes_of(t, v), scored_one = axes_of(scored, one);
    const shared_matrix logits = pass.logits, probs = std::move(next.probabilities); // (n, V)
    record(out, stage_id::logits, {}, {t, d, v}, logits,
           operand{"X", no_head, pass.residual.back(), axes_of(t, d)},
           operand{"W_U", no_head, m.params.w_u, axes_of(d, v)});
    record(out, stage_id::probabilities, {}, {t, v}, probs,
           operand{name_of(stage_id::logits), no_head, logits, tv});
    const shared_matrix losses = std::move(token_loss);
    record(out, stage_id::token_loss, {}, {t, v, scored, one}, losses,
           operand{name_of(stage_id::probabilities), no_head, probs, tv},
           operand{"next", no_head, std::move(ids), scored_one});
    record(out, stage_id::loss, {}, {scored, one}, std::move(loss),
           operand{name_of(stage_id::token_loss), no_head, losses, scored_one},
           operand{"counted", no_head, std::move(weight), scored_one});
    return loss;
}

} // namespace attention
