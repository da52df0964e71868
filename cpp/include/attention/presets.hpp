// The examples the stepper opens with, defined once here and listed to JS by the engine, and
// the real models the lesson's table names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention/fields.hpp"
#include "attention/spec.hpp"

namespace attention {

struct preset_info {
    std::string id;
    std::string chapter; // attention, cross, gqa, encoder-layer, kv-cache, flash, positions, …
    std::string title;
    bool seed42; // the very numbers of the seed-42 examples (numpy seeded with 42)
    generated_spec spec;
    std::vector<std::string> tokens;     // row labels of X (X_q in cross-attention)
    std::vector<std::string> key_tokens; // cross-attention: row labels of X_kv
    field_values positions = {};         // rope, alibi, positionalEncoding, window, prefix, …
};

// Every preset, the first of each chapter its default.
const std::vector<preset_info> &presets();

// The preset's spec; throws std::invalid_argument naming the known ones.
generated_spec preset(const std::string &id);

// A model from the lesson's table "Multi-Head Attention in Real Models", with its K/V heads
// (LLaMA 3 uses grouped-query attention) and its context length, and one model whose layers
// attend through a sliding window (Mistral 7B), which its cache then holds at most.
struct model_info {
    std::string id, name;
    std::size_t d_model, num_heads, d_k, num_layers, num_kv_heads, context;
    std::size_t window = 0; // sliding-window attention's W; 0: every past token
};

const std::vector<model_info> &models();

// A model whose attention caches a latent instead of K and V (multi-head latent attention,
// DeepSeek-V2 §2.1): its heads, a head's width d_h without RoPE, the decoupled RoPE part d_r
// that every head shares, the latent d_c, its layers and context, as its config.json gives them
// (num_attention_heads, qk_nope_head_dim, qk_rope_head_dim, kv_lora_rank, num_hidden_layers,
// max_position_embeddings). Its cache holds d_c + d_r values per token and layer.
struct latent_model_info {
    std::string id, name;
    std::size_t d_model, num_heads, d_head, d_rope, d_latent, num_layers, context;
};

const std::vector<latent_model_info> &latent_models();

// Attention weights one forward pass holds over every head and layer at the model's full
// context: context² · heads · layers (GPT-3: 2048² · 96 · 96 = 38,654,705,664).
std::uint64_t score_values(const model_info &m);

} // namespace attention
