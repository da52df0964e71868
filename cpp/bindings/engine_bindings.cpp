// Embind registration: each entry point reads its arguments by the core's field rules, calls the
// core, and hands back a plain JS value. Errors come back as { error: message }; web/engine-api.js
// turns them into a thrown Error, so no C++ exception or emval handle is left half-unwound by a
// JS throw.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <malloc.h>
#include <unistd.h>

#include "attention/describe.hpp"
#include "attention/engine.hpp"
#include "attention/kv_size.hpp"
#include "js_values.hpp"

using emscripten::val;
using namespace attention;
using namespace bindings;

namespace {

// A matrix as engine.forward returns it: { shape, values }.
val matrix_js(const matrix &m) {
    val o = val::object();
    o.set("shape", js_of(value_list{rows(m), cols(m)}));
    o.set("values", float64_array(m.data(), m.size()));
    return o;
}

val run_js(val spec, val into) {
    return result_of([&] {
        const problem p = problem_from(spec, true);
        return trace_js(run_traced(p), p.seed, into);
    });
}

// A cell, or an array of at most 65,536 cells explained from one run (each named cells[i]).
val explain_js(val spec, val cell) {
    const char *should = "an object { stage, head, step?, row, col }";
    return result_of([&] {
        if (!cell.isArray()) {
            const cell_request asked = cell_of(read(cell, "cell", should, cell_fields(), "a cell"));
            return js_of(describe(explain(problem_from(spec, true), asked)));
        }
        std::vector<field_values> asked;
        for (std::size_t i = 0; i < checked_length(cell, "cells", "cells", 1u << 16); ++i) {
            const std::string at = "cells[" + std::to_string(i) + "]";
            asked.push_back(read(cell[i], at.c_str(), should, cell_fields(), "a cell", true));
        }
        value_list out;
        for (const cell_explanation &e : explain(problem_from(spec, true), cells_of(asked)))
            out.push_back(describe(e));
        return js_of(out);
    });
}

val kv_cache_bytes_js(val query) {
    const char *should = "an object { seqLen, dHead, numKvHeads, numLayers, bytesPerValue, batch }";
    return result_of([&] {
        return val(double(kv_cache_bytes(
            read(query, "query", should, kv_query_fields(), "kvCacheBytes")))); // ≤ 2⁵³
    });
}

val randn_js(val seed, val r, val c) {
    val args = val::object(); // positional arguments, read as the fields they are
    args.set("seed", seed), args.set("rows", r), args.set("cols", c);
    return result_of([&] {
        const matrix m = randn(fields_from(args, randn_fields()));
        return float64_array(m.data(), m.size());
    });
}

// Bytes malloc has handed out and not taken back, and the top of its heap: for the leak tests.
val heap_usage() {
    val o = val::object();
    o.set("inUse", double(mallinfo().uordblks));
    o.set("top", double(reinterpret_cast<std::uintptr_t>(sbrk(0))));
    return o;
}

} // namespace

EMSCRIPTEN_BINDINGS(attention_engine) {
    using emscripten::function;
    function("run", &run_js);
    function(
        "forward", +[](val spec) {
            return result_of([&] { return matrix_js(forward(problem_from(spec, false))); });
        });
    function("explain", &explain_js);
    function("randn", &randn_js);
    function(
        "presets", +[] { return js_of(describe_presets()); });
    function(
        "models", +[] { return js_of(describe_models()); });
    function(
        "stages", +[] { return js_of(describe_stages()); });
    function("kvCacheBytes", &kv_cache_bytes_js);
    function(
        "pruneEach", +[](val spec) {
            return result_of([&] {
                return js_of(describe_pruning(prune_each_head(problem_from(spec, false))));
            });
        });
    function("heapUsage", &heap_usage);
}
