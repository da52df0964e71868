#include "attention/fields.hpp"

#include <iterator>
#include <stdexcept>

#include "attention/message_text.hpp"
#include "attention/validation.hpp"

namespace attention {

namespace {

using t = field_type;

const char *const kind_names_in_order[] = {"self",  "cross",    "encoder-layer", "kv-cache",
                                           "flash", "designed", "backward",      "model", "mla"};

// The fields of a spec's `rope`, and the settings they ask for (none when the spec has no
// `rope`), checked against the head's d_k. Throws naming the field.
const std::vector<field_rule> &rope_fields() {
    static const std::vector<field_rule> f{{"base", field_type::number},
                                           {"convention", field_type::text},
                                           {"offset", field_type::number},
                                           {"dims", field_type::number}};
    return f;
}

// MLA's `rope`: the base and convention of its decoupled part, which turns all dRope columns
// from position 0.
const std::vector<field_rule> &latent_rope_fields() {
    static const std::vector<field_rule> f{{"base", field_type::number},
                                           {"convention", field_type::text}};
    return f;
}

// A matrix of at most r × c, required or not.
field_rule matrix_field(const char *name, bool required, std::size_t r, std::size_t c) {
    return {name, t::matrix, required, 0, r, c};
}

// One matrix per head (W_Q, W_K, W_V): at most max_heads of (D, d_k or d_v).
field_rule per_head(const char *name) {
    return {name, t::matrices, true, limits::max_heads, limits::max_d_model, limits::max_head_dim};
}

// QK-norm's gain of q or k: one number per column of a head (d_k).
field_rule qk_gain(const char *name) {
    return {name, t::numbers, false, limits::max_head_dim};
}

const field_rule pruned_heads{"prunedHeads", t::numbers, false, limits::max_heads};
const field_rule rope{"rope", t::object, false, 0, 0, 0, false, &rope_fields()};
const field_rule latent_rope{"rope", t::object, false, 0, 0, 0, false, &latent_rope_fields()};
const field_rule d_output =
    matrix_field("dOutput", false, limits::max_seq_len, limits::max_heads *limits::max_head_dim);

// A generated spec's fields in the order they are read, each kept when `takes` says so.
template <class Takes> std::vector<field_rule> generated(problem_kind kind, Takes takes) {
    const bool cross = kind == problem_kind::cross;
    const std::vector<field_rule> all{{"kind", t::text},
                                      {"seed", t::number},
                                      {"skip", t::number},
                                      {cross ? "queryLen" : "seqLen", t::number, true},
                                      {"keyLen", t::number, true},
                                      {"dModel", t::number, true},
                                      {"numHeads", t::number},
                                      {"numKvHeads", t::number},
                                      {"dK", t::number},
                                      {"dV", t::number},
                                      {"dLatent", t::number, kind == problem_kind::mla},
                                      {"dRope", t::number},
                                      {"dFF", t::number},
                                      {"validKeys", t::number},
                                      {"blockRows", t::number, true},
                                      {"blockCols", t::number, true},
                                      {"causal", t::flag},
                                      {"outputProjection", t::flag},
                                      {"scaleScores", t::flag},
                                      {"weightScale", t::number},
                                      pruned_heads,
                                      kind == problem_kind::mla ? latent_rope : rope,
                                      {"window", t::number},
                                      {"sinkTokens", t::number},
                                      {"prefix", t::number},
                                      {"alibi", t::flag},
                                      {"softcap", t::number},
                                      {"qkNorm", t::flag},
                                      qk_gain("qNormGain"),
                                      qk_gain("kNormGain"),
                                      {"sinks", t::flag_or_numbers, false, limits::max_heads},
                                      {"positionalEncoding", t::text},
                                      {"documents", t::numbers, false, limits::max_seq_len},
                                      d_output};
    std::vector<field_rule> kept;
    for (const field_rule &f : all)
        if (takes(std::string(f.name)))
            kept.push_back(f);
    return kept;
}

// Which of generated()'s fields each kind takes.
bool kind_takes(problem_kind kind, const std::string &f) {
    static const char *const common[] = {"kind", "seed",        "skip",        "dModel", "numHeads",
                                         "dK",   "scaleScores", "weightScale", "dV"};
    for (const char *c : common)
        if (f == c)
            return !(kind == problem_kind::flash && f == "numHeads"); // one head, no W_O
    const auto any = [&](std::initializer_list<const char *> names) {
        for (const char *n : names)
            if (f == n)
                return true;
        return false;
    };
    switch (kind) {
    case problem_kind::cross:
        return any({"queryLen", "keyLen", "validKeys", "outputProjection", "prunedHeads", "softcap",
                    "qkNorm", "qNormGain", "kNormGain", "sinks"});
    case problem_kind::encoder_layer:
        return any({"seqLen", "dFF", "causal", "prunedHeads"});
    case problem_kind::kv_cache: // causal by nature
        return any({"seqLen", "numKvHeads", "outputProjection", "rope", "alibi",
                    "positionalEncoding", "window", "sinkTokens", "softcap", "qkNorm", "qNormGain", "kNormGain",
                    "sinks"});
    case problem_kind::flash:
        return any({"seqLen", "causal", "blockRows", "blockCols", "window"});
    case problem_kind::mla: // its own projections; the multi-head loop's causal mask
        return any({"seqLen", "causal", "dLatent", "dRope", "rope"});
    case problem_kind::backward: // self-attention's fields but pruning, and the gradient dO
        return any({"seqLen", "numKvHeads", "causal", "outputProjection", "rope", "validKeys",
                    "window", "prefix", "documents", "alibi", "positionalEncoding", "dOutput"});
    default: // self
        return any({"seqLen", "numKvHeads", "causal", "outputProjection", "prunedHeads", "rope",
                    "validKeys", "window", "sinkTokens", "prefix", "documents", "alibi", "positionalEncoding",
                    "softcap", "qkNorm", "qNormGain", "kNormGain", "sinks"});
    }
}

// MLA's matrices (mla.hpp): X and W_DKV, the per-head W_UK, W_UV, W_Q, the RoPE parts' W_KR and
// W_QR (both or neither), W_O.
std::vector<field_rule> latent_rules() {
    const std::size_t most = limits::max_heads * limits::max_head_dim;
    return {{"kind", t::text},
            matrix_field("X", true, limits::max_seq_len, limits::max_d_model),
            matrix_field("W_DKV", true, limits::max_d_model, limits::max_head_dim),
            {"W_UK", t::matrices, true, limits::max_heads, limits::max_head_dim, limits::max_head_dim},
            {"W_UV", t::matrices, true, limits::max_heads, limits::max_head_dim, limits::max_head_dim},
            per_head("W_Q"),
            matrix_field("W_KR", false, limits::max_d_model, limits::max_head_dim),
            {"W_QR", t::matrices, false, limits::max_heads, limits::max_d_model, limits::max_head_dim},
            matrix_field("W_O", true, most, limits::max_d_model),
            {"causal", t::flag},
            {"scaleScores", t::flag},
            latent_rope};
}

std::vector<field_rule> explicit_rules(problem_kind kind) {
    const bool cross = kind == problem_kind::cross, backward = kind == problem_kind::backward;
    std::vector<field_rule> f{{"kind", t::text}};
    if (cross) {
        f.push_back(matrix_field("X_q", true, limits::max_seq_len, limits::max_d_model));
        f.push_back(matrix_field("X_kv", true, limits::max_seq_len, limits::max_d_model));
    } else {
        f.push_back(matrix_field("X", true, limits::max_seq_len, limits::max_d_model));
    }
    f.push_back(per_head("W_Q"));
    f.push_back(per_head("W_K"));
    f.push_back(per_head("W_V"));
    f.push_back(
        matrix_field("W_O", false, limits::max_heads * limits::max_head_dim, limits::max_d_model));
    if (!cross)
        f.push_back({"causal", t::flag});
    f.push_back({"validKeys", t::number});
    f.push_back({"scaleScores", t::flag});
    if (backward) { // dO given, or drawn from the seed
        f.push_back(d_output);
        f.push_back({"seed", t::number});
    } else {
        f.push_back(pruned_heads);
        f.push_back({"softcap", t::number});
        f.push_back({"qkNorm", t::flag});
        f.push_back(qk_gain("qNormGain"));
        f.push_back(qk_gain("kNormGain"));
        f.push_back({"sinks", t::numbers, false, limits::max_heads});
    }
    if (!cross) {
        f.push_back(rope);
        f.push_back({"window", t::number});
        if (!backward)
            f.push_back({"sinkTokens", t::number});
        f.push_back({"prefix", t::number});
        f.push_back({"alibi", t::flag});
        f.push_back({"positionalEncoding", t::text});
        f.push_back({"documents", t::numbers, false, limits::max_seq_len});
    }
    return f;
}

} // namespace

const char *kind_name(problem_kind kind) {
    return kind_names_in_order[static_cast<int>(kind)];
}

std::string kind_names() {
    std::string out;
    for (const char *k : kind_names_in_order)
        out += (out.empty() ? "" : ", ") + std::string(k);
    return out;
}

problem_kind kind_named(const std::optional<std::string> &name) {
    if (!name)
        return problem_kind::self;
    for (int k = 0; k < int(std::size(kind_names_in_order)); ++k)
        if (*name == kind_names_in_order[k])
            return static_cast<problem_kind>(k);
    reject("kind", quoted_for_message(*name) + " is not one of " + kind_names());
}

spec_schema spec_fields(problem_kind kind, bool explicit_matrices) {
    const bool cross = kind == problem_kind::cross;
    if (explicit_matrices && kind == problem_kind::mla)
        return {latent_rules(), "explicit kind \"mla\""};
    if (explicit_matrices && kind != problem_kind::self && !cross && kind != problem_kind::backward)
        reject("kind", "\"" + std::string(kind_name(kind)) +
                           "\" takes no explicit matrices; give sizes and a seed (or tokens)");
    if (explicit_matrices)
        return {explicit_rules(kind), cross ? "kind \"cross\""
                                      : kind == problem_kind::backward
                                          ? "explicit kind \"backward\""
                                          : "explicit self-attention"};
    const std::string what = kind == problem_kind::self
                                 ? std::string("self-attention")
                                 : "kind \"" + std::string(kind_name(kind)) + "\"";
    if (kind == problem_kind::model)
        return {{{"kind", t::text},
                 {"checkpoint", t::text},
                 {"model", t::model},
                 {"tokens", t::numbers, true, limits::max_seq_len},
                 {"scored", t::numbers, false, limits::max_seq_len}},
                what};
    if (kind == problem_kind::designed)
        return {{{"kind", t::text},
                 {"tokens", t::words, true, limits::max_designed_tokens},
                 {"causal", t::flag},
                 pruned_heads},
                what};
    return {generated(kind, [&](const std::string &f) { return kind_takes(kind, f); }), what};
}

const std::vector<field_rule> &preset_fields() {
    static const std::vector<field_rule> f{{"preset", t::text, true}};
    return f;
}

const std::vector<field_rule> &cell_fields() {
    static const std::vector<field_rule> f{{"stage", t::text, true},
                                           {"head", t::number, false, 0, 0, 0, true},
                                           {"step", t::number, false, 0, 0, 0, true},
                                           {"row", t::number},
                                           {"col", t::number}};
    return f;
}

const std::vector<field_rule> &kv_query_fields() {
    static const std::vector<field_rule> f{{"seqLen", t::number, true},
                                           {"dHead", t::number},
                                           {"numKvHeads", t::number},
                                           {"latentDims", t::number},
                                           {"numLayers", t::number, true},
                                           {"bytesPerValue", t::number, true},
                                           {"batch", t::number},
                                           {"window", t::number}};
    return f;
}

const std::vector<field_rule> &randn_fields() {
    static const std::vector<field_rule> f{
        {"seed", t::number}, {"rows", t::number}, {"cols", t::number}};
    return f;
}

} // namespace attention
