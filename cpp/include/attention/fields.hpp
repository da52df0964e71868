// What the engine's callers pass, field by field, as JavaScript names them: each argument's
// fields, their types, and how much a reader may allocate for them. The bindings read a JS
// value by these rules into field_values and check only types; the core takes it from there
// (kinds, defaults, ranges and every message about what a value means).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "attention/config.hpp"
#include "attention/matrix.hpp"

namespace attention {

struct model; // model.hpp

enum class field_type {
    number,   // a JS number (NaN and ±∞ included: the core names them)
    flag,     // true or false
    text,     // a string
    numbers,  // an array of at most `count` numbers
    flag_or_numbers, // true or false, or an array of at most `count` numbers
    words,    // an array of at most `count` strings of at most 40 characters each
    matrix,   // an array of rows of numbers, or { shape, values: Float64Array }: ≤ rows × cols
    matrices, // an array of at most `count` matrices, each ≤ rows × cols
    object,   // an object of the `fields` rules: read as name.field each, and name: true
    model,    // a model { config, params } as engine.initModel returns it: read whole by `read`
};

using field_value =
    std::variant<double, bool, std::string, std::vector<double>, std::vector<std::string>, row_list,
                 std::vector<row_list>, std::shared_ptr<const model>>;

struct value; // value.hpp: a caller's argument as it crossed from JS

struct field_rule {
    const char *name;
    field_type type;
    bool required = false; // read even when absent (a missing number: "is missing")
    std::size_t count = 0, rows = 0, cols = 0;
    bool nullable = false;                      // null reads as absent (a cell's head and step)
    const std::vector<field_rule> *fields = {}; // object: the fields it may hold
    field_value (*read)(const value &v, const std::string &name) = nullptr; // model: its reader
};

// The fields a caller gave, by name, each as its rule's type reads it; an object's fields as
// "object.field", beside "object": true.
using field_values = std::map<std::string, field_value>;

// The kinds as JS spells them, in problem_kind's order: "self, cross, …" for messages.
const char *kind_name(problem_kind kind);
std::string kind_names();

// The kind a spec's "kind" names (absent: self). Throws naming the field.
problem_kind kind_named(const std::optional<std::string> &name);

// What a spec of this kind may hold: explicit matrices (self and cross only; other kinds
// throw naming "kind") or the sizes to draw from, and what to call them in messages.
struct spec_schema {
    std::vector<field_rule> fields;
    std::string what; // "self-attention", "explicit self-attention", "kind \"cross\""
};
spec_schema spec_fields(problem_kind kind, bool explicit_matrices);

// The fields of { preset }, engine.explain's cell, engine.kvCacheBytes's query, engine.randn's
// arguments (read as if an object { seed, rows, cols }).
const std::vector<field_rule> &preset_fields();
const std::vector<field_rule> &cell_fields();
const std::vector<field_rule> &kv_query_fields();
const std::vector<field_rule> &randn_fields();

// One field's value, or the fallback when the caller left it out.
double number_or(const field_values &v, const char *name, double fallback);

} // namespace attention
