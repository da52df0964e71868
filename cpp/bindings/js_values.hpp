// Reading JS values into the core's specs, and writing the core's results as JS values.
// Embind only: no math here. Every reader throws std::invalid_argument naming the field.
#pragma once

#include <emscripten/val.h>

#include <set>
#include <string>

#include "attention/explain.hpp"
#include "attention/spec.hpp"

namespace bindings {

using emscripten::val;

// "array", "null", or JS's typeof.
std::string type_of(const val &v);

[[noreturn]] void reject(const std::string &field, const std::string &rule);

// Rejects a key of `v` not in `known`, naming it and listing the known ones; field: the
// argument's name in messages (spec, query, cell); what: whose fields these are.
void reject_unknown_fields(const val &v, const std::set<std::string> &known,
                           const std::string &what, const char *field = "spec");

// A JS string as UTF-8; a lone surrogate (which UTF-8 cannot hold: Embind would turn it and
// the next unit into another character) is refused, naming the field, the unit and its index.
std::string well_formed_string(const val &s, const std::string &field);

// A number field, `fallback` when absent; rejects any other type by name.
double number_field(const val &spec, const char *key, double fallback);

// The validated problem of a JS spec (generated, explicit or { preset });
// `traced` also checks the trace budget before drawing.
attention::problem problem_from(const val &spec, bool traced);

// The kind as JS spells it: self, cross, encoder-layer, kv-cache, flash.
const char *kind_js(attention::problem_kind kind);

// The seed a spec draws with; NaN for explicit matrices.
double seed_of(const val &spec);

// A JS-owned copy of n doubles.
val float64_array(const double *data, std::size_t n);

// { config, layout (JSON text), values (one Float64Array) }: see attention/trace_pack.hpp.
// `into` is a Float64Array to write the values into when it is long enough (the caller's
// buffer of a trace it no longer needs, which skips allocating and first touching fresh
// pages), or null.
val trace_js(const attention::trace &t, double seed, const val &into);

val explanation_js(const attention::cell_explanation &e);

// engine.kvCacheBytes({ seqLen, dHead, numKvHeads, numLayers, bytesPerValue, batch }).
double kv_cache_bytes_js(const val &query);

// engine.pruneEach(spec): [{ head, change }], each head pruned alone.
val prune_each_js(const val &spec);

// engine.presets() and engine.models().
val presets_js();
val models_js();

} // namespace bindings
