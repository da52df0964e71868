// Over 300 lines: the table of examples (presets()) is data, one entry per example.
#include "attention/presets.hpp"

#include <stdexcept>

#include "attention/message_text.hpp"

namespace attention {

namespace {

// Seed 42 throughout, as in the lesson.
generated_spec self(double t, double d, double h, std::optional<double> dk, bool causal, bool w_o) {
    generated_spec s;
    s.seq_len = t, s.d_model = d, s.num_heads = h, s.d_k = dk, s.d_v = dk, s.causal = causal;
    s.output_projection = w_o;
    return s;
}

generated_spec lesson_causal() {
    // The lesson's causal example does not reseed: it draws after the 1104 normals of the
    // multi-head example (X: 5·16, four each of W_Q, W_K, W_V: 4·3·16·4, W_O: 16·16).
    generated_spec s = self(4, 8, 1, 4, true, false);
    s.skip = 5 * 16 + 3 * 4 * 16 * 4 + 16 * 16;
    return s;
}

generated_spec grouped(double kv_heads) {
    generated_spec s = self(5, 16, 4, std::nullopt, false, true);
    s.num_kv_heads = kv_heads;
    return s;
}

generated_spec cross(double t_q, double t_kv, std::optional<double> valid_keys) {
    generated_spec s = self(t_q, 8, 2, 4, false, true);
    s.kind = problem_kind::cross;
    s.kv_len = t_kv;
    s.valid_keys = valid_keys;
    return s;
}

generated_spec encoder() {
    generated_spec s = self(5, 16, 4, std::nullopt, false, true);
    s.kind = problem_kind::encoder_layer;
    s.d_ff = 64;
    return s;
}

generated_spec decode(double kv_heads) {
    generated_spec s = grouped(kv_heads);
    s.kind = problem_kind::kv_cache;
    return s;
}

// StreamingLLM's cache: the decoding example's sizes over ten tokens, past its window of 6.
generated_spec streaming() {
    generated_spec s = decode(2);
    s.seq_len = 10;
    return s;
}

// With these sizes X, W_Q, W_K and W_V are the lesson's self-attention example's own draws.
// Multi-head latent attention scaled down: d_r = d_h / 2 as in DeepSeek-V2, d_c = 2·d_h (its 4·d_h
// would be d_model itself here: no compression); weights × 0.5, since k passes through two drawn
// matrices (W_DKV, W_UK) and would be near 0 at the usual 0.1.
generated_spec latent() {
    generated_spec s = self(8, 16, 4, 4, true, true);
    s.kind = problem_kind::mla;
    s.d_latent = 8, s.d_rope = 2, s.weight_scale = 0.5;
    return s;
}

generated_spec flash(bool causal, double block_rows, double block_cols) {
    generated_spec s = self(5, 8, 1, 4, causal, false);
    s.kind = problem_kind::flash;
    s.block_rows = block_rows, s.block_cols = block_cols;
    return s;
}

generated_spec designed(bool causal) {
    generated_spec s;
    s.kind = problem_kind::designed;
    s.tokens = {"the", "cat", "sat", "on", "the", "mat"};
    s.causal = causal;
    return s;
}

const std::vector<std::string> five{"the", "cat", "sat", "on", "mats"};
const std::vector<std::string> six{"the", "cat", "sat", "on", "the", "mat"};
const std::vector<std::string> eight{"the", "cat", "sat", "on", "the", "mat", "and", "slept"};
const std::vector<std::string> ten{"the", "cat", "sat", "on",    "the",
                                   "mat", "and", "slept", "all", "day"};

// The Positions and Masks chapters' sizes: seed 42, four heads of d_k = 4 (RoPE turns pairs),
// weights × 1 so that what a position or a mask does shows in the weights.
generated_spec positioned(double t, bool causal) {
    generated_spec s = self(t, 16, 4, std::nullopt, causal, true);
    s.weight_scale = 1;
    return s;
}

// Modern attention's QK-norm: the Positions chapter's sizes at weights × 3, where q·k grows large
// enough that the norm's bound shows.
generated_spec qk_normed() {
    generated_spec s = positioned(8, true);
    s.weight_scale = 3;
    return s;
}

// The shipped induction model (checkpoints.hpp) reading the training task's held-out sequence 0
// (its first T = 24 tokens): random tokens, the block 18 29 2 2 0 26, the block again. The task
// scores the copy: positions 16 … 20 predict its second to sixth tokens.
const std::vector<double> held_out{19, 17, 13, 20, 14, 28, 30, 12, 25, 16, 18, 29,
                                   2,  2,  0,  26, 18, 29, 2,  2,  0,  26, 3,  20};

generated_spec shipped(const std::string &checkpoint) {
    generated_spec s;
    s.kind = problem_kind::model;
    s.checkpoint = checkpoint;
    s.token_ids = held_out;
    s.scored = std::vector<double>{16, 17, 18, 19, 20};
    return s;
}

std::vector<std::string> id_labels(const std::vector<double> &ids) {
    std::vector<std::string> labels;
    for (double id : ids)
        labels.push_back(std::to_string(int(id)));
    return labels;
}

// The backward pass of a self-attention spec: its draws, then dO.
generated_spec backward(generated_spec s) {
    s.kind = problem_kind::backward;
    return s;
}

generated_spec causal(generated_spec s) {
    s.causal = true;
    return s;
}

// The lesson's ablation, at weight scale 1 so that the unscaled scores saturate the softmax.
generated_spec unscaled(generated_spec s) {
    s.scale_scores = false;
    s.weight_scale = 1;
    return s;
}

// Padding in self-attention without a causal mask (an encoder, as BERT pads its batches): keys
// from 6 on are pad tokens. (Under a causal mask, pads at the end would hide nothing from a real
// token that the causal mask did not.)
generated_spec padded() {
    generated_spec s = positioned(8, false);
    s.valid_keys = 6;
    return s;
}

} // namespace

// A table (~200 lines), one entry per example: long as data is, with no logic to split.
const std::vector<preset_info> &presets() {
    // clang-format off: one preset a line or two, as a table
    static const std::vector<preset_info> all{
        {"lesson-multi-head",
         "attention",
         "Seed 42: multi-head, 4 heads",
         true,
         self(5, 16, 4, std::nullopt, false, true),
         five,
         {}},
        {"lesson-self-attention",
         "attention",
         "Seed 42: self-attention",
         true,
         self(5, 8, 1, 4, false, false),
         five,
         {}},
        {"lesson-causal",
         "attention",
         "Seed 42: causal mask",
         true,
         lesson_causal(),
         {"the", "cat", "sat", "down"},
         {}},
        {"cross-translation",
         "cross",
         "Translation: le chat reads the cat sat",
         false,
         cross(2, 3, std::nullopt),
         {"le", "chat"},
         {"the", "cat", "sat"}},
        {"cross-padding",
         "cross",
         "Padded source: the last key is padding",
         false,
         cross(2, 4, 3),
         {"le", "chat"},
         {"the", "black", "cat", "<pad>"}},
        {"gqa-4-2",
         "gqa",
         "Grouped-query: 4 query heads, 2 K/V heads",
         false,
         grouped(2),
         five,
         {}},
        {"mqa-4-1", "gqa", "Multi-query: 4 query heads, 1 K/V head", false, grouped(1), five, {}},
        {"gqa-4-4", "gqa", "Multi-head for comparison: 4 and 4", false, grouped(4), five, {}},
        {"encoder-layer",
         "encoder-layer",
         "Encoder layer: 4 heads, d_ff = 64",
         false,
         encoder(),
         five,
         {}},
        {"kv-cache-gqa",
         "kv-cache",
         "Decoding: 4 query heads, 2 cached K/V heads",
         false,
         decode(2),
         five,
         {}},
        {"kv-cache-mha",
         "kv-cache",
         "Decoding: multi-head, 4 cached K/V heads",
         false,
         decode(4),
         five,
         {}},
        {"kv-cache-streaming",
         "kv-cache",
         "StreamingLLM: 4 sink tokens and a window of 6, decoded past it",
         false,
         streaming(),
         ten,
         {},
         {{"window", 6.0},
          {"sinkTokens", 4.0},
          {"rope", true},
          {"rope.convention", std::string("interleaved")}}},
        {"flash-causal",
         "flash",
         "Causal, 2 × 2 tiles (the last block short)",
         false,
         flash(true, 2, 2),
         five,
         {}},
        {"flash-full", "flash", "Bidirectional, 2 × 3 tiles", false, flash(false, 2, 3), five, {}},
        {"designed-heads",
         "designed-heads",
         "Four designed heads: the cat sat on the mat",
         false,
         designed(false),
         designed(false).tokens,
         {}},
        {"designed-heads-causal",
         "designed-heads",
         "Designed heads, causal: the cat sat on the mat",
         false,
         designed(true),
         designed(true).tokens,
         {}},
        {"trained-induction",
         "trained-heads",
         "Trained: a block of tokens, then the block again",
         false,
         shipped("trained"),
         id_labels(held_out),
         {}},
        {"untrained-induction",
         "trained-heads",
         "Untrained: the same tokens, the weights as drawn",
         false,
         shipped("untrained"),
         id_labels(held_out),
         {}},
        {"positions-rope",
         "positions",
         "RoPE, interleaved pairs (GPT-J, LLaMA)",
         false,
         positioned(6, true),
         six,
         {},
         {{"rope", true}, {"rope.convention", std::string("interleaved")}, {"rope.offset", 0.0}}},
        {"positions-rope-half-split",
         "positions",
         "RoPE, half-split pairs (GPT-NeoX), offset 3",
         false,
         positioned(6, true),
         six,
         {},
         {{"rope", true}, {"rope.convention", std::string("half-split")}, {"rope.offset", 3.0}}},
        {"positions-alibi",
         "positions",
         "ALiBi: a distance penalty per head (BLOOM)",
         false,
         positioned(6, true),
         six,
         {},
         {{"alibi", true}}},
        {"positions-sinusoidal",
         "positions",
         "Sinusoidal encoding added to X (the original Transformer)",
         false,
         positioned(6, false),
         six,
         {},
         {{"positionalEncoding", std::string("sinusoidal")}}},
        {"masks-window",
         "masks",
         "Sliding window of 3 (Mistral's kind of mask)",
         false,
         positioned(8, true),
         eight,
         {},
         {{"window", 3.0}}},
        {"masks-prefix",
         "masks",
         "Prefix-LM: the first 3 tokens see each other",
         false,
         positioned(8, false),
         eight,
         {},
         {{"prefix", 3.0}}},
        {"masks-documents",
         "masks",
         "Three packed documents: 3 + 3 + 2 tokens",
         false,
         positioned(8, false),
         eight,
         {},
         {{"documents", std::vector<double>{3, 3, 2}}}},
        {"masks-padding",
         "masks",
         "Padding: an encoder (as in BERT) whose last 2 of 8 positions are pad tokens",
         false,
         padded(),
         {"the", "cat", "sat", "on", "the", "mat", "<pad>", "<pad>"},
         {}},
        {"masks-causal", "masks", "Causal, to compare", false, positioned(8, true), eight, {}, {}},
        {"modern-softcap",
         "modern",
         "Soft-capped logits: κ = 30 (Grok-1's cap), weights × 1",
         false,
         positioned(8, true),
         eight,
         {},
         {{"softcap", 30.0}}},
        {"modern-qk-norm",
         "modern",
         "QK-norm before RoPE (Qwen3, Gemma 3): weights × 3, logits still bounded",
         false,
         qk_normed(),
         eight,
         {},
         {{"qkNorm", true}, {"rope", true}, {"rope.convention", std::string("interleaved")}}},
        {"modern-sinks",
         "modern",
         "Learned sinks (gpt-oss): ζ = 2, 0, −1, 1 per head",
         false,
         self(8, 16, 4, std::nullopt, true, true),
         eight,
         {},
         {{"sinks", std::vector<double>{2, 0, -1, 1}}}},
        {"modern-mla",
         "latent",
         "MLA as DeepSeek-V2: 4 heads from one latent of 8, a shared RoPE key of 2",
         false,
         latent(),
         eight,
         {}},
        {"backward-causal",
         "backward",
         "Seed 42, 4 heads, causal: every gradient",
         false,
         backward(self(5, 16, 4, std::nullopt, true, true)),
         five,
         {}},
        {"backward-gqa",
         "backward",
         "Grouped K/V heads: 4 query heads share 2",
         false,
         backward(causal(grouped(2))),
         five,
         {}},
        {"backward-window-alibi",
         "backward",
         "Sliding window of 3 with ALiBi, weights × 1",
         false,
         backward(positioned(8, true)),
         eight,
         {},
         {{"window", 3.0}, {"alibi", true}}},
        {"backward-rope",
         "backward",
         "RoPE: gradients turned back by −φ, weights × 1",
         false,
         backward(positioned(6, true)),
         six,
         {},
         {{"rope", true}, {"rope.convention", std::string("interleaved")}}},
        {"backward-no-scale",
         "backward",
         "Without ÷√d_k (the ablation), weights × 1",
         false,
         backward(unscaled(self(5, 16, 4, std::nullopt, true, true))),
         five,
         {}},
    };
    // clang-format on
    return all;
}

generated_spec preset(const std::string &id) {
    std::string known;
    for (const preset_info &p : presets()) {
        if (p.id == id)
            return p.spec;
        known += (known.empty() ? "" : ", ") + p.id;
    }
    throw std::invalid_argument("preset: " + quoted_for_message(id) + " is not one of " + known);
}

// GPT-2 small is the lesson's "GPT-2 (117M)": OpenAI's paper counted 117M and later corrected
// it, as the released weights hold 124M parameters.
const std::vector<model_info> &models() {
    static const std::vector<model_info> all{
        {"gpt2-124m", "GPT-2 (124M)", 768, 12, 64, 12, 12, 1024},
        {"gpt2-1.5b", "GPT-2 (1.5B)", 1600, 25, 64, 48, 25, 1024},
        {"gpt3-175b", "GPT-3 (175B)", 12288, 96, 128, 96, 96, 2048},
        {"llama3-8b", "LLaMA 3 (8B)", 4096, 32, 128, 32, 8, 8192},
        {"llama3-70b", "LLaMA 3 (70B)", 8192, 64, 128, 80, 8, 8192},
        {"mistral-7b", "Mistral 7B", 4096, 32, 128, 32, 8, 8192, 4096},
    };
    return all;
}

const std::vector<latent_model_info> &latent_models() {
    static const std::vector<latent_model_info> all{
        {"deepseek-v2-lite", "DeepSeek-V2-Lite (16B)", 2048, 16, 128, 64, 512, 27, 163840},
        {"deepseek-v3", "DeepSeek-V3 (671B)", 7168, 128, 128, 64, 512, 61, 163840},
    };
    return all;
}

std::uint64_t score_values(const model_info &m) {
    const std::uint64_t n = m.context;
    return n * n * m.num_heads * m.num_layers;
}

} // namespace attention
