// JS matrices → rows for the core: an array of rows of numbers, or the flat form { shape,
// values: Float64Array } read in one copy. Types and sizes are checked here by the field's JS
// name before anything is allocated; the values' ranges are the core's (spec.cpp).
#include <emscripten/val.h>

#include "attention/validation.hpp"
#include "js_values.hpp"

namespace bindings {

using namespace attention;

// The length of a JS array, refused above `limit` before anything is allocated for it.
std::size_t checked_length(const val &array, const std::string &field, const char *what,
                           std::size_t limit) {
    const double n = array["length"].as<double>();
    if (n > double(limit))
        reject(field, js_number(n) + " " + what + ", more than the limit " + std::to_string(limit));
    return std::size_t(n);
}

namespace {

// What a value is, for messages: "array", "null", JS's typeof, or a typed array's own name.
std::string described(const val &v) {
    if (type_of(v) == "object" && val::global("ArrayBuffer").call<bool>("isView", v))
        return v["constructor"]["name"].as<std::string>();
    return type_of(v);
}

// { shape: [rows, cols], values: Float64Array }: the shape and how many values there are are
// checked (by the core) first, then the values are copied into the WASM heap by one set() and
// checked there: a few ns a value, where reading arrays of rows through Embind takes ~1 µs.
row_list flat_value(const val &m, const std::string &field, std::size_t max_rows,
                    std::size_t max_cols) {
    static const std::vector<field_rule> parts{{"shape", field_type::numbers},
                                               {"values", field_type::numbers}};
    reject_unknown_fields(m, parts, "a flat matrix", field.c_str());
    const val shape = m["shape"];
    if (!shape.isArray() || shape["length"].as<double>() != 2)
        reject(field + ".shape",
               "must be [rows, cols], got " +
                   (shape.isArray() ? "an array of " + js_number(shape["length"].as<double>())
                                    : described(shape)));
    double sizes[2];
    for (int i = 0; i < 2; ++i) {
        if (type_of(shape[i]) != "number")
            reject(field + ".shape[" + std::to_string(i) + "]",
                   "must be a number, got " + described(shape[i]));
        sizes[i] = shape[i].as<double>();
    }
    const val values = m["values"];
    if (!values.instanceof (val::global("Float64Array")))
        reject(field + ".values", "must be a Float64Array, got " + described(values));
    const auto [r, c] =
        flat_shape(field, sizes[0], sizes[1], values["length"].as<double>(), max_rows, max_cols);
    std::vector<double> flat(r * c); // allocated first: the view below must not outlive a growth
    val(emscripten::typed_memory_view(flat.size(), flat.data())).call<void>("set", values);
    return flat_rows(field, c, flat);
}

// An object with a shape or values is a flat matrix; anything else must be an array of rows.
bool is_flat(const val &m) {
    return type_of(m) == "object" && (!m["shape"].isUndefined() || !m["values"].isUndefined());
}

} // namespace

row_list rows_value(const val &m, const std::string &field, std::size_t max_rows,
                    std::size_t max_cols) {
    if (is_flat(m))
        return flat_value(m, field, max_rows, max_cols);
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

std::vector<row_list> matrices_value(const val &list, const field_rule &f) {
    if (!list.isArray())
        reject(f.name, "must be an array with one matrix per head, got " + type_of(list));
    std::vector<row_list> out;
    for (std::size_t h = 0; h < checked_length(list, f.name, "matrices", f.count); ++h)
        out.push_back(rows_value(list[h], std::string(f.name) + "[" + std::to_string(h) + "]",
                                 f.rows, f.cols));
    return out;
}

} // namespace bindings
