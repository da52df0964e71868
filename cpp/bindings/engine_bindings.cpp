// Embind registration: JS spec in, plain JS values out (copied Float64Arrays, no handles).
// Errors come back as { error: message }; web/engine.js turns them into a thrown Error,
// so no C++ exception or emval handle is left half-unwound by a JS throw.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <malloc.h>
#include <unistd.h>

#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "attention/engine.hpp"
#include "attention/explain.hpp"
#include "attention/rng.hpp"
#include "attention/validation.hpp"

using emscripten::val;
using namespace attention;

namespace {

// ---- JS → C++ ----------------------------------------------------------------------------

std::string type_of(const val &v) {
    if (v.isNull())
        return "null";
    if (v.isArray())
        return "array";
    return v.typeOf().as<std::string>();
}

[[noreturn]] void reject(const std::string &field, const std::string &rule) {
    throw std::invalid_argument(field + ": " + rule);
}

double number_field(const val &spec, const char *key, double fallback) {
    const val v = spec[key];
    if (v.isUndefined())
        return fallback;
    if (type_of(v) != "number")
        reject(key, "must be a number, got " + type_of(v));
    return v.as<double>();
}

double required_number(const val &spec, const char *key) {
    if (spec[key].isUndefined())
        reject(key, "is missing; give a whole number");
    return number_field(spec, key, 0);
}

std::optional<double> optional_number(const val &spec, const char *key) {
    if (spec[key].isUndefined())
        return std::nullopt;
    return number_field(spec, key, 0);
}

bool bool_field(const val &spec, const char *key, bool fallback) {
    const val v = spec[key];
    if (v.isUndefined())
        return fallback;
    if (type_of(v) != "boolean")
        reject(key, "must be true or false, got " + type_of(v));
    return v.as<bool>();
}

// The length of a JS array, refused above `limit` before anything is allocated for it.
std::size_t checked_length(const val &array, const std::string &field, const char *what,
                           std::size_t limit) {
    const double n = array["length"].as<double>();
    if (n > double(limit))
        reject(field, js_number(n) + " " + what + ", more than the limit " + std::to_string(limit));
    return std::size_t(n);
}

row_list rows_value(const val &m, const std::string &field, std::size_t max_rows,
                    std::size_t max_cols) {
    if (!m.isArray())
        reject(field, "must be an array of rows, got " + type_of(m));
    row_list out(checked_length(m, field, "rows", max_rows));
    for (std::size_t i = 0; i < out.size(); ++i) {
        const val row = m[i];
        const std::string at = field + "[" + std::to_string(i) + "]";
        if (!row.isArray())
            reject(at, "must be an array of numbers, got " + type_of(row));
        const std::size_t n = checked_length(row, at, "values", max_cols);
        for (std::size_t j = 0; j < n; ++j) {
            const val x = row[j];
            if (type_of(x) != "number")
                reject(at + "[" + std::to_string(j) + "]", "must be a number, got " + type_of(x));
            out[i].push_back(x.as<double>());
        }
    }
    return out;
}

std::vector<row_list> per_head(const val &spec, const char *key) {
    const val list = spec[key];
    if (!list.isArray())
        reject(key, "must be an array with one matrix per head, got " + type_of(list));
    std::vector<row_list> out;
    for (std::size_t h = 0; h < checked_length(list, key, "matrices", limits::max_heads); ++h)
        out.push_back(rows_value(list[h], std::string(key) + "[" + std::to_string(h) + "]",
                                 limits::max_d_model, limits::max_head_dim));
    return out;
}

void reject_unknown_fields(const val &spec, const std::set<std::string> &known) {
    const val keys = val::global("Object").call<val>("keys", spec);
    for (std::size_t i = 0; i < keys["length"].as<std::size_t>(); ++i) {
        const std::string key = keys[i].as<std::string>();
        if (!known.count(key)) {
            std::string list;
            for (const std::string &k : known)
                list += (list.empty() ? "" : ", ") + k;
            reject("spec", "unknown field \"" + key.substr(0, 40) + "\" (known: " + list + ")");
        }
    }
}

generated_spec generated_from(const val &spec) {
    reject_unknown_fields(spec, {"seed", "seqLen", "dModel", "numHeads", "dK", "dV", "causal",
                                 "outputProjection", "scaleScores"});
    generated_spec s;
    s.seed = number_field(spec, "seed", s.seed);
    s.seq_len = required_number(spec, "seqLen");
    s.d_model = required_number(spec, "dModel");
    s.num_heads = number_field(spec, "numHeads", s.num_heads);
    s.d_k = optional_number(spec, "dK");
    s.d_v = optional_number(spec, "dV");
    s.causal = bool_field(spec, "causal", s.causal);
    s.output_projection = bool_field(spec, "outputProjection", s.output_projection);
    s.scale_scores = bool_field(spec, "scaleScores", s.scale_scores);
    return s;
}

explicit_spec explicit_from(const val &spec) {
    reject_unknown_fields(spec, {"X", "W_Q", "W_K", "W_V", "W_O", "causal", "scaleScores"});
    explicit_spec s;
    s.x = rows_value(spec["X"], "X", limits::max_seq_len, limits::max_d_model);
    s.w_q = per_head(spec, "W_Q");
    s.w_k = per_head(spec, "W_K");
    s.w_v = per_head(spec, "W_V");
    if (!spec["W_O"].isUndefined())
        s.w_o = rows_value(spec["W_O"], "W_O", limits::max_heads * limits::max_head_dim,
                           limits::max_d_model);
    s.causal = bool_field(spec, "causal", false);
    s.scale_scores = bool_field(spec, "scaleScores", true);
    return s;
}

// The validated problem of a JS spec; `traced` also checks the trace budget before drawing.
problem problem_from(const val &spec, bool traced) {
    if (type_of(spec) != "object")
        reject("spec", "must be an object, got " + type_of(spec));
    if (!spec["preset"].isUndefined()) {
        reject_unknown_fields(spec, {"preset"});
        if (type_of(spec["preset"]) != "string")
            reject("preset", "must be a string");
        return make_problem(preset(spec["preset"].as<std::string>()), traced);
    }
    if (!spec["X"].isUndefined())
        return make_problem(explicit_from(spec));
    return make_problem(generated_from(spec), traced);
}

// ---- C++ → JS ----------------------------------------------------------------------------

// A JS-owned copy of n doubles. slice() on a view of the WASM memory copies about 3× faster
// in V8 than new Float64Array(view).
val float64_array(const double *data, std::size_t n) {
    return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

val shape_js(const matrix &m) {
    val s = val::array();
    s.call<void>("push", rows(m), cols(m));
    return s;
}

val head_js(int head) {
    return head == no_head ? val::null() : val(head);
}

val matrix_fields(val o, const matrix &m) {
    o.set("shape", shape_js(m));
    o.set("values", float64_array(m.data(), m.size()));
    return o;
}

// A trace crosses into JS as one Float64Array holding every matrix back to back, plus a
// JSON layout of stages and operands with offsets into it: a handful of calls instead of
// hundreds, each matrix copied straight into JS memory, and a matrix equal to one already
// placed (an operand repeating a stage, e.g. X beside every Q) placed once and shared.
class trace_packer {
  public:
    explicit trace_packer(std::size_t capacity)
        : values_(val::global("Float64Array").new_(capacity)) {}

    // Places m (or finds its twin); returns its layout fields.
    std::string place(const matrix &m) {
        const std::size_t offset = offset_of(m);
        return "\"shape\":[" + std::to_string(rows(m)) + "," + std::to_string(cols(m)) +
               "],\"offset\":" + std::to_string(offset);
    }

    // The values placed so far (the buffer's unused tail is never touched, so costs no memory).
    val values() const { return values_.call<val>("subarray", 0, end_); }

  private:
    std::size_t offset_of(const matrix &m) {
        for (const auto &[placed, offset] : placed_)
            if (placed->shape() == m.shape() && std::equal(m.begin(), m.end(), placed->begin()))
                return offset;
        values_.call<void>("set", val(emscripten::typed_memory_view(m.size(), m.data())), end_);
        placed_.emplace_back(&m, end_);
        end_ += m.size();
        return placed_.back().second;
    }

    val values_;
    std::vector<std::pair<const matrix *, std::size_t>> placed_; // matrices in the trace, offsets
    std::size_t end_ = 0;
};

std::string quoted(const std::string &text) {
    std::string out = "\"";
    for (char ch : text)
        out += (ch == '"' || ch == '\\') ? std::string("\\") + ch : std::string(1, ch);
    return out + "\"";
}

std::string head_json(int head) {
    return head == no_head ? "null" : std::to_string(head);
}

// The JSON layout of t's stages, placing every matrix into the packer as it goes.
std::string layout_of(const trace &t, trace_packer &packer) {
    std::string layout = "[";
    for (const stage &s : t.stages) {
        if (layout.size() > 1)
            layout += ",";
        layout += "{\"id\":" + quoted(s.id) + ",\"head\":" + head_json(s.head) +
                  ",\"equation\":" + quoted(s.eq.numeric) +
                  ",\"symbolic\":" + quoted(s.eq.symbolic) + "," + packer.place(s.values) +
                  ",\"operands\":[";
        for (std::size_t i = 0; i < s.operands.size(); ++i) {
            const operand &op = s.operands[i];
            layout += std::string(i ? "," : "") + "{\"name\":" + quoted(op.name) +
                      ",\"head\":" + head_json(op.head) + "," + packer.place(op.values) + "}";
        }
        layout += "]}";
    }
    return layout + "]";
}

val config_js(const attention_config &c, double seed) {
    val o = val::object();
    o.set("seqLen", c.seq_len);
    o.set("dModel", c.d_model);
    o.set("numHeads", c.num_heads);
    o.set("dK", c.d_k);
    o.set("dV", c.d_v);
    o.set("causal", c.causal);
    o.set("outputProjection", c.output_projection);
    o.set("scaleScores", c.scale_scores);
    o.set("seed", std::isnan(seed) ? val::null() : val(seed));
    return o;
}

double seed_of(const val &spec) {
    if (!spec["preset"].isUndefined())
        return preset(spec["preset"].as<std::string>()).seed;
    if (!spec["X"].isUndefined())
        return NAN;
    return number_field(spec, "seed", generated_spec{}.seed);
}

val explanation_js(const cell_explanation &e) {
    val o = val::object();
    o.set("value", e.value);
    val terms = val::null();
    if (!e.terms.empty()) {
        terms = val::array();
        for (const product_term &t : e.terms) {
            val js = val::object();
            js.set("a", t.a);
            js.set("b", t.b);
            js.set("product", t.product);
            terms.call<void>("push", js);
        }
    }
    o.set("terms", terms);
    o.set("sum", e.sum);
    o.set("divisor", e.divisor);
    o.set("masked", e.masked);
    val softmax = val::null();
    if (e.softmax) {
        softmax = val::object();
        softmax.set("logits", float64_array(e.softmax->logits.data(), e.softmax->logits.size()));
        softmax.set("max", e.softmax->max);
        softmax.set("exps", float64_array(e.softmax->exps.data(), e.softmax->exps.size()));
        softmax.set("expSum", e.softmax->exp_sum);
    }
    o.set("softmax", softmax);
    val source = val::null();
    if (e.source_head != no_head) {
        source = val::object();
        source.set("head", e.source_head);
        source.set("col", e.source_col);
    }
    o.set("source", source);
    return o;
}

// ---- entry points ------------------------------------------------------------------------

template <class F> val result_of(F compute) {
    val out = val::object();
    try {
        out.set("value", compute());
    } catch (const std::exception &e) {
        out.set("error", std::string(e.what()));
    }
    return out;
}

val run_js(val spec) {
    return result_of([&] {
        const trace t = run_traced(problem_from(spec, true));
        trace_packer packer(trace_value_count(t.config));
        val o = val::object();
        o.set("config", config_js(t.config, seed_of(spec)));
        o.set("layout", layout_of(t, packer));
        o.set("values", packer.values());
        return o;
    });
}

val forward_js(val spec) {
    return result_of([&] {
        const matrix out = attention::forward(problem_from(spec, false));
        return matrix_fields(val::object(), out);
    });
}

val explain_js(val spec, val cell) {
    return result_of([&] {
        if (type_of(cell) != "object")
            reject("cell", "must be an object { stage, head, row, col }");
        if (type_of(cell["stage"]) != "string")
            reject("stage", "must be a stage id string");
        const bool per_head = !cell["head"].isNull() && !cell["head"].isUndefined();
        const int head =
            per_head
                ? int(whole_number("head", number_field(cell, "head", 0), 0, limits::max_heads - 1))
                : no_head;
        const trace t = run_traced(problem_from(spec, true));
        return explanation_js(explain_cell(
            t, cell["stage"].as<std::string>(), head,
            whole_number("row", number_field(cell, "row", NAN), 0, limits::max_seq_len),
            whole_number("col", number_field(cell, "col", NAN), 0, limits::max_seq_len * 64)));
    });
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
    emscripten::function("heapUsage", &heap_usage);
}
