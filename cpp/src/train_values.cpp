// The training entry points' answers as plain values (train_api.hpp): models, checkpoints, head
// scores, a batch, a sequence's forward pass, each matrix as { shape, values }.
#include "attention/train_api.hpp"

#include <cmath>

#include "attention/ops.hpp"

namespace attention {

namespace {

value matrix_value(const matrix &m) {
    return value_record{{"shape", value_list{rows(m), cols(m)}},
                        {"values", std::vector<double>(m.begin(), m.end())}};
}

} // namespace

value describe_forward(const model &m, const std::vector<std::size_t> &inputs) {
    const sequence_pass s = forward_sequence(m, inputs);
    const next_token next = next_token_losses(s.logits, inputs);
    value_list residual;
    for (const matrix &x : s.residual)
        residual.push_back(matrix_value(x));
    return value_record{{"residual", std::move(residual)},
                        {"logits", matrix_value(s.logits)},
                        {"probabilities", matrix_value(next.probabilities)},
                        {"losses", next.losses}};
}

value describe(const train_spec &s) {
    const model_config &c = s.config;
    return value_record{{"task", task_name(s.task)},
                        {"seed", double(s.seed)},
                        {"vocab", c.vocab},
                        {"seqLen", c.seq_len},
                        {"dModel", c.d_model},
                        {"numLayers", c.num_layers},
                        {"numHeads", c.num_heads},
                        {"batch", s.batch},
                        {"steps", s.steps},
                        {"learningRate", s.learning_rate},
                        {"checkpointEvery", s.checkpoint_every}};
}

value describe(const token_batch &b) {
    value_list tokens, mask;
    for (std::size_t s = 0; s < b.tokens.size(); ++s) {
        std::vector<double> row(b.tokens[s].begin(), b.tokens[s].end()); // whole numbers below 2⁵³
        value_list ids(row.begin(), row.end()), weights;
        for (std::size_t t = 0; t < cols(b.mask); ++t)
            weights.emplace_back(b.mask(s, t));
        tokens.emplace_back(std::move(ids));
        mask.emplace_back(std::move(weights));
    }
    value_record out;
    out.emplace_back("tokens", std::move(tokens));
    out.emplace_back("mask", std::move(mask));
    return out;
}

value describe(const model_config &c) {
    return value_record{{"vocab", c.vocab},
                        {"seqLen", c.seq_len},
                        {"dModel", c.d_model},
                        {"numLayers", c.num_layers},
                        {"numHeads", c.num_heads},
                        {"dK", c.d_k},
                        {"dV", c.d_v}};
}

value describe(const model_params &p) {
    value_list layers;
    for (const attention_params &layer : p.layers) {
        value_record heads;
        for (const auto &[name, list] :
             {std::pair{"W_Q", &layer.w_q}, {"W_K", &layer.w_k}, {"W_V", &layer.w_v}}) {
            value_list each;
            for (const matrix &w : *list)
                each.push_back(matrix_value(w));
            heads.emplace_back(name, std::move(each));
        }
        heads.emplace_back("W_O", matrix_value(layer.w_o));
        layers.push_back(std::move(heads));
    }
    return value_record{{"W_E", matrix_value(p.w_e)},
                        {"W_P", matrix_value(p.w_p)},
                        {"layers", std::move(layers)},
                        {"W_U", matrix_value(p.w_u)}};
}

value describe(const model &m) {
    return value_record{{"config", describe(m.config)}, {"params", describe(m.params)}};
}

namespace {

// A head's four scores, without its layer and head: what uniform attention scores, as it is.
value_record scores_of(const head_score &s) {
    return {{"previousToken", s.previous_token},
            {"firstToken", s.first_token},
            {"induction", s.induction},
            {"self", s.self}};
}

} // namespace

value describe(const std::vector<head_score> &scores) {
    value_list out;
    for (const head_score &s : scores) {
        value_record r{{"layer", s.layer}, {"head", s.head}};
        for (auto &field : scores_of(s))
            r.push_back(std::move(field));
        out.push_back(std::move(r));
    }
    return out;
}

value describe(const checkpoint &c) {
    return value_record{{"step", c.step},
                        {"loss", c.loss},
                        {"trainLoss", std::isnan(c.train_loss) ? value() : value(c.train_loss)},
                        {"model", describe(c.trained)},
                        {"optimizer", value_record{{"step", c.optimizer.step},
                                                   {"m", describe(c.optimizer.m)},
                                                   {"v", describe(c.optimizer.v)}}},
                        {"headScores", describe(c.scores)},
                        {"uniformScores", scores_of(c.uniform)}};
}

value describe(const loss_gradients &g) {
    return value_record{{"loss", g.loss}, {"grads", describe(g.grads)}};
}

} // namespace attention
