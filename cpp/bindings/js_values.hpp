// JS values ⇄ the core's plain values. Embind only: no math here. The readers check each
// field's type by the core's rules (attention/fields.hpp) and throw std::invalid_argument
// naming the field; the writers copy.
#pragma once

#include <emscripten/val.h>

#include <string>
#include <vector>

#include "attention/fields.hpp"
#include "attention/model.hpp"
#include "attention/trace.hpp"
#include "attention/value.hpp"

namespace bindings {

using emscripten::val;

// "array", "null", or JS's typeof.
std::string type_of(const val &v);

[[noreturn]] void reject(const std::string &field, const std::string &rule);

// Refuses anything but an object, naming the argument and what it should hold.
void require_object(const val &v, const char *field, const char *should);

// Rejects a key of `v` no rule names, naming it and listing the known ones (alphabetically);
// field: the argument's name in messages (spec, query, cell); what: whose fields these are.
void reject_unknown_fields(const val &v, const std::vector<attention::field_rule> &rules,
                           const std::string &what, const char *field = "spec");

// The length of a JS array, refused above `limit` (naming the field and `what` it counts)
// before anything is allocated for it.
std::size_t checked_length(const val &array, const std::string &field, const char *what,
                           std::size_t limit);

// A matrix (an array of rows, or { shape, values: Float64Array }) of at most max_rows × max_cols,
// and a list of at most f.count of them, one per head.
attention::row_list rows_value(const val &m, const std::string &field, std::size_t max_rows,
                               std::size_t max_cols);
std::vector<attention::row_list> matrices_value(const val &list, const attention::field_rule &f);

// v's member `key`, refused by name (path.key) when v is no object or lacks it.
val member(const val &v, const std::string &key, const std::string &path);

// A model { config, params } (field: its name in messages, "model"), and a model's params of
// config c (or Adam's moments, shaped like them): read, then checked by the core.
attention::model model_from(const val &m, const char *field);
attention::model_params params_from(const val &params, const attention::model_config &c,
                                    const std::string &field);

// The fields of v the rules name, each read by its rule's type.
attention::field_values fields_from(const val &v, const std::vector<attention::field_rule> &rules);

// An argument object read by its rules, after refusing what it is not and what it must not hold;
// nested: inside another (a model's config), its fields named in messages as field.name.
attention::field_values read(const val &v, const char *field, const char *should,
                             const std::vector<attention::field_rule> &rules, const char *what,
                             bool nested = false);

// { value: compute() }, or { error: message } when it throws.
template <class F> val result_of(F compute) {
    val out = val::object();
    try {
        out.set("value", compute());
    } catch (const std::exception &e) {
        out.set("error", std::string(e.what()));
    }
    return out;
}

// The validated problem of a JS spec (generated, explicit or { preset }); `traced` also checks
// the trace budget before drawing.
attention::problem problem_from(const val &spec, bool traced);

// A JS-owned copy of n doubles.
val float64_array(const double *data, std::size_t n);

// The JS value a core value mirrors.
val js_of(const attention::value &v);

// { config, layout (JSON text), values (one Float64Array) }: see attention/trace_pack.hpp.
// `into` is a Float64Array to write the values into when it is long enough (the caller's
// buffer of a trace it no longer needs, which skips allocating and first touching fresh
// pages), or null.
val trace_js(const attention::trace &t, double seed, const val &into);

} // namespace bindings
