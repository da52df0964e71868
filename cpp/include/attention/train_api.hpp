// The training entry points as JavaScript calls them: the fields each argument may hold, the
// core's values read from them (ranges checked here, each message naming the field), and the
// plain values handed back. The bindings only convert.
#pragma once

#include "attention/fields.hpp"
#include "attention/train.hpp"
#include "attention/value.hpp"

namespace attention {

// engine.initModel's { vocab, seqLen, dModel, numLayers, numHeads, dK?, dV?, seed? };
// a model's config { vocab, seqLen, dModel, numLayers, numHeads, dK, dV };
// engine.train's spec { task, seed?, vocab?, seqLen?, dModel?, numLayers?, numHeads?, batch?,
// steps?, learningRate?, checkpointEvery? } and its options' steps;
// a batch { tokens, mask? } (tokens also as engine.headScores's second argument).
const std::vector<field_rule> &init_model_fields();
const std::vector<field_rule> &model_config_fields();
const std::vector<field_rule> &train_spec_fields();
const std::vector<field_rule> &train_options_fields();
const std::vector<field_rule> &batch_fields();
const std::vector<field_rule> &
task_batch_fields(); // engine.taskBatch's options { stream?, count? }

// engine.modelForward's tokens, read as the field "tokens" of this rule.
const std::vector<field_rule> &model_input_fields();

// 1 … T whole numbers below V: the tokens a model reads.
std::vector<std::size_t> model_inputs(const model_config &c, const field_values &v);

// { residual: [x₀ … x_L], logits, probabilities (the softmax of each row), losses } of one
// sequence: losses[t] = −ln p(token t + 1) at position t, for t < n − 1.
value describe_forward(const model &m, const std::vector<std::size_t> &inputs);

// dK and dV default to dModel / numHeads, which must then divide. field: "model.config" etc.
model_config model_config_of(const field_values &v, const std::string &field);
model init_model_of(const field_values &v);
train_spec train_spec_of(const field_values &v);
std::size_t train_steps_of(const field_values &options); // 0 when not given

// A model of config c from its matrices in matrices_of's order (checked: finite, shaped by c).
model model_of(const model_config &c, const std::vector<row_list> &matrices,
               const std::string &field);
model_params params_of(const model_config &c, const std::vector<row_list> &matrices,
                       const std::string &field);

// tokens: whole numbers in [0, V), each row T + 1 long; mask: (B, T), default all 1.
token_batch batch_of(const model_config &c, const field_values &v);

// engine.taskBatch: the spec's task sequences of a stream (default 0, the held-out ones; count
// default 64, at most 256).
token_batch task_batch_of(const train_spec &s, const field_values &options);

// A model { config, params } as it crossed from JS (field: its name in messages, "model"), a
// model's params of config c (or Adam's moments, shaped like them) and a checkpoint train's `from`
// reads: each matrix found by its name in the model ("layers[1].W_Q[0]"), read, then checked.
model model_from(const value &m, const std::string &field);
model_params params_from(const value &params, const model_config &c, const std::string &field);
checkpoint checkpoint_from(const value &v, const std::string &field);

// Kind model's "model" field, read by model_from.
field_value model_field(const value &v, const std::string &name);

value describe(const model_config &c);
value describe(const train_spec &s);   // the spec with every default filled in, as JS spells it
value describe(const token_batch &b);  // { tokens: [[…]], mask: [[…]] }
value describe(const model_params &p); // { W_E, W_P, layers: [{ W_Q, W_K, W_V, W_O }], W_U }
value describe(const model &m);        // { config, params }
value describe(const std::vector<head_score> &scores);
value describe(const checkpoint &c);     // { step, loss, trainLoss, model, optimizer, headScores }
value describe(const loss_gradients &g); // { loss, grads }

} // namespace attention
