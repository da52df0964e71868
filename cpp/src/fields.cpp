#include "attention/fields.hpp"

#include <cmath>
#include <iterator>
#include <stdexcept>

#include "attention/checkpoints.hpp"
#include "attention/mask.hpp"
#include "attention/message_text.hpp"
#include "attention/presets.hpp"
#include "attention/rope.hpp"
#include "attention/validation.hpp"

namespace attention {

namespace {

using t = field_type;

const char *const kind_names_in_order[] = {"self",  "cross",    "encoder-layer", "kv-cache",
                                           "flash", "designed", "backward",      "model"};

[[noreturn]] void reject(const std::string &field, const std::string &rule) {
    throw std::invalid_argument(field + ": " + rule);
}

// The fields of a spec's `rope`, and the settings they ask for (none when the spec has no
// `rope`), checked against the head's d_k. Throws naming the field.
const std::vector<field_rule> &rope_fields() {
    static const std::vector<field_rule> f{{"base", field_type::number},
                                           {"convention", field_type::text},
                                           {"offset", field_type::number},
                                           {"dims", field_type::number}};
    return f;
}

std::optional<rope_settings> rope_of(const field_values &v, std::size_t d_k) {
    if (!v.count("rope"))
        return std::nullopt;
    rope_settings r;
    r.base = number_or(v, "rope.base", r.base);
    if (!std::isfinite(r.base) || r.base <= 0)
        throw std::invalid_argument(
            "rope.base: " + js_number(r.base) +
            " must be a finite number above 0 (RoPE's usual base is 10000)");
    const auto convention = v.find("rope.convention");
    if (convention != v.end()) {
        const std::string &name = std::get<std::string>(convention->second);
        if (name != "interleaved" && name != "half-split")
            throw std::invalid_argument("rope.convention: " + quoted_for_message(name) +
                                        " is not one of interleaved, half-split");
        r.half_split = name == "half-split";
    }
    r.offset = whole_number("rope.offset", number_or(v, "rope.offset", 0), 0, limits::max_skip);
    r.dims = whole_number("rope.dims", number_or(v, "rope.dims", double(d_k)), 2, d_k);
    if (r.dims % 2)
        throw std::invalid_argument("rope.dims: " + std::to_string(r.dims) +
                                    " is odd; each pair turns two columns");
    return r;
}

// A matrix of at most r × c, required or not.
field_rule matrix_field(const char *name, bool required, std::size_t r, std::size_t c) {
    return {name, t::matrix, required, 0, r, c};
}

// One matrix per head (W_Q, W_K, W_V): at most max_heads of (D, d_k or d_v).
field_rule per_head(const char *name) {
    return {name, t::matrices, true, limits::max_heads, limits::max_d_model, limits::max_head_dim};
}

const field_rule pruned_heads{"prunedHeads", t::numbers, false, limits::max_heads};
const field_rule rope{"rope", t::object, false, 0, 0, 0, false, &rope_fields()};
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
                                      {"dFF", t::number},
                                      {"validKeys", t::number},
                                      {"blockRows", t::number, true},
                                      {"blockCols", t::number, true},
                                      {"causal", t::flag},
                                      {"outputProjection", t::flag},
                                      {"scaleScores", t::flag},
                                      {"weightScale", t::number},
                                      pruned_heads,
                                      rope,
                                      {"window", t::number},
                                      {"prefix", t::number},
                                      {"alibi", t::flag},
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
        return any({"queryLen", "keyLen", "validKeys", "outputProjection", "prunedHeads"});
    case problem_kind::encoder_layer:
        return any({"seqLen", "dFF", "causal", "prunedHeads"});
    case problem_kind::kv_cache: // causal by nature
        return any({"seqLen", "numKvHeads", "outputProjection", "rope", "alibi",
                    "positionalEncoding", "window"});
    case problem_kind::flash:
        return any({"seqLen", "causal", "blockRows", "blockCols", "window"});
    case problem_kind::backward: // self-attention's fields but pruning, and the gradient dO
        return any({"seqLen", "numKvHeads", "causal", "outputProjection", "rope", "validKeys",
                    "window", "prefix", "documents", "alibi", "positionalEncoding", "dOutput"});
    default: // self
        return any({"seqLen", "numKvHeads", "causal", "outputProjection", "prunedHeads", "rope",
                    "validKeys", "window", "prefix", "documents", "alibi", "positionalEncoding"});
    }
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
    }
    if (!cross) {
        f.push_back(rope);
        f.push_back({"window", t::number});
        f.push_back({"prefix", t::number});
        f.push_back({"alibi", t::flag});
        f.push_back({"positionalEncoding", t::text});
        f.push_back({"documents", t::numbers, false, limits::max_seq_len});
    }
    return f;
}

template <class T> const T *get(const field_values &v, const char *name) {
    const auto at = v.find(name);
    return at == v.end() ? nullptr : &std::get<T>(at->second);
}

std::optional<double> optional_number(const field_values &v, const char *name) {
    const double *x = get<double>(v, name);
    return x ? std::optional<double>(*x) : std::nullopt;
}

bool flag_or(const field_values &v, const char *name, bool fallback) {
    const bool *x = get<bool>(v, name);
    return x ? *x : fallback;
}

generated_spec generated_of(problem_kind kind, const field_values &v) {
    generated_spec s;
    s.kind = kind;
    if (kind == problem_kind::model) { // a shipped model or a given one: nothing is drawn
        const std::string *name = get<std::string>(v, "checkpoint");
        const auto *given = get<std::shared_ptr<const model>>(v, "model");
        if (!name && !given)
            reject("checkpoint", std::string("is missing; give one of ") + checkpoint_names() +
                                     ", or a model { config, params }");
        if (name && given)
            reject("checkpoint", "and model are both given; give one");
        s.checkpoint = name ? *name : "";
        s.net = given ? *given : nullptr;
        s.token_ids = *get<std::vector<double>>(v, "tokens");
        if (const auto *scored = get<std::vector<double>>(v, "scored"))
            s.scored = *scored;
        return s;
    }
    if (kind == problem_kind::designed) { // built from its tokens: nothing is drawn
        s.tokens = *get<std::vector<std::string>>(v, "tokens");
        s.causal = flag_or(v, "causal", false);
        if (const auto *heads = get<std::vector<double>>(v, "prunedHeads"))
            s.pruned_heads = *heads;
        return s;
    }
    const bool cross = kind == problem_kind::cross;
    s.seed = number_or(v, "seed", s.seed);
    s.skip = number_or(v, "skip", s.skip);
    s.seq_len = number_or(v, cross ? "queryLen" : "seqLen", 0);
    s.kv_len = number_or(v, "keyLen", 0);
    s.d_model = number_or(v, "dModel", 0);
    s.num_heads = number_or(v, "numHeads", s.num_heads);
    s.num_kv_heads = optional_number(v, "numKvHeads");
    s.d_k = optional_number(v, "dK");
    s.d_v = optional_number(v, "dV");
    s.d_ff = optional_number(v, "dFF");
    s.valid_keys = optional_number(v, "validKeys");
    s.block_rows = number_or(v, "blockRows", 0);
    s.block_cols = number_or(v, "blockCols", 0);
    s.causal = flag_or(v, "causal", s.causal);
    s.output_projection = flag_or(v, "outputProjection", s.output_projection);
    s.scale_scores = flag_or(v, "scaleScores", s.scale_scores);
    s.weight_scale = number_or(v, "weightScale", s.weight_scale);
    if (const auto *heads = get<std::vector<double>>(v, "prunedHeads"))
        s.pruned_heads = *heads;
    if (const row_list *d_o = get<row_list>(v, "dOutput"))
        s.d_output = *d_o;
    return s;
}

explicit_spec explicit_of(problem_kind kind, const field_values &v) {
    explicit_spec s;
    s.kind = kind;
    const bool cross = kind == problem_kind::cross;
    s.x = *get<row_list>(v, cross ? "X_q" : "X");
    if (cross)
        s.x_kv = *get<row_list>(v, "X_kv");
    s.w_q = *get<std::vector<row_list>>(v, "W_Q");
    s.w_k = *get<std::vector<row_list>>(v, "W_K");
    s.w_v = *get<std::vector<row_list>>(v, "W_V");
    if (const row_list *w_o = get<row_list>(v, "W_O"))
        s.w_o = *w_o;
    s.valid_keys = optional_number(v, "validKeys");
    s.causal = flag_or(v, "causal", false);
    s.scale_scores = flag_or(v, "scaleScores", true);
    if (const auto *heads = get<std::vector<double>>(v, "prunedHeads"))
        s.pruned_heads = *heads;
    if (const row_list *d_o = get<row_list>(v, "dOutput"))
        s.d_output = *d_o;
    s.seed = number_or(v, "seed", s.seed);
    return s;
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
                                           {"dHead", t::number, true},
                                           {"numKvHeads", t::number, true},
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

double number_or(const field_values &v, const char *name, double fallback) {
    const double *x = get<double>(v, name);
    return x ? *x : fallback;
}

// The problem its sizes and matrices make, then the positions and masks its fields ask for:
// RoPE turns q and k (rope.hpp), a window hides keys far back (mask.cpp). The trace budget is
// checked again with them.
namespace {

// A window (query i sees the W latest keys, its own included), a prefix of 0 … T tokens that see
// each other, packed documents of at least one token each whose lengths sum to T.
void masks_of(const field_values &v, attention_config &c) {
    if (v.count("window"))
        c.window = whole_number("window", number_or(v, "window", 0), 1, 4294967295u);
    if (v.count("prefix"))
        c.prefix = whole_number("prefix", number_or(v, "prefix", 0), 0, c.seq_len);
    const auto *lengths = get<std::vector<double>>(v, "documents");
    std::size_t total = 0;
    for (std::size_t k = 0; lengths && k < lengths->size(); ++k) {
        c.documents.push_back(
            whole_number("documents[" + std::to_string(k) + "]", (*lengths)[k], 1, c.seq_len));
        total += c.documents.back();
    }
    if (lengths && total != c.seq_len)
        reject("documents", "lengths sum to " + std::to_string(total) + " tokens, but there are " +
                                std::to_string(c.seq_len) + " (seqLen)");
}

// Why query i's keys start at `first`: "window W starts it", "its document, documents[k], starts
// it", or both.
std::string first_key_rule(const attention_config &c, std::size_t i, std::size_t first) {
    std::vector<std::string> rules;
    if (c.window && i + 1 > *c.window && i + 1 - *c.window == first)
        rules.push_back("window " + std::to_string(*c.window));
    for (std::size_t start = 0, k = 0; k < c.documents.size(); start += c.documents[k++])
        if (start == first && i < start + c.documents[k])
            rules.push_back("its document, documents[" + std::to_string(k) + "],");
    const bool both = rules.size() == 2;
    return (both ? rules[0] + " and " + rules[1] + " start" : rules.at(0) + " starts") +
           " it at key " + std::to_string(first);
}

// validKeys ends the keys every query sees; a window or a document starts them. A query whose
// keys start at or past validKeys would have no key at all: refused, naming both fields.
void check_every_query_sees_a_key(const attention_config &c) {
    if (!c.valid_keys)
        return;
    const row_spans spans = visible_spans(c);
    const std::size_t needed = spans.back().begin + 1; // starts never move back as i grows
    for (std::size_t i = 0; i < spans.size(); ++i)
        if (spans[i].begin >= spans[i].end)
            reject("validKeys",
                   std::to_string(*c.valid_keys) + " leaves query " + std::to_string(i) +
                       " no key: " + first_key_rule(c, i, spans[i].begin) + ", but only " +
                       (*c.valid_keys == 1
                            ? "key 0 is"
                            : "keys 0 to " + std::to_string(*c.valid_keys - 1) + " are") +
                       " valid; give validKeys of at least " + std::to_string(needed) +
                       ", or leave it out");
}

// The positions and masks the fields ask for, set on a problem its sizes made, then the trace
// budget checked again with them.
problem with_positions(problem p, const field_values &v, bool traced) {
    p.config.rope = rope_of(v, p.config.d_k);
    p.config.alibi = flag_or(v, "alibi", false);
    if (const auto *pe = get<std::string>(v, "positionalEncoding")) {
        if (*pe != "sinusoidal")
            reject("positionalEncoding",
                   quoted_for_message(*pe) + " is not sinusoidal (the only one)");
        p.config.sinusoidal = true;
    }
    masks_of(v, p.config);
    check_every_query_sees_a_key(p.config);
    if (traced)
        check_trace_budget(p.config);
    return p;
}

} // namespace

problem problem_of(problem_kind kind, bool explicit_matrices, const field_values &v, bool traced) {
    problem p = explicit_matrices ? make_problem(explicit_of(kind, v))
                                  : make_problem(generated_of(kind, v), traced);
    return with_positions(std::move(p), v, traced);
}

problem problem_of_preset(const std::string &name, bool traced) {
    for (const preset_info &info : presets())
        if (info.id == name)
            return with_positions(make_problem(info.spec, traced), info.positions, traced);
    return make_problem(preset(name), traced); // throws, naming the known ones
}

} // namespace attention
