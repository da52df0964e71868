// A tiny attention-only Transformer, as Olsson et al. (2022) study it: token and position
// embeddings, L layers of causal multi-head attention added to the residual stream (no biases,
// no LayerNorm, no MLP), and an unembedding to next-token logits.
// V = vocab, T = seq_len, D = d_model, L = layers, H = heads, DK = d_k, DV = d_v, B = batch.
//
//   x₀ = W_E[token] + W_P[position]        (T, D)
//   x_{l+1} = x_l + MHA_l(x_l)              (T, D)   causal, ÷√DK, W_O
//   logits = x_L · W_U                      (T, V)
//   loss = Σ mask · CE(logits, next token) / Σ mask
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention/backward.hpp"

namespace attention {

// Sizes a model may have: small enough to train in seconds and to stay inside WASM's memory.
struct model_limits {
    static constexpr std::size_t max_vocab = 256, max_seq_len = 128, max_d_model = 256;
    static constexpr std::size_t max_layers = 4, max_heads = 16, max_batch = 256;
};

struct model_config {
    std::size_t vocab = 0, seq_len = 0, d_model = 0, num_layers = 0, num_heads = 0;
    std::size_t d_k = 0, d_v = 0;
};

struct model_params {
    matrix w_e;                           // (V, D)   one row per token
    matrix w_p;                           // (T, D)   one row per position
    std::vector<attention_params> layers; // L × { W_Q, W_K, W_V: H × (D, DK | DV), W_O: (H·DV, D) }
    matrix w_u;                           // (D, V)
};

struct model {
    model_config config;
    model_params params;
};

// What every layer computes: causal self-attention with H heads, ÷√DK and W_O.
attention_config layer_config(const model_config &c);

// The parameters' matrices in their one order (W_E, W_P, then per layer W_Q of each head, W_K of
// each head, W_V of each head, W_O, and W_U last), and their names as JS spells them:
// "W_E", "layers[1].W_Q[0]", "W_U".
std::vector<matrix *> matrices_of(model_params &p);
std::vector<const matrix *> matrices_of(const model_params &p);
std::vector<std::string> matrix_names(const model_config &c);

// Every matrix of p zero, shaped as c's (the gradients' and Adam's moments' start).
model_params zeros_like(const model_config &c);

// A model drawn from numpy's generator seeded with `seed`, in matrices_of's order, each matrix
// randn(rows, cols) · (1/√rows) (a unit-variance input keeps unit variance through each product).
model init_model(const model_config &c, std::uint32_t seed);

// B sequences of T + 1 tokens (the inputs, and one position later their targets) and the weight
// each input position's loss counts with.
struct token_batch {
    std::vector<std::vector<std::size_t>> tokens; // B × (T + 1)
    matrix mask;                                  // (B, T)
};

// One sequence through the model, with what the backward pass reads.
struct sequence_pass {
    std::vector<matrix> residual;        // (L + 1) × (n, D): x₀ … x_L
    std::vector<attention_cache> layers; // L: each layer's q, k, v, weights and concat
    matrix logits;                       // (n, V)
};

// One sequence through the model, the one forward pass every reader takes (the loss, training,
// head scores, engine.modelForward, the stepper's kind "model"). inputs: the n ≤ T tokens it reads
// at positions 0 … n − 1, each below V (unchecked here: validate_batch and model_inputs check
// them). x₀ = W_E[inputs] + W_P, each layer's attention (heads.hpp) added to the residual stream,
// the logits. Recorded into `out` when given: embedded, then per layer l its attention's stages and
// residual, each with stage.step = l.
sequence_pass forward_sequence(const model &m, const std::vector<std::size_t> &inputs,
                               trace *out = nullptr);

// The config a pass of n tokens describes: a layer's, with kind model, V and L.
attention_config model_pass_config(const model_config &c, std::size_t n);

// Each position's next-token distribution, and −ln p of the token that follows it. logits: (n, V);
// tokens: the n inputs, and the targets after them (losses for t + 1 < tokens.size()).
struct next_token {
    matrix probabilities;       // (n, V): each row softmaxed
    std::vector<double> losses; // −ln probabilities[t, tokens[t + 1]]
};
next_token next_token_losses(const matrix &logits, const std::vector<std::size_t> &tokens);

struct loss_gradients {
    double loss;
    model_params grads; // shaped as the model's parameters
};

// The batch's loss and its gradient with respect to every parameter, by backpropagation:
// dlogits = (softmax − one-hot) · mask / Σ mask, then back through W_U, each layer's residual
// branch (attention_backward), and the embeddings' rows.
loss_gradients loss_and_gradients(const model &m, const token_batch &b);

// The loss alone (no backward pass).
double loss_of(const model &m, const token_batch &b);

// The tokens a sequence's pass reads: all but the last, which only a target is.
std::vector<std::size_t> sequence_inputs(const std::vector<std::size_t> &sequence);

// Σ mask: how many positions the batch's loss counts (weighted).
double mask_total(const token_batch &b);

// `loss` plus sequence s's terms of the batch's loss, from its pass, one by one (as loss_of adds
// them): mask(s, t) · −ln p(token t + 1) / counted, where counted = Σ mask over the batch.
double add_sequence_loss(double loss, const token_batch &b, std::size_t s, const sequence_pass &pass,
                         double counted);

// Refuses a model whose config is out of range or whose matrices are not shaped by it or hold a
// value that is not finite, and a batch with a token outside [0, V), a row not T + 1 long, a
// mask not (B, T), negative or not finite, or summing to 0. Messages name the field.
void validate_config(const model_config &c, const std::string &field);
void validate_model(const model &m, const std::string &field = "model");
void validate_batch(const model_config &c, const token_batch &b);

} // namespace attention
