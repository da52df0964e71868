// Embind registration: JS spec in, plain JS values out (copied Float64Arrays, no handles).
// Errors come back as { error: message }; web/engine-api.js turns them into a thrown Error,
// so no C++ exception or emval handle is left half-unwound by a JS throw.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <malloc.h>
#include <unistd.h>

#include <cmath>

#include "attention/engine.hpp"
#include "attention/explain.hpp"
#include "attention/message_text.hpp"
#include "attention/rng.hpp"
#include "attention/validation.hpp"
#include "js_values.hpp"

using emscripten::val;
using namespace attention;
using namespace bindings;

namespace {

template <class F> val result_of(F compute) {
    val out = val::object();
    try {
        out.set("value", compute());
    } catch (const std::exception &e) {
        out.set("error", std::string(e.what()));
    }
    return out;
}

// `into`: a Float64Array the trace may be written into, or null (web/engine-api.js checks it).
val run_js(val spec, val into) {
    return result_of(
        [&] { return trace_js(run_traced(problem_from(spec, true)), seed_of(spec), into); });
}

val forward_js(val spec) {
    return result_of([&] {
        const matrix out = attention::forward(problem_from(spec, false));
        val o = val::object();
        val shape = val::array();
        shape.call<void>("push", rows(out), cols(out));
        o.set("shape", shape);
        o.set("values", float64_array(out.data(), out.size()));
        return o;
    });
}

stage_id stage_of(const val &cell) {
    if (type_of(cell["stage"]) != "string")
        reject("stage", "must be a stage id string");
    const std::string name = well_formed_string(cell["stage"], "stage");
    const auto id = stage_named(name);
    if (!id)
        reject("stage",
               quoted_for_message(name) + " is not a stage; the stages are " + stage_names());
    return *id;
}

val explain_js(val spec, val cell) {
    return result_of([&] {
        if (type_of(cell) != "object")
            reject("cell", "must be an object { stage, head, step?, row, col }");
        reject_unknown_fields(cell, {"stage", "head", "step", "row", "col"}, "a cell", "cell");
        const stage_id id = stage_of(cell);
        const bool per_head = !cell["head"].isNull() && !cell["head"].isUndefined();
        const int head =
            per_head
                ? int(whole_number("head", number_field(cell, "head", 0), 0, limits::max_heads - 1))
                : no_head;
        const bool stepped = !cell["step"].isNull() && !cell["step"].isUndefined();
        const int step = stepped
                             ? int(whole_number("step", number_field(cell, "step", 0), 0, 1u << 20))
                             : no_step;
        const trace t = run_traced(problem_from(spec, true));
        return explanation_js(explain_cell(
            t, id, head,
            whole_number("row", number_field(cell, "row", NAN), 0, limits::max_seq_len),
            whole_number("col", number_field(cell, "col", NAN), 0, limits::max_d_ff * 64), step));
    });
}

val prune_each_entry(val spec) {
    return result_of([&] { return prune_each_js(spec); });
}

val kv_cache_bytes_entry(val query) {
    return result_of([&] { return kv_cache_bytes_js(query); });
}

val randn_js(val seed, val r, val c) {
    return result_of([&] {
        val args = val::object();
        args.set("seed", seed);
        args.set("rows", r);
        args.set("cols", c);
        const std::size_t n_rows =
            whole_number("rows", number_field(args, "rows", NAN), 1, 1u << 24);
        const std::size_t n_cols =
            whole_number("cols", number_field(args, "cols", NAN), 1, 1u << 24);
        if (n_rows >
            limits::max_trace_values / n_cols) // not n_rows · n_cols: size_t is 32-bit here
            reject("rows", std::to_string(n_rows) + " × " + std::to_string(n_cols) +
                               " values, above the limit " +
                               std::to_string(limits::max_trace_values));
        numpy_random rng(static_cast<std::uint32_t>(
            whole_number("seed", number_field(args, "seed", NAN), 0, 4294967295u)));
        const matrix m = rng.randn(n_rows, n_cols);
        return float64_array(m.data(), m.size());
    });
}

// Bytes malloc has handed out and not taken back, and the top of its heap.
val heap_usage() {
    val o = val::object();
    o.set("inUse", double(mallinfo().uordblks));
    o.set("top", double(reinterpret_cast<std::uintptr_t>(sbrk(0))));
    return o;
}

} // namespace

EMSCRIPTEN_BINDINGS(attention_engine) {
    emscripten::function("run", &run_js);
    emscripten::function("forward", &forward_js);
    emscripten::function("explain", &explain_js);
    emscripten::function("randn", &randn_js);
    emscripten::function("presets", &presets_js);
    emscripten::function("models", &models_js);
    emscripten::function("kvCacheBytes", &kv_cache_bytes_entry);
    emscripten::function("pruneEach", &prune_each_entry);
    emscripten::function("heapUsage", &heap_usage);
}
