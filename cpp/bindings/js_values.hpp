// JS values ⇄ the core's plain values (attention/value.hpp). Embind only: no math here, and no
// checks: the core reads what crosses (reader.hpp) and names every field it refuses; the writers
// copy.
#pragma once

#include <emscripten/val.h>

#include "attention/trace.hpp"
#include "attention/value.hpp"

namespace bindings {

using emscripten::val;

// A JS value as the core's value tree, in one pass (the mirror of js_of).
attention::value value_of(const val &v);

// The JS value a core value mirrors.
val js_of(const attention::value &v);

// A JS-owned copy of n doubles.
val float64_array(const double *data, std::size_t n);

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

// { config, layout (JSON text), values (one Float64Array) }: see attention/trace_pack.hpp.
// `into` is a Float64Array to write the values into when it is long enough (the caller's
// buffer of a trace it no longer needs, which skips allocating and first touching fresh
// pages), or null.
val trace_js(const attention::trace &t, double seed, const val &into);

} // namespace bindings
