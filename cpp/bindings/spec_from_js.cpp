// JS spec → the core's generated or explicit spec. Every field is type-checked here by its
// JS name; ranges and shapes are checked by the core (spec.cpp, validation.cpp).
#include <emscripten/val.h>

#include <cstdio>
#include <iterator>
#include <optional>
#include <set>
#include <stdexcept>

#include "attention/kv_size.hpp"
#include "attention/message_text.hpp"
#include "attention/presets.hpp"
#include "attention/validation.hpp"
#include "js_values.hpp"

namespace bindings {

using namespace attention;

namespace {

double required_number(const val &spec, const char *key) {
    if (spec[key].isUndefined())
        reject(key, "is missing; give a whole number");
    return number_field(spec, key, 0);
}

std::optional<double> optional_number(const val &spec, const char *key) {
    if (spec[key].isUndefined())
        return std::nullopt;
    return number_field(spec, key, 0);
}

bool bool_field(const val &spec, const char *key, bool fallback) {
    const val v = spec[key];
    if (v.isUndefined())
        return fallback;
    if (type_of(v) != "boolean")
        reject(key, "must be true or false, got " + type_of(v));
    return v.as<bool>();
}

// The length of a JS array, refused above `limit` before anything is allocated for it.
std::size_t checked_length(const val &array, const std::string &field, const char *what,
                           std::size_t limit) {
    const double n = array["length"].as<double>();
    if (n > double(limit))
        reject(field, js_number(n) + " " + what + ", more than the limit " + std::to_string(limit));
    return std::size_t(n);
}

// "a lone surrogate (U+D800 at index 3)" when the JS string s holds one, else nothing.
std::optional<std::string> lone_surrogate(const val &s) {
    // \p{Cs} with the u flag matches only a surrogate that is not half of a pair.
    const val pattern = val::global("RegExp").new_(std::string("\\p{Cs}"), std::string("u"));
    const int at = s.call<int>("search", pattern);
    if (at < 0)
        return std::nullopt;
    char unit[8];
    std::snprintf(unit, sizeof unit, "U+%04X", s.call<unsigned>("charCodeAt", at));
    return std::string("a lone surrogate (") + unit + " at index " + std::to_string(at) + ")";
}

// What a value is, for messages: "array", "null", JS's typeof, or a typed array's own name.
std::string described(const val &v) {
    if (type_of(v) == "object" && val::global("ArrayBuffer").call<bool>("isView", v))
        return v["constructor"]["name"].as<std::string>();
    return type_of(v);
}

// { shape: [rows, cols], values: Float64Array }: the shape and how many values there are are
// checked (by the core) first, then the values are copied into the WASM heap by one set() and
// checked there: a few ns a value, where reading arrays of rows through Embind takes ~1 µs.
row_list flat_value(const val &m, const std::string &field, std::size_t max_rows,
                    std::size_t max_cols) {
    reject_unknown_fields(m, {"shape", "values"}, "a flat matrix", field.c_str());
    const val shape = m["shape"];
    if (!shape.isArray() || shape["length"].as<double>() != 2)
        reject(field + ".shape",
               "must be [rows, cols], got " +
                   (shape.isArray() ? "an array of " + js_number(shape["length"].as<double>())
                                    : described(shape)));
    double sizes[2];
    for (int i = 0; i < 2; ++i) {
        if (type_of(shape[i]) != "number")
            reject(field + ".shape[" + std::to_string(i) + "]",
                   "must be a number, got " + described(shape[i]));
        sizes[i] = shape[i].as<double>();
    }
    const val values = m["values"];
    if (!values.instanceof (val::global("Float64Array")))
        reject(field + ".values", "must be a Float64Array, got " + described(values));
    const auto [r, c] =
        flat_shape(field, sizes[0], sizes[1], values["length"].as<double>(), max_rows, max_cols);
    std::vector<double> flat(r * c); // allocated first: the view below must not outlive a growth
    val(emscripten::typed_memory_view(flat.size(), flat.data())).call<void>("set", values);
    return flat_rows(field, c, flat);
}

// An object with a shape or values is a flat matrix; anything else must be an array of rows.
bool is_flat(const val &m) {
    return type_of(m) == "object" && (!m["shape"].isUndefined() || !m["values"].isUndefined());
}

row_list rows_value(const val &m, const std::string &field, std::size_t max_rows,
                    std::size_t max_cols) {
    if (is_flat(m))
        return flat_value(m, field, max_rows, max_cols);
    if (!m.isArray())
        reject(field, "must be an array of rows, got " + type_of(m));
    row_list out(checked_length(m, field, "rows", max_rows));
    for (std::size_t i = 0; i < out.size(); ++i) {
        const val row = m[i];
        const std::string at = field + "[" + std::to_string(i) + "]";
        if (!row.isArray())
            reject(at, "must be an array of numbers, got " + type_of(row));
        const std::size_t n = checked_length(row, at, "values", max_cols);
        for (std::size_t j = 0; j < n; ++j) {
            const val x = row[j];
            if (type_of(x) != "number")
                reject(at + "[" + std::to_string(j) + "]", "must be a number, got " + type_of(x));
            out[i].push_back(x.as<double>());
        }
    }
    return out;
}

std::vector<row_list> per_head(const val &spec, const char *key) {
    const val list = spec[key];
    if (!list.isArray())
        reject(key, "must be an array with one matrix per head, got " + type_of(list));
    std::vector<row_list> out;
    for (std::size_t h = 0; h < checked_length(list, key, "matrices", limits::max_heads); ++h)
        out.push_back(rows_value(list[h], std::string(key) + "[" + std::to_string(h) + "]",
                                 limits::max_d_model, limits::max_head_dim));
    return out;
}

// The kind as JS spells it, in problem_kind's order.
const char *const kind_names[] = {"self",     "cross", "encoder-layer",
                                  "kv-cache", "flash", "designed"};

problem_kind kind_of(const val &spec) {
    const val v = spec["kind"];
    if (v.isUndefined())
        return problem_kind::self;
    if (type_of(v) != "string")
        reject("kind", "must be a string, got " + type_of(v));
    const std::string kind = well_formed_string(v, "kind");
    for (int k = 0; k < int(std::size(kind_names)); ++k)
        if (kind == kind_names[k])
            return static_cast<problem_kind>(k);
    reject("kind", quoted_for_message(kind) +
                       " is not one of self, cross, encoder-layer, kv-cache, flash, designed");
}

// The fields each kind of generated spec takes.
std::set<std::string> generated_fields(problem_kind kind) {
    if (kind == problem_kind::designed) // built from its tokens: nothing is drawn
        return {"kind", "tokens", "causal", "prunedHeads"};
    std::set<std::string> common{"kind", "seed", "skip",        "dModel",     "numHeads",
                                 "dK",   "dV",   "scaleScores", "weightScale"};
    switch (kind) {
    case problem_kind::cross:
        common.insert({"queryLen", "keyLen", "validKeys", "outputProjection", "prunedHeads"});
        break;
    case problem_kind::encoder_layer:
        common.insert({"seqLen", "dFF", "causal", "prunedHeads"});
        break;
    case problem_kind::kv_cache: // causal by nature
        common.insert({"seqLen", "numKvHeads", "outputProjection"});
        break;
    case problem_kind::flash: // one head, no W_O
        common.erase("numHeads");
        common.insert({"seqLen", "causal", "blockRows", "blockCols"});
        break;
    default: // self
        common.insert({"seqLen", "numKvHeads", "causal", "outputProjection", "prunedHeads"});
    }
    return common;
}

std::string kind_name(problem_kind kind) {
    const std::string name = kind_names[static_cast<int>(kind)];
    return kind == problem_kind::self ? "self-attention" : "kind \"" + name + "\"";
}

// A list of numbers (prunedHeads), at most `limit` long.
std::vector<double> numbers_value(const val &spec, const char *key, std::size_t limit) {
    const val list = spec[key];
    if (list.isUndefined())
        return {};
    if (!list.isArray())
        reject(key, "must be an array of numbers, got " + type_of(list));
    std::vector<double> out;
    for (std::size_t i = 0; i < checked_length(list, key, "numbers", limit); ++i) {
        if (type_of(list[i]) != "number")
            reject(std::string(key) + "[" + std::to_string(i) + "]",
                   "must be a number, got " + type_of(list[i]));
        out.push_back(list[i].as<double>());
    }
    return out;
}

// A list of words (kind designed's tokens), at most `limit` of at most 40 bytes.
std::vector<std::string> words_value(const val &spec, const char *key, std::size_t limit) {
    const val list = spec[key];
    if (!list.isArray())
        reject(key, "must be an array of words, got " + type_of(list));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < checked_length(list, key, "words", limit); ++i) {
        const std::string at = std::string(key) + "[" + std::to_string(i) + "]";
        if (type_of(list[i]) != "string")
            reject(at, "must be a string, got " + type_of(list[i]));
        if (list[i]["length"].as<double>() > 40)
            reject(at, "is longer than 40 characters");
        out.push_back(well_formed_string(list[i], at));
    }
    return out;
}

generated_spec designed_from(const val &spec) {
    generated_spec s;
    s.kind = problem_kind::designed;
    s.tokens = words_value(spec, "tokens", limits::max_designed_tokens);
    s.causal = bool_field(spec, "causal", false);
    s.pruned_heads = numbers_value(spec, "prunedHeads", limits::max_heads);
    return s;
}

generated_spec generated_from(const val &spec) {
    generated_spec s;
    s.kind = kind_of(spec);
    reject_unknown_fields(spec, generated_fields(s.kind), kind_name(s.kind));
    if (s.kind == problem_kind::designed)
        return designed_from(spec);
    const bool cross = s.kind == problem_kind::cross;
    s.seed = number_field(spec, "seed", s.seed);
    s.skip = number_field(spec, "skip", s.skip);
    s.seq_len = required_number(spec, cross ? "queryLen" : "seqLen");
    if (cross)
        s.kv_len = required_number(spec, "keyLen");
    s.d_model = required_number(spec, "dModel");
    s.num_heads = number_field(spec, "numHeads", s.num_heads);
    s.num_kv_heads = optional_number(spec, "numKvHeads");
    s.d_k = optional_number(spec, "dK");
    s.d_v = optional_number(spec, "dV");
    s.d_ff = optional_number(spec, "dFF");
    s.valid_keys = optional_number(spec, "validKeys");
    if (s.kind == problem_kind::flash) {
        s.block_rows = required_number(spec, "blockRows");
        s.block_cols = required_number(spec, "blockCols");
    }
    s.causal = bool_field(spec, "causal", s.causal);
    s.output_projection = bool_field(spec, "outputProjection", s.output_projection);
    s.scale_scores = bool_field(spec, "scaleScores", s.scale_scores);
    s.weight_scale = number_field(spec, "weightScale", s.weight_scale);
    s.pruned_heads = numbers_value(spec, "prunedHeads", limits::max_heads);
    return s;
}

explicit_spec explicit_from(const val &spec) {
    explicit_spec s;
    s.kind = kind_of(spec);
    const bool cross = s.kind == problem_kind::cross;
    if (s.kind != problem_kind::self && s.kind != problem_kind::cross)
        reject("kind", "\"" + std::string(kind_names[static_cast<int>(s.kind)]) +
                           "\" takes no explicit matrices; give sizes and a seed (or tokens)");
    if (cross)
        reject_unknown_fields(spec,
                              {"kind", "X_q", "X_kv", "W_Q", "W_K", "W_V", "W_O", "validKeys",
                               "scaleScores", "prunedHeads"},
                              kind_name(s.kind));
    else
        reject_unknown_fields(
            spec, {"kind", "X", "W_Q", "W_K", "W_V", "W_O", "causal", "scaleScores", "prunedHeads"},
            "explicit self-attention");
    const char *x_name = cross ? "X_q" : "X";
    s.x = rows_value(spec[x_name], x_name, limits::max_seq_len, limits::max_d_model);
    if (cross)
        s.x_kv = rows_value(spec["X_kv"], "X_kv", limits::max_seq_len, limits::max_d_model);
    s.w_q = per_head(spec, "W_Q");
    s.w_k = per_head(spec, "W_K");
    s.w_v = per_head(spec, "W_V");
    if (!spec["W_O"].isUndefined())
        s.w_o = rows_value(spec["W_O"], "W_O", limits::max_heads * limits::max_head_dim,
                           limits::max_d_model);
    s.valid_keys = optional_number(spec, "validKeys");
    s.causal = bool_field(spec, "causal", false);
    s.scale_scores = bool_field(spec, "scaleScores", true);
    s.pruned_heads = numbers_value(spec, "prunedHeads", limits::max_heads);
    return s;
}

bool is_explicit(const val &spec) {
    return !spec["X"].isUndefined() || !spec["X_q"].isUndefined();
}

} // namespace

std::string type_of(const val &v) {
    if (v.isNull())
        return "null";
    if (v.isArray())
        return "array";
    return v.typeOf().as<std::string>();
}

void reject(const std::string &field, const std::string &rule) {
    throw std::invalid_argument(field + ": " + rule);
}

void reject_unknown_fields(const val &v, const std::set<std::string> &known,
                           const std::string &what, const char *field) {
    const val keys = val::global("Object").call<val>("keys", v);
    for (std::size_t i = 0; i < keys["length"].as<std::size_t>(); ++i) {
        const std::string key = keys[i].as<std::string>(); // a lone surrogate: no known key
        if (!known.count(key)) {
            const std::optional<std::string> lone = lone_surrogate(keys[i]);
            std::string list;
            for (const std::string &k : known)
                list += (list.empty() ? "" : ", ") + k;
            reject(field, "unknown field " + (lone ? "holding " + *lone : quoted_for_message(key)) +
                              " for " + what + " (known: " + list + ")");
        }
    }
}

std::string well_formed_string(const val &s, const std::string &field) {
    if (const std::optional<std::string> lone = lone_surrogate(s))
        reject(field, "holds " + *lone + "; give well-formed text");
    return s.as<std::string>();
}

double number_field(const val &spec, const char *key, double fallback) {
    const val v = spec[key];
    if (v.isUndefined())
        return fallback;
    if (type_of(v) != "number")
        reject(key, "must be a number, got " + type_of(v));
    return v.as<double>();
}

problem problem_from(const val &spec, bool traced) {
    if (type_of(spec) != "object")
        reject("spec", "must be an object, got " + type_of(spec));
    if (!spec["preset"].isUndefined()) {
        reject_unknown_fields(spec, {"preset"}, "a preset");
        if (type_of(spec["preset"]) != "string")
            reject("preset", "must be a string");
        return make_problem(preset(well_formed_string(spec["preset"], "preset")), traced);
    }
    if (is_explicit(spec))
        return make_problem(explicit_from(spec));
    return make_problem(generated_from(spec), traced);
}

const char *kind_js(problem_kind kind) {
    return kind_names[static_cast<int>(kind)];
}

double kv_cache_bytes_js(const val &query) {
    if (type_of(query) != "object")
        reject("query",
               "must be an object { seqLen, dHead, numKvHeads, numLayers, bytesPerValue, batch }");
    reject_unknown_fields(query,
                          {"seqLen", "dHead", "numKvHeads", "numLayers", "bytesPerValue", "batch"},
                          "kvCacheBytes", "query");
    kv_cache_query q;
    q.seq_len = required_number(query, "seqLen");
    q.d_head = required_number(query, "dHead");
    q.num_kv_heads = required_number(query, "numKvHeads");
    q.num_layers = required_number(query, "numLayers");
    q.bytes_per_value = required_number(query, "bytesPerValue");
    q.batch = number_field(query, "batch", q.batch);
    return double(kv_cache_bytes(q)); // ≤ 2⁵³: exact
}

double seed_of(const val &spec) {
    if (!spec["preset"].isUndefined()) {
        const generated_spec s = preset(spec["preset"].as<std::string>());
        return s.kind == problem_kind::designed ? NAN : s.seed;
    }
    if (is_explicit(spec) || kind_of(spec) == problem_kind::designed)
        return NAN;
    return number_field(spec, "seed", generated_spec{}.seed);
}

} // namespace bindings
