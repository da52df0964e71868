// A spec as it crossed from JS → its validated problem: the kind read first, then the fields its
// schema takes (reader.hpp), then what they mean: the sizes and matrices (spec.cpp), the positions
// and masks, and the trace budget once more with them. The one reader of run, forward, explain and
// pruneEach's spec.
#include "attention/spec_reader.hpp"

#include <cmath>
#include <stdexcept>

#include "attention/budget.hpp"
#include "attention/checkpoints.hpp"
#include "attention/field_ranges.hpp"
#include "attention/mask.hpp"
#include "attention/message_text.hpp"
#include "attention/model_pass.hpp"
#include "attention/presets.hpp"
#include "attention/reader.hpp"
#include "attention/train_api.hpp"
#include "attention/validation.hpp"

namespace attention {

namespace {

template <class T> const T *get(const field_values &v, const char *name) {
    const auto at = v.find(name);
    return at == v.end() ? nullptr : &std::get<T>(at->second);
}

// A field that may hold one of two types (sinks: true, or a list): the value if it holds T.
template <class T> const T *get_if(const field_values &v, const char *name) {
    const auto at = v.find(name);
    return at == v.end() ? nullptr : std::get_if<T>(&at->second);
}

std::optional<double> optional_number(const field_values &v, const char *name) {
    const double *x = get<double>(v, name);
    return x ? std::optional<double>(*x) : std::nullopt;
}

bool flag_or(const field_values &v, const char *name, bool fallback) {
    const bool *x = get<bool>(v, name);
    return x ? *x : fallback;
}

// Longer than 40 lines as a list is: one line per spec field, each with its default.
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
    s.d_latent = optional_number(v, "dLatent");
    s.d_rope = optional_number(v, "dRope");
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
    const bool *draw = get_if<bool>(v, "sinks");
    s.draw_sinks = draw && *draw;
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
    if (kind != problem_kind::mla) { // MLA's keys and values come up from its latent
        s.w_k = *get<std::vector<row_list>>(v, "W_K");
        s.w_v = *get<std::vector<row_list>>(v, "W_V");
    }
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
    if (kind == problem_kind::mla) {
        s.w_dkv = *get<row_list>(v, "W_DKV");
        s.w_uk = *get<std::vector<row_list>>(v, "W_UK");
        s.w_uv = *get<std::vector<row_list>>(v, "W_UV");
        if (const row_list *w_kr = get<row_list>(v, "W_KR"))
            s.w_kr = *w_kr;
        if (const auto *w_qr = get<std::vector<row_list>>(v, "W_QR"))
            s.w_qr = *w_qr;
    }
    return s;
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
    r.offset = in_range("rope.offset", number_or(v, "rope.offset", 0));
    r.dims = whole_number("rope.dims", number_or(v, "rope.dims", double(d_k)), 2, d_k);
    if (r.dims % 2)
        throw std::invalid_argument("rope.dims: " + std::to_string(r.dims) +
                                    " is odd; each pair turns two columns");
    return r;
}

// MLA's RoPE on its decoupled part: every one of the dRope columns from position 0, base and
// convention as given (10000, interleaved unless); none when dRope is 0, where `rope` is refused.
std::optional<rope_settings> latent_rope_of(const field_values &v, std::size_t d_rope) {
    if (!d_rope && v.count("rope") && v.count("X")) // given matrices: the part is W_KR's and W_QR's
        reject("rope", "turns MLA's decoupled RoPE part, and there is none; give W_KR and W_QR (an even "
                       "number of columns, d_r), or leave rope out");
    if (!d_rope && v.count("rope"))
        reject("rope", "turns MLA's decoupled RoPE part, and dRope is 0; give an even dRope "
                       "(DeepSeek-V2 uses d_h / 2), or leave rope out");
    if (!d_rope)
        return std::nullopt;
    field_values given = v;
    given["rope"] = true;
    return rope_of(given, d_rope);
}

// StreamingLLM's k sink tokens: a whole number 1 ≤ k < W, with a window W and no prefix or
// documents (whose spans the sinks would cut across).
std::size_t sink_tokens_of(double k, const attention_config &c) {
    if (!c.window || *c.window < 2)
        reject("sinkTokens", "needs a window of at least 2: the sink tokens stay seen while the "
                             "window moves on (StreamingLLM keeps 4 sinks beside its window)");
    if (c.prefix || !c.documents.empty())
        reject("sinkTokens", std::string("and ") + (c.prefix ? "prefix" : "documents") +
                                 " together are not stepped here; give one of them");
    const std::size_t sinks = whole_number("sinkTokens", k, 1, limits::max_seq_len);
    if (sinks >= *c.window)
        reject("sinkTokens", std::to_string(sinks) + " leaves window " + std::to_string(*c.window) +
                                 " no latest key: the window holds the sinks and the W − k latest; "
                                 "give at most " + std::to_string(*c.window - 1));
    return sinks;
}

// A window (query i sees the W latest keys, its own included), a prefix of 0 … T tokens that see
// each other, packed documents of at least one token each whose lengths sum to T, sink tokens.
void masks_of(const field_values &v, attention_config &c) {
    if (v.count("window"))
        c.window = in_range("window", number_or(v, "window", 0));
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
    if (v.count("sinkTokens"))
        c.sink_tokens = sink_tokens_of(number_or(v, "sinkTokens", 0), c);
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

// A soft cap κ on the logits (Gemma 2's) in (0, 1e300], or none.
std::optional<double> softcap_of(const field_values &v) {
    const double *kappa = get<double>(v, "softcap");
    if (!kappa)
        return std::nullopt;
    const field_range &r = range_of("softcap");
    if (!std::isfinite(*kappa) || *kappa <= r.min || *kappa > r.max)
        reject("softcap", js_number(*kappa) + " is out of range (" + js_number(r.min) + ", " +
                              js_number(r.max) + "]; Gemma 2 caps its attention logits at 50");
    return *kappa;
}

// Given sink logits ζ: one finite number per query head.
std::vector<double> checked_sinks(const std::vector<double> &zeta, const attention_config &c) {
    if (zeta.size() != c.num_heads)
        reject("sinks", std::to_string(zeta.size()) + " logits for " + std::to_string(c.num_heads) +
                            " query heads; give one per head (numHeads), or true to draw them");
    for (std::size_t n = 0; n < zeta.size(); ++n)
        if (!std::isfinite(zeta[n]))
            reject("sinks[" + std::to_string(n) + "]", js_number(zeta[n]) + " is not a finite number");
    return zeta;
}

// QK-norm's gain for q or k (field qNormGain or kNormGain): d_k finite numbers, or 1 in every
// column when not given (none without qkNorm); given without qkNorm, refused.
std::vector<double> qk_gain_of(const field_values &v, const char *name, const attention_config &c) {
    const auto *given = get<std::vector<double>>(v, name);
    if (!given)
        return c.qk_norm ? std::vector<double>(c.d_k, 1.0) : std::vector<double>{};
    if (!c.qk_norm)
        reject(name, "is a gain of QK-norm; give qkNorm: true with it, or leave it out");
    if (given->size() != c.d_k)
        reject(name, std::to_string(given->size()) + " gains for d_k = " + std::to_string(c.d_k) +
                         " columns; give one per column of a head (dK)");
    for (std::size_t a = 0; a < given->size(); ++a)
        if (!std::isfinite((*given)[a]))
            reject(std::string(name) + "[" + std::to_string(a) + "]",
                   js_number((*given)[a]) + " is not a finite number");
    return *given;
}

// The positions, masks, soft cap and sinks the fields ask for, set on a problem its sizes made,
// then the trace budget checked again with them.
problem with_positions(problem p, const field_values &v, bool traced) {
    p.config.rope = p.config.kind == problem_kind::mla ? latent_rope_of(v, p.config.d_rope)
                                                       : rope_of(v, p.config.d_k);
    p.config.alibi = flag_or(v, "alibi", false);
    p.config.softcap = softcap_of(v);
    p.config.qk_norm = flag_or(v, "qkNorm", false);
    p.config.q_norm_gain = qk_gain_of(v, "qNormGain", p.config);
    p.config.k_norm_gain = qk_gain_of(v, "kNormGain", p.config);
    if (const auto *zeta = get_if<std::vector<double>>(v, "sinks"))
        p.config.sinks = checked_sinks(*zeta, p.config);
    if (p.config.softcap && p.config.alibi)
        reject("softcap", "and alibi together are not stepped here: ALiBi's bias would be added to "
                          "the capped logits, which no published model does; give one of them");
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

// Kind model's positions whose loss counts: each in [0, n − 2] (the last has no next token),
// each once; absent, every position. → n − 1 weights, 1 or 0.
std::vector<double> counted_of(const std::optional<std::vector<double>> &scored, std::size_t n) {
    if (scored && scored->empty())
        reject("scored",
               "lists no position; give at least one, or leave it out for every position");
    std::vector<double> counted(n - 1, scored ? 0.0 : 1.0);
    for (double given : scored.value_or(std::vector<double>{})) {
        const std::size_t t = whole_number("scored", given, 0, n - 2);
        if (counted[t] != 0)
            reject("scored", "position " + std::to_string(t) + " is listed twice");
        counted[t] = 1;
    }
    return counted;
}

// Kind model: a shipped model or a given one, and the tokens it reads, 2 … T ids below V (the
// loss needs a next token). A shipped model lives as long as the program: held, not owned.
problem model_problem(const generated_spec &s) {
    problem p;
    p.net = s.net ? s.net
                  : std::shared_ptr<const model>(std::shared_ptr<const model>(),
                                                 &shipped_model(s.checkpoint));
    const model_config &m = p.net->config;
    p.token_ids = model_inputs(m, {{"tokens", s.token_ids}});
    if (p.token_ids.size() < 2)
        reject("tokens", "1 token; the loss needs the token after it: give 2 to seqLen = " +
                             std::to_string(m.seq_len));
    p.counted = counted_of(s.scored, p.token_ids.size());
    p.config = model_pass_config(m, p.token_ids.size());
    return p;
}

// A generated spec's problem: kind model's from its model, every other kind's drawn (spec.cpp).
problem generated_problem(const generated_spec &s, bool traced) {
    return s.kind == problem_kind::model ? model_problem(s) : make_problem(s, traced);
}

// An object with an X (or X_q) holds explicit matrices.
bool is_explicit(const value &spec) {
    return member(spec, "X") || member(spec, "X_q");
}

} // namespace

double number_or(const field_values &v, const char *name, double fallback) {
    const double *x = get<double>(v, name);
    return x ? *x : fallback;
}

// The problem its sizes and matrices make, then the positions and masks its fields ask for:
// RoPE turns q and k (rope.hpp), a window hides keys far back (mask.cpp). The trace budget is
// checked again with them.
problem problem_of(problem_kind kind, bool explicit_matrices, const field_values &v, bool traced) {
    problem p = explicit_matrices ? make_problem(explicit_of(kind, v))
                                  : generated_problem(generated_of(kind, v), traced);
    return with_positions(std::move(p), v, traced);
}

problem problem_of_preset(const std::string &name, bool traced) {
    for (const preset_info &info : presets())
        if (info.id == name)
            return with_positions(generated_problem(info.spec, traced), info.positions, traced);
    return make_problem(preset(name), traced); // throws, naming the known ones
}

problem problem_from(const value &spec, bool traced) {
    require_object(spec, "spec", "an object, got " + type_of(spec));
    if (member(spec, "preset")) {
        reject_unknown_fields(spec, preset_fields(), "a preset");
        const field_values v = fields_from(spec, preset_fields());
        return problem_of_preset(std::get<std::string>(v.at("preset")), traced);
    }
    const field_values kind = fields_from(spec, {{"kind", field_type::text}});
    const problem_kind k = kind_named(
        kind.count("kind") ? std::optional<std::string>(std::get<std::string>(kind.at("kind")))
                           : std::nullopt);
    spec_schema schema = spec_fields(k, is_explicit(spec));
    for (field_rule &f : schema.fields) // the tables are below the model's reader: it is given here
        if (f.type == field_type::model)
            f.read = &model_field;
    reject_unknown_fields(spec, schema.fields, schema.what);
    return problem_of(k, is_explicit(spec), fields_from(spec, schema.fields), traced);
}

} // namespace attention
