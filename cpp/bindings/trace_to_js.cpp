// The core's answers → plain JS values: a value (attention/value.hpp) as the JS value it mirrors,
// and a trace as one Float64Array plus the JSON layout the core's trace_pack computed. Copies
// only.
#include <emscripten/val.h>

#include "attention/describe.hpp"
#include "attention/trace_pack.hpp"
#include "js_values.hpp"

namespace bindings {

using namespace attention;

val js_of(const value &v) {
    struct convert {
        val operator()(std::nullptr_t) const { return val::null(); }
        val operator()(bool b) const { return val(b); }
        val operator()(double x) const { return val(x); }
        val operator()(const std::string &s) const { return val(s); }
        val operator()(const std::vector<double> &d) const {
            return float64_array(d.data(), d.size());
        }
        val operator()(const value_list &l) const {
            val out = val::array();
            for (const value &item : l)
                out.call<void>("push", js_of(item));
            return out;
        }
        val operator()(const number_array &a) const {
            return js_of(value_list(a.items.begin(), a.items.end()));
        }
        val operator()(const long_array &) const { return val::undefined(); }    // never handed out
        val operator()(const foreign_value &) const { return val::undefined(); } // never handed out
        val operator()(const value_record &r) const {
            val out = val::object();
            for (const auto &[key, item] : r)
                out.set(key, js_of(item));
            return out;
        }
    };
    return std::visit(convert{}, v.v);
}

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
    o.set("config", js_of(describe_config(t, seed)));
    o.set("layout", layout.json);
    o.set("values", values);
    return o;
}

} // namespace bindings
