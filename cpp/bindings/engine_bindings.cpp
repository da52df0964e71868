// Embind registration: each entry point converts its arguments (value_of), calls the core's answer
// (attention/answers.hpp), and hands back a plain JS value. Errors come back as { error: message };
// web/engine-api.js turns them into a thrown Error, so no C++ exception or emval handle is left
// half-unwound by a JS throw.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <malloc.h>
#include <unistd.h>

#include "attention/answers.hpp"
#include "attention/describe.hpp"
#include "attention/engine.hpp"
#include "attention/field_ranges.hpp"
#include "attention/spec_reader.hpp"
#include "js_values.hpp"

using emscripten::val;
using namespace attention;
using namespace bindings;

namespace {

// A matrix as engine.forward and engine.randn return it: { shape, values }, or its values alone.
val matrix_js(const matrix &m) {
    val o = val::object();
    o.set("shape", js_of(value_list{rows(m), cols(m)}));
    o.set("values", float64_array(m.data(), m.size()));
    return o;
}

val run_js(val spec, val into) {
    return result_of([&] {
        const problem p = problem_from(value_of(spec), true);
        return trace_js(run_traced(p), p.seed, into);
    });
}

// An answer of one argument, or of two, as a JS value.
template <class Answer> auto one(Answer answer) {
    return [answer](val a) { return result_of([&] { return js_of(answer(value_of(a))); }); };
}
template <class Answer> auto two(Answer answer) {
    return [answer](val a, val b) {
        return result_of([&] { return js_of(answer(value_of(a), value_of(b))); });
    };
}

// Bytes malloc has handed out and not taken back, and the top of its heap: for the leak tests.
val heap_usage() {
    val o = val::object();
    o.set("inUse", double(mallinfo().uordblks));
    o.set("top", double(reinterpret_cast<std::uintptr_t>(sbrk(0))));
    return o;
}

} // namespace

// One registration per entry point: a list (~50 lines), not logic.
EMSCRIPTEN_BINDINGS(attention_engine) {
    using emscripten::function;
    function("run", &run_js);
    function(
        "forward", +[](val spec) {
            return result_of(
                [&] { return matrix_js(forward(problem_from(value_of(spec), false))); });
        });
    function(
        "explain", +[](val spec, val cell) { return two(explain_answer)(spec, cell); });
    function(
        "explainTrace", +[](val spec, val layout, val values, val cell) {
            return result_of([&] {
                return js_of(explain_trace_answer(value_of(spec), value_of(layout),
                                                  value_of(values), value_of(cell)));
            });
        });
    function(
        "randn", +[](val seed, val r, val c) {
            return result_of([&] {
                const matrix m = randn_answer(value_of(seed), value_of(r), value_of(c));
                return float64_array(m.data(), m.size());
            });
        });
    function(
        "presets", +[] { return js_of(describe_presets()); });
    function(
        "models", +[] { return js_of(describe_models()); });
    function(
        "latentModels", +[] { return js_of(describe_latent_models()); });
    function(
        "stages", +[] { return js_of(describe_stages()); });
    function(
        "kvCacheBytes", +[](val query) {
            return result_of([&] { return val(kv_cache_bytes_answer(value_of(query))); });
        });
    function(
        "pruneEach", +[](val spec) { return one(prune_each_answer)(spec); });
    function(
        "initModel", +[](val config) { return one(init_model_answer)(config); });
    function(
        "lossAndGradients", +[](val m, val b) { return two(loss_and_gradients_answer)(m, b); });
    function(
        "headScores", +[](val m, val t) { return two(head_scores_answer)(m, t); });
    function(
        "modelForward", +[](val m, val t) { return two(model_forward_answer)(m, t); });
    function(
        "train", +[](val s, val o) { return two(train_answer)(s, o); });
    function(
        "taskBatch", +[](val s, val o) { return two(task_batch_answer)(s, o); });
    function(
        "limits", +[] { return js_of(limits_answer()); });
    function("heapUsage", &heap_usage);
}
