// JS values → the core's field_values, by the core's field rules (attention/fields.hpp): each
// field is type-checked here by its JS name; kinds, ranges and shapes are the core's.
#include <emscripten/val.h>

#include <cstdio>
#include <iterator>
#include <optional>
#include <set>
#include <stdexcept>

#include "attention/fields.hpp"
#include "attention/message_text.hpp"
#include "attention/validation.hpp"
#include "js_values.hpp"

namespace bindings {

using namespace attention;

namespace {

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

// A JS string as UTF-8; a lone surrogate (which UTF-8 cannot hold: Embind would turn it and
// the next unit into another character) is refused, naming the field, the unit and its index.
std::string well_formed_string(const val &s, const std::string &field) {
    if (const std::optional<std::string> lone = lone_surrogate(s))
        reject(field, "holds " + *lone + "; give well-formed text");
    return s.as<std::string>();
}

std::vector<double> numbers_value(const val &list, const field_rule &f, const std::string &name) {
    if (!list.isArray())
        reject(name, "must be an array of numbers, got " + type_of(list));
    std::vector<double> out;
    for (std::size_t i = 0; i < checked_length(list, name, "numbers", f.count); ++i) {
        if (type_of(list[i]) != "number")
            reject(name + "[" + std::to_string(i) + "]",
                   "must be a number, got " + type_of(list[i]));
        out.push_back(list[i].as<double>());
    }
    return out;
}

// Words (kind designed's tokens) of at most 40 characters each.
std::vector<std::string> words_value(const val &list, const field_rule &f,
                                     const std::string &name) {
    if (!list.isArray())
        reject(name, "must be an array of words, got " + type_of(list));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < checked_length(list, name, "words", f.count); ++i) {
        const std::string at = name + "[" + std::to_string(i) + "]";
        if (type_of(list[i]) != "string")
            reject(at, "must be a string, got " + type_of(list[i]));
        if (list[i]["length"].as<double>() > 40)
            reject(at, "is longer than 40 characters");
        out.push_back(well_formed_string(list[i], at));
    }
    return out;
}

// One field's value by its rule's type (the type is all that is checked here), named `name`
// in messages.
field_value field_of(const val &v, const field_rule &f, const std::string &name) {
    switch (f.type) {
    case field_type::number:
        if (type_of(v) != "number")
            reject(name, "must be a number, got " + type_of(v));
        return v.as<double>();
    case field_type::flag:
        if (type_of(v) != "boolean")
            reject(name, "must be true or false, got " + type_of(v));
        return v.as<bool>();
    case field_type::text:
        if (type_of(v) != "string")
            reject(name, "must be a string, got " + type_of(v));
        return well_formed_string(v, name);
    case field_type::numbers:
        return numbers_value(v, f, name);
    case field_type::words:
        return words_value(v, f, name);
    case field_type::matrix:
        return rows_value(v, name, f.rows, f.cols);
    case field_type::matrices:
        return matrices_value(v, f);
    case field_type::model:
        return std::make_shared<const model>(model_from(v, name.c_str()));
    case field_type::object: // its fields are read beside it (read_fields)
        if (type_of(v) != "object")
            reject(name, "must be an object, got " + type_of(v));
        return true;
    }
    return 0.0;
}

// Each field the rules name, into out as prefix + its name (named in messages after `label`,
// the path of an argument nested in another); an object's own fields after it.
void read_fields(const val &v, const std::vector<field_rule> &rules, const std::string &prefix,
                 field_values &out, const std::string &label = "") {
    for (const field_rule &f : rules) {
        const std::string name = prefix + f.name, shown = label + name;
        const val x = v[f.name];
        if (x.isNull() && f.nullable)
            continue;
        if (x.isUndefined() && f.required && f.type == field_type::number)
            reject(shown, "is missing; give a whole number");
        if (x.isUndefined() && !f.required)
            continue;
        out.emplace(name, field_of(x, f, shown));
        if (f.type == field_type::object) {
            reject_unknown_fields(x, *f.fields, f.name, shown.c_str());
            read_fields(x, *f.fields, name + ".", out, label);
        }
    }
}

// An object with an X (or X_q) holds explicit matrices.
bool is_explicit(const val &spec) {
    return !spec["X"].isUndefined() || !spec["X_q"].isUndefined();
}

} // namespace

field_values read(const val &v, const char *field, const char *should,
                  const std::vector<field_rule> &rules, const char *what, bool nested) {
    require_object(v, field, should);
    reject_unknown_fields(v, rules, what, field);
    field_values out;
    read_fields(v, rules, "", out, nested ? std::string(field) + "." : "");
    return out;
}

field_values fields_from(const val &v, const std::vector<field_rule> &rules) {
    field_values out;
    read_fields(v, rules, "", out);
    return out;
}

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

void reject_unknown_fields(const val &v, const std::vector<field_rule> &rules,
                           const std::string &what, const char *field) {
    std::set<std::string> known; // listed in alphabetical order
    for (const field_rule &f : rules)
        known.insert(f.name);
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

void require_object(const val &v, const char *field, const char *should) {
    if (type_of(v) != "object")
        reject(field, std::string("must be ") + should);
}

problem problem_from(const val &spec, bool traced) {
    require_object(spec, "spec", ("an object, got " + type_of(spec)).c_str());
    if (!spec["preset"].isUndefined()) {
        reject_unknown_fields(spec, preset_fields(), "a preset");
        const field_values v = fields_from(spec, preset_fields());
        return problem_of_preset(std::get<std::string>(v.at("preset")), traced);
    }
    const field_values kind = fields_from(spec, {{"kind", field_type::text}});
    const problem_kind k = kind_named(
        kind.count("kind") ? std::optional<std::string>(std::get<std::string>(kind.at("kind")))
                           : std::nullopt);
    const spec_schema schema = spec_fields(k, is_explicit(spec));
    reject_unknown_fields(spec, schema.fields, schema.what);
    return problem_of(k, is_explicit(spec), fields_from(spec, schema.fields), traced);
}

} // namespace bindings
