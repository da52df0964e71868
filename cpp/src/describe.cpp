#include "attention/describe.hpp"

#include <cmath>

#include "attention/alibi.hpp"
#include "attention/describe_checks.hpp"
#include "attention/designed.hpp"
#include "attention/fields.hpp"
#include "attention/mla.hpp"
#include "attention/presets.hpp"

namespace attention {

namespace {

// The designed heads' names, patterns and constructions (designed.hpp), for the page to show.
value designed_heads_value() {
    value_list out;
    for (const designed_head &h : designed_heads())
        out.push_back(value_record{
            {"name", h.name}, {"pattern", h.pattern}, {"construction", h.construction}});
    return out;
}

// K/V parameters and cache values of this layer, and of the same layer with every head its
// own K/V (multi-head attention): what grouped-query attention saves.
// MLA's: the floats one layer caches per token, beside multi-head and grouped-query attention's.
value kv_sizes(const attention_config &c) {
    if (c.kind == problem_kind::mla) {
        const latent_cache_floats f = latent_cache(c);
        value_list gqa;
        for (const auto &[kv_heads, floats] : f.gqa)
            gqa.push_back(value_record{{"kvHeads", kv_heads}, {"floats", floats}});
        return value_record{{"perToken", value_record{{"mla", f.mla}, {"mha", f.mha}, {"gqa", gqa}}}};
    }
    return value_record{{"params", kv_parameter_count(c, c.num_kv_heads)},
                        {"paramsMha", kv_parameter_count(c, c.num_heads)},
                        {"cacheValues", kv_cache_values(c, c.num_kv_heads)},
                        {"cacheValuesMha", kv_cache_values(c, c.num_heads)}};
}

// RoPE's settings as a spec gives them, or null.
value rope_value(const attention_config &c) {
    if (!c.rope)
        return value();
    return value_record{{"base", c.rope->base},
                        {"convention", c.rope->half_split ? "half-split" : "interleaved"},
                        {"offset", c.rope->offset},
                        {"dims", c.rope->dims}};
}

// A record with another's fields after its own.
value with_fields(value base, const value &more) {
    auto &fields = std::get<value_record>(base.v);
    for (const auto &f : std::get<value_record>(more.v))
        fields.push_back(f);
    return base;
}

// One field's value as JS wrote it (numbers, flags, text, lists; no preset gives a matrix).
value field_value_of(const field_value &x) {
    if (const auto *list = std::get_if<std::vector<double>>(&x))
        return value_list(list->begin(), list->end());
    if (const auto *words = std::get_if<std::vector<std::string>>(&x))
        return text_list(*words);
    if (const auto *text = std::get_if<std::string>(&x))
        return *text;
    if (const auto *flag = std::get_if<bool>(&x))
        return *flag;
    return std::get<double>(x);
}

// Fields as read (field_values: an object's fields as name.field after name: true) nested back
// into the objects JS wrote. A preset states at least one field of each object it gives.
value nested(const field_values &v) {
    value_record out;
    for (const auto &[name, x] : v) {
        const std::size_t dot = name.find('.');
        if (dot == std::string::npos) {
            const auto next = v.upper_bound(name);
            const bool object = next != v.end() && next->first.rfind(name + ".", 0) == 0;
            out.emplace_back(name, object ? value(value_record{}) : field_value_of(x));
        } else { // its object is the last field emitted
            std::get<value_record>(out.back().second.v)
                .emplace_back(name.substr(dot + 1), field_value_of(x));
        }
    }
    return out;
}

value sized(std::size_t n) {
    return n ? value(n) : value();
}

value explanation_terms(const std::vector<product_term> &terms) {
    if (terms.empty())
        return value();
    value_list out;
    for (const product_term &t : terms)
        out.push_back(value_record{{"a", t.a}, {"b", t.b}, {"product", t.product}});
    return out;
}

value doubles_or_null(const std::vector<double> &v) {
    return v.empty() ? value() : value(v);
}

// Whole numbers a spec lists (the model's token ids, its scored positions) as a plain list, as
// a caller writes them, not a Float64Array.
value number_list(const std::vector<double> &v) {
    return value_list(v.begin(), v.end());
}

} // namespace

// Longer than 40 lines as a record is: one line per field of the config JS reads.
value describe_config(const trace &t, double seed) {
    const attention_config &c = t.config;
    value_list pruned, documents;
    for (std::size_t h : c.pruned_heads)
        pruned.emplace_back(h);
    for (std::size_t n : c.documents)
        documents.emplace_back(n);
    // Not built, not given: only drawn weights have a scale.
    const bool drawn = c.kind != problem_kind::designed && !std::isnan(seed);
    value_record o{{"kind", kind_name(c.kind)},
                   {"seqLen", c.seq_len},
                   {"kvLen", c.kv_len},
                   {"dModel", c.d_model},
                   {"numHeads", c.num_heads},
                   {"numKvHeads", c.num_kv_heads},
                   {"dK", c.d_k},
                   {"dV", c.d_v},
                   {"dFF", sized(c.d_ff)},
                   {"validKeys", c.valid_keys},
                   {"window", c.window},
                   {"sinkTokens", c.sink_tokens},
                   {"prefix", c.prefix},
                   {"positionalEncoding", c.sinusoidal ? value("sinusoidal") : value()},
                   {"rope", rope_value(c)},
                   {"alibi", c.alibi ? value(alibi_slopes(c.num_heads)) : value()},
                   {"softcap", c.softcap},
                   {"qkNorm", c.qk_norm ? value(true) : value()},
                   {"qNormGain", c.qk_norm ? value(number_list(c.q_norm_gain)) : value()},
                   {"kNormGain", c.qk_norm ? value(number_list(c.k_norm_gain)) : value()},
                   {"sinks", c.sinks.empty() ? value() : value(number_list(c.sinks))},
                   {"documents", documents},
                   {"causal", c.causal},
                   {"masked", has_mask(c)},
                   {"outputProjection", c.output_projection},
                   {"scaleScores", c.scale_scores},
                   {"seed", std::isnan(seed) ? value() : value(seed)},
                   {"kv", kv_sizes(c)},
                   {"blockRows", sized(c.block_rows)},
                   {"blockCols", sized(c.block_cols)},
                   {"weightScale", drawn ? value(c.weight_scale) : value()},
                   {"prunedHeads", pruned}};
    if (c.kind == problem_kind::designed)
        o.emplace_back("designedHeads", designed_heads_value());
    if (c.kind == problem_kind::mla) {
        o.emplace_back("dLatent", c.d_latent);
        o.emplace_back("dRope", c.d_rope);
    }
    if (c.kind == problem_kind::model) {
        o.emplace_back("vocab", c.vocab);
        o.emplace_back("numLayers", c.num_layers);
    }
    add_checks(o, t);
    return o;
}

// Longer than 40 lines as a record is: one line per field a spec can hold.
value describe_spec(const generated_spec &s) {
    const bool cross = s.kind == problem_kind::cross;
    value_record o{{"kind", kind_name(s.kind)}};
    if (s.kind == problem_kind::model) {
        o.emplace_back("checkpoint", s.checkpoint);
        o.emplace_back("tokens", number_list(s.token_ids));
        if (s.scored)
            o.emplace_back("scored", number_list(*s.scored));
        return o;
    }
    if (s.kind == problem_kind::designed) {
        o.emplace_back("tokens", text_list(s.tokens));
        o.emplace_back("causal", s.causal);
        return o;
    }
    o.emplace_back("seed", s.seed);
    if (s.skip)
        o.emplace_back("skip", s.skip);
    o.emplace_back(cross ? "queryLen" : "seqLen", s.seq_len);
    if (cross)
        o.emplace_back("keyLen", s.kv_len);
    o.emplace_back("dModel", s.d_model);
    if (s.kind != problem_kind::flash) // one head: flash takes no numHeads
        o.emplace_back("numHeads", s.num_heads);
    const std::pair<const char *, std::optional<double>> optional[] = {
        {"numKvHeads", s.num_kv_heads},
        {"dK", s.d_k},
        {"dV", s.d_v},
        {"dFF", s.d_ff},
        {"dLatent", s.d_latent},
        {"dRope", s.d_rope},
        {"validKeys", s.valid_keys}};
    for (const auto &[key, v] : optional)
        if (v)
            o.emplace_back(key, *v);
    if (!cross && s.kind != problem_kind::kv_cache)
        o.emplace_back("causal", s.causal);
    if (s.kind == problem_kind::flash) {
        o.emplace_back("blockRows", s.block_rows);
        o.emplace_back("blockCols", s.block_cols);
    }
    if (s.kind != problem_kind::encoder_layer && s.kind != problem_kind::flash &&
        s.kind != problem_kind::mla)
        o.emplace_back("outputProjection", s.output_projection);
    o.emplace_back("scaleScores", s.scale_scores);
    if (s.weight_scale != 0.1)
        o.emplace_back("weightScale", s.weight_scale);
    return o;
}

value describe(const cell_explanation &e) {
    value softmax, norm, rms, source;
    if (e.softmax)
        softmax = value_record{{"logits", e.softmax->logits},
                               {"max", e.softmax->max},
                               {"exps", e.softmax->exps},
                               {"expSum", e.softmax->exp_sum},
                               {"zeta", e.softmax->zeta},
                               {"sink", e.softmax->sink}};
    if (e.norm)
        norm = value_record{{"mean", e.norm->mean},
                            {"std", e.norm->std_dev},
                            {"eps", e.norm->eps},
                            {"row", e.norm->row}};
    if (e.rms)
        rms = value_record{{"meanSquare", e.rms->mean_square},
                           {"eps", e.rms->eps},
                           {"gain", e.rms->gain},
                           {"row", e.rms->row}};
    if (e.source_head != no_head)
        source = value_record{{"head", e.source_head}, {"col", e.source_col}};
    return value_record{{"value", e.value},
                        {"terms", explanation_terms(e.terms)},
                        {"sum", e.sum},
                        {"bias", e.bias},
                        {"divisor", e.divisor},
                        {"input", e.input},
                        {"mask", e.mask},
                        {"cap", e.cap},
                        {"masked", e.masked},
                        {"softmax", softmax},
                        {"addends", doubles_or_null(e.addends)},
                        {"norm", norm},
                        {"rms", rms},
                        {"gate", e.gate},
                        {"weight", e.weight},
                        {"alpha", e.alpha},
                        {"previous", e.previous},
                        {"rowMax", e.row_max},
                        {"row", doubles_or_null(e.row)},
                        {"source", source},
                        {"next", e.next_token}};
}

value describe_presets() {
    value_list out;
    for (const preset_info &p : presets())
        out.push_back(
            value_record{{"id", p.id},
                         {"chapter", p.chapter},
                         {"title", p.title},
                         {"seed42", p.seed42},
                         {"spec", with_fields(describe_spec(p.spec), nested(p.positions))},
                         {"tokens", text_list(p.tokens)},
                         {"keyTokens", p.key_tokens.empty() ? value() : text_list(p.key_tokens)}});
    return out;
}

value describe_models() {
    value_list out;
    for (const model_info &m : models())
        out.push_back(value_record{{"id", m.id},
                                   {"name", m.name},
                                   {"dModel", m.d_model},
                                   {"numHeads", m.num_heads},
                                   {"dK", m.d_k},
                                   {"numLayers", m.num_layers},
                                   {"numKvHeads", m.num_kv_heads},
                                   {"contextLength", m.context},
                                   {"window", m.window ? value(m.window) : value()},
                                   // < 2⁵³: exact as a JS number
                                   {"scoreValues", double(score_values(m))}});
    return out;
}

value describe_latent_models() {
    value_list out;
    for (const latent_model_info &m : latent_models())
        out.push_back(value_record{{"id", m.id},
                                   {"name", m.name},
                                   {"dModel", m.d_model},
                                   {"numHeads", m.num_heads},
                                   {"dHead", m.d_head},
                                   {"dRope", m.d_rope},
                                   {"dLatent", m.d_latent},
                                   {"numLayers", m.num_layers},
                                   {"contextLength", m.context}});
    return out;
}

value describe_stages() {
    value_list out;
    for (const stage_entry &e : stage_table) {
        value_list operands;
        std::istringstream declared(e.operands);
        for (std::string op; declared >> op;) {
            const bool per_head = op.back() == '*', optional = op.back() == '?';
            value_list names;
            std::istringstream alternatives(per_head || optional ? op.substr(0, op.size() - 1) : op);
            for (std::string name; std::getline(alternatives, name, '|');)
                names.emplace_back(name);
            operands.push_back(
                value_record{{"names", names}, {"perHead", per_head}, {"optional", optional}});
        }
        value_list terms;
        std::istringstream declared_terms(e.terms);
        for (std::string term; declared_terms >> term;)
            terms.emplace_back(term);
        out.push_back(value_record{{"id", e.name}, {"operands", operands}, {"terms", terms}});
    }
    return out;
}

value describe_pruning(const std::vector<double> &changes) {
    value_list out;
    for (std::size_t h = 0; h < changes.size(); ++h)
        out.push_back(value_record{{"head", h}, {"change", changes[h]}});
    return out;
}

} // namespace attention
