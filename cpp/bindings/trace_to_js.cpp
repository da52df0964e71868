// The core's results → plain JS values: a trace as one Float64Array plus a JSON layout (both
// computed by the core's trace_pack), explanations, presets and models. Copies only.
#include <emscripten/val.h>

#include <cmath>

#include "attention/designed.hpp"
#include "attention/engine.hpp"
#include "attention/flash.hpp"
#include "attention/presets.hpp"
#include "attention/trace_pack.hpp"
#include "js_values.hpp"

namespace bindings {

using namespace attention;

namespace {

val optional_js(std::optional<std::size_t> v) {
    return v ? val(*v) : val::null();
}

// The designed heads' names, patterns and constructions (designed.hpp), for the page to show.
val designed_heads_js() {
    val out = val::array();
    for (const designed_head &h : designed_heads()) {
        val o = val::object();
        o.set("name", h.name);
        o.set("pattern", h.pattern);
        o.set("construction", h.construction);
        out.call<void>("push", o);
    }
    return out;
}

// K/V parameters and cache values of this layer, and of the same layer with every head its
// own K/V (multi-head attention): what grouped-query attention saves.
val kv_sizes_js(const attention_config &c) {
    val o = val::object();
    o.set("params", kv_parameter_count(c, c.num_kv_heads));
    o.set("paramsMha", kv_parameter_count(c, c.num_heads));
    o.set("cacheValues", kv_cache_values(c, c.num_kv_heads));
    o.set("cacheValuesMha", kv_cache_values(c, c.num_heads));
    return o;
}

val config_js(const attention_config &c, double seed) {
    val o = val::object();
    o.set("kind", std::string(kind_js(c.kind)));
    o.set("seqLen", c.seq_len);
    o.set("kvLen", c.kv_len);
    o.set("dModel", c.d_model);
    o.set("numHeads", c.num_heads);
    o.set("numKvHeads", c.num_kv_heads);
    o.set("dK", c.d_k);
    o.set("dV", c.d_v);
    o.set("dFF", c.d_ff ? val(c.d_ff) : val::null());
    o.set("validKeys", optional_js(c.valid_keys));
    o.set("causal", c.causal);
    o.set("outputProjection", c.output_projection);
    o.set("scaleScores", c.scale_scores);
    o.set("seed", std::isnan(seed) ? val::null() : val(seed));
    o.set("kv", kv_sizes_js(c));
    o.set("blockRows", c.block_rows ? val(c.block_rows) : val::null());
    o.set("blockCols", c.block_cols ? val(c.block_cols) : val::null());
    const bool drawn =
        c.kind != problem_kind::designed && !std::isnan(seed); // not built, not given
    o.set("weightScale", drawn ? val(c.weight_scale) : val::null());
    val pruned = val::array();
    for (std::size_t h : c.pruned_heads)
        pruned.call<void>("push", h);
    o.set("prunedHeads", pruned);
    if (c.kind == problem_kind::designed)
        o.set("designedHeads", designed_heads_js());
    return o;
}

val numbers_js(const std::vector<double> &v) {
    val out = val::array();
    for (double x : v)
        out.call<void>("push", x);
    return out;
}

// Floats one head holds, whole scores against one tile and m, l: at T and at the lesson's 2048.
val floats_js(const attention_config &c) {
    constexpr std::size_t lesson_t = 2048;
    const flash_floats now = floats_held(c.seq_len, c.block_rows, c.block_cols);
    const flash_floats lesson = floats_held(lesson_t, c.block_rows, c.block_cols);
    val o = val::object();
    o.set("standard", now.standard);
    o.set("tiled", now.tiled);
    o.set("lessonSeqLen", lesson_t);
    o.set("lessonStandard", lesson.standard);
    o.set("lessonTiled", lesson.tiled);
    return o;
}

// What the run checked about itself (decoding, tiling): added to the config JS sees.
void add_checks(val &config, const trace &t) {
    const trace_checks &k = t.checks;
    if (k.max_difference)
        config.set("maxDifference", *k.max_difference);
    if (k.output_change)
        config.set("outputChange", *k.output_change);
    if (t.config.kind == problem_kind::kv_cache) {
        config.set("stepDifferences", numbers_js(k.step_differences));
        config.set("cacheBytes", numbers_js(k.cache_bytes));
        val macs = val::object();
        macs.set("cached", numbers_js(k.macs_cached));
        macs.set("recomputed", numbers_js(k.macs_recomputed));
        macs.set("cachedSoFar", numbers_js(k.macs_cached_so_far));
        macs.set("recomputedSoFar", numbers_js(k.macs_recomputed_so_far));
        config.set("macs", macs);
    }
    if (t.config.kind == problem_kind::flash)
        config.set("floats", floats_js(t.config));
}

val doubles_js(const std::vector<double> &v) {
    return float64_array(v.data(), v.size());
}

val terms_js(const std::vector<product_term> &terms) {
    if (terms.empty())
        return val::null();
    val out = val::array();
    for (const product_term &t : terms) {
        val js = val::object();
        js.set("a", t.a);
        js.set("b", t.b);
        js.set("product", t.product);
        out.call<void>("push", js);
    }
    return out;
}

val softmax_js(const std::optional<softmax_parts> &s) {
    if (!s)
        return val::null();
    val o = val::object();
    o.set("logits", doubles_js(s->logits));
    o.set("max", s->max);
    o.set("exps", doubles_js(s->exps));
    o.set("expSum", s->exp_sum);
    return o;
}

val norm_js(const std::optional<norm_parts> &n) {
    if (!n)
        return val::null();
    val o = val::object();
    o.set("mean", n->mean);
    o.set("std", n->std_dev);
    o.set("eps", n->eps);
    o.set("row", doubles_js(n->row));
    return o;
}

val optional_number_js(std::optional<double> v) {
    return v ? val(*v) : val::null();
}

val strings_js(const std::vector<std::string> &list) {
    val out = val::array();
    for (const std::string &s : list)
        out.call<void>("push", s);
    return out;
}

// A generated spec as the JS object engine.run takes (presets are listed this way).
val spec_js(const generated_spec &s) {
    val o = val::object();
    const bool cross = s.kind == problem_kind::cross;
    o.set("kind", std::string(kind_js(s.kind)));
    if (s.kind == problem_kind::designed) {
        o.set("tokens", strings_js(s.tokens));
        o.set("causal", s.causal);
        return o;
    }
    o.set("seed", s.seed);
    if (s.skip)
        o.set("skip", s.skip);
    o.set(cross ? "queryLen" : "seqLen", s.seq_len);
    if (cross)
        o.set("keyLen", s.kv_len);
    o.set("dModel", s.d_model);
    if (s.kind != problem_kind::flash) // one head: flash takes no numHeads
        o.set("numHeads", s.num_heads);
    const std::pair<const char *, std::optional<double>> optional[] = {
        {"numKvHeads", s.num_kv_heads},
        {"dK", s.d_k},
        {"dV", s.d_v},
        {"dFF", s.d_ff},
        {"validKeys", s.valid_keys}};
    for (const auto &[key, value] : optional)
        if (value)
            o.set(key, *value);
    if (!cross && s.kind != problem_kind::kv_cache)
        o.set("causal", s.causal);
    if (s.kind == problem_kind::flash) {
        o.set("blockRows", s.block_rows);
        o.set("blockCols", s.block_cols);
    }
    if (s.kind != problem_kind::encoder_layer && s.kind != problem_kind::flash)
        o.set("outputProjection", s.output_projection);
    o.set("scaleScores", s.scale_scores);
    if (s.weight_scale != 0.1)
        o.set("weightScale", s.weight_scale);
    return o;
}

} // namespace

val float64_array(const double *data, std::size_t n) {
    // slice() on a view of the WASM memory copies about 3× faster in V8 than new
    // Float64Array(view).
    return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

// The trace as the core packed it (trace_pack.hpp): its JSON layout, and every placed matrix
// copied straight from the trace into one JS-owned Float64Array (gathering them on the WASM
// heap first and copying that with slice() took 10% longer at (256, 256, 8)).
val trace_js(const trace &t, double seed, const val &into) {
    const trace_layout layout = layout_of(t);
    const bool fits = !into.isNull() && into["length"].as<double>() >= layout.value_count;
    val values = fits ? into : val::global("Float64Array").new_(layout.value_count);
    for (const placed_matrix &p : layout.placed)
        values.call<void>("set",
                          val(emscripten::typed_memory_view(p.values->size(), p.values->data())),
                          p.offset);
    val o = val::object();
    val config = config_js(t.config, seed);
    add_checks(config, t);
    o.set("config", config);
    o.set("layout", layout.json);
    o.set("values", values);
    return o;
}

val explanation_js(const cell_explanation &e) {
    val o = val::object();
    o.set("value", e.value);
    o.set("terms", terms_js(e.terms));
    o.set("sum", e.sum);
    o.set("bias", optional_number_js(e.bias));
    o.set("divisor", e.divisor);
    o.set("input", optional_number_js(e.input));
    o.set("mask", optional_number_js(e.mask));
    o.set("masked", e.masked);
    o.set("softmax", softmax_js(e.softmax));
    o.set("addends", e.addends.empty() ? val::null() : doubles_js(e.addends));
    o.set("norm", norm_js(e.norm));
    o.set("gate", optional_number_js(e.gate));
    o.set("alpha", e.alpha);
    o.set("previous", e.previous);
    o.set("rowMax", optional_number_js(e.row_max));
    o.set("row", e.row.empty() ? val::null() : doubles_js(e.row));
    val source = val::null();
    if (e.source_head != no_head) {
        source = val::object();
        source.set("head", e.source_head);
        source.set("col", e.source_col);
    }
    o.set("source", source);
    return o;
}

val prune_each_js(const val &spec) {
    const std::vector<double> changes = prune_each_head(problem_from(spec, false));
    val out = val::array();
    for (std::size_t h = 0; h < changes.size(); ++h) {
        val o = val::object();
        o.set("head", h);
        o.set("change", changes[h]);
        out.call<void>("push", o);
    }
    return out;
}

val presets_js() {
    val out = val::array();
    for (const preset_info &p : presets()) {
        val o = val::object();
        o.set("id", p.id);
        o.set("chapter", p.chapter);
        o.set("title", p.title);
        o.set("fromLesson", p.from_lesson);
        o.set("spec", spec_js(p.spec));
        o.set("tokens", strings_js(p.tokens));
        o.set("keyTokens", p.key_tokens.empty() ? val::null() : strings_js(p.key_tokens));
        out.call<void>("push", o);
    }
    return out;
}

val models_js() {
    val out = val::array();
    for (const model_info &m : models()) {
        val o = val::object();
        o.set("id", m.id);
        o.set("name", m.name);
        o.set("dModel", m.d_model);
        o.set("numHeads", m.num_heads);
        o.set("dK", m.d_k);
        o.set("numLayers", m.num_layers);
        o.set("numKvHeads", m.num_kv_heads);
        o.set("contextLength", m.context);
        o.set("scoreValues", double(score_values(m))); // < 2⁵³: exact as a JS number
        out.call<void>("push", o);
    }
    return out;
}

} // namespace bindings
