// Over 300 lines: every type a field can have (numbers, words, matrices as rows or flat, records)
// read by the same few checks; split by type, each file would repeat them.
#include "attention/reader.hpp"

#include <set>

#include "attention/config.hpp"
#include "attention/field_ranges.hpp"
#include "attention/message_text.hpp"
#include "attention/validation.hpp"
#include <cmath>

namespace attention {

namespace {

// What a value is, for messages: type_of, or a typed array's own name.
std::string described(const value &v) {
    const auto *long_one = std::get_if<long_array>(&v.v);
    if (std::holds_alternative<std::vector<double>>(v.v) || (long_one && long_one->typed))
        return "Float64Array";
    if (const auto *f = std::get_if<foreign_value>(&v.v))
        return f->name;
    return type_of(v);
}

// Elements of an array (a list, or an array of numbers): how many, and the i-th: a reference into
// the list, or the number, held in `held`.
double length_of(const value &v) {
    if (const auto *n = std::get_if<number_array>(&v.v))
        return double(n->items.size());
    if (const auto *a = std::get_if<long_array>(&v.v))
        return a->length;
    return double(std::get<value_list>(v.v).size());
}
const value &element(const value &v, std::size_t i, value &held) {
    if (const auto *n = std::get_if<number_array>(&v.v))
        return held = n->items[i];
    return std::get<value_list>(v.v)[i];
}

bool is_array(const value &v) {
    return type_of(v) == "array";
}

// JS text as UTF-8; one holding a lone surrogate (which UTF-8 cannot hold) is refused by name.
std::string text_of(const value &v, const std::string &field) {
    if (const auto *f = std::get_if<foreign_value>(&v.v); f && f->type == "string")
        reject(field, "holds " + f->name + "; give well-formed text");
    return std::get<std::string>(v.v);
}

// How many UTF-16 units JS counts in UTF-8 text: two for a character past U+FFFF.
std::size_t js_length(const std::string &utf8) {
    std::size_t n = 0;
    for (unsigned char c : utf8)
        n += (c & 0xC0) != 0x80 ? (c >= 0xF0 ? 2 : 1) : 0;
    return n;
}

std::vector<double> numbers_value(const value &list, const field_rule &f, const std::string &name) {
    if (!is_array(list))
        reject(name, "must be an array of numbers, got " + type_of(list));
    if (const auto *n = std::get_if<number_array>(&list.v)) {
        checked_length(list, name, "numbers", f.count);
        return n->items;
    }
    std::vector<double> out;
    for (std::size_t i = 0; i < checked_length(list, name, "numbers", f.count); ++i) {
        value held;
        const value &x = element(list, i, held);
        if (type_of(x) != "number")
            reject(name + "[" + std::to_string(i) + "]", "must be a number, got " + type_of(x));
        out.push_back(std::get<double>(x.v));
    }
    return out;
}

// Words (kind designed's tokens) of at most 40 characters each.
std::vector<std::string> words_value(const value &list, const field_rule &f,
                                     const std::string &name) {
    if (!is_array(list))
        reject(name, "must be an array of words, got " + type_of(list));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < checked_length(list, name, "words", f.count); ++i) {
        const std::string at = name + "[" + std::to_string(i) + "]";
        value held;
        const value &word = element(list, i, held);
        if (type_of(word) != "string")
            reject(at, "must be a string, got " + type_of(word));
        const std::string text = text_of(word, at);
        if (js_length(text) > max_word_chars)
            reject(at, "is longer than " + std::to_string(max_word_chars) + " characters");
        out.push_back(text);
    }
    return out;
}

// { shape: [rows, cols], values: Float64Array }: the shape and the number of values checked
// (flat_shape) before the values are read.
row_list flat_value(const value &m, const std::string &field, std::size_t max_rows,
                    std::size_t max_cols) {
    static const std::vector<field_rule> parts{{"shape", field_type::numbers},
                                               {"values", field_type::numbers}};
    reject_unknown_fields(m, parts, "a flat matrix", field);
    const value *shape = member(m, "shape");
    const value none = foreign_value{"undefined", "undefined"};
    if (!shape || !is_array(*shape) || length_of(*shape) != 2)
        reject(field + ".shape",
               "must be [rows, cols], got " + (shape && is_array(*shape)
                                                   ? "an array of " + js_number(length_of(*shape))
                                                   : described(shape ? *shape : none)));
    double sizes[2];
    for (std::size_t i = 0; i < 2; ++i) {
        value held;
        const value &n = element(*shape, i, held);
        if (type_of(n) != "number")
            reject(field + ".shape[" + std::to_string(i) + "]",
                   "must be a number, got " + described(n));
        sizes[i] = std::get<double>(n.v);
    }
    const value *values = member(m, "values");
    if (!values || described(*values) != "Float64Array")
        reject(field + ".values",
               "must be a Float64Array, got " + described(values ? *values : none));
    const auto *flat = std::get_if<std::vector<double>>(&values->v);
    const double given = flat ? double(flat->size()) : std::get<long_array>(values->v).length;
    const auto [r, c] = flat_shape(field, sizes[0], sizes[1], given, max_rows, max_cols);
    return flat_rows(field, c, *flat); // a long one is refused by flat_shape: longer than r · c
}

std::vector<row_list> matrices_value(const value &list, const field_rule &f) {
    if (!is_array(list))
        reject(f.name, "must be an array with one matrix per head, got " + type_of(list));
    std::vector<row_list> out;
    for (std::size_t h = 0; h < checked_length(list, f.name, "matrices", f.count); ++h) {
        value held;
        out.push_back(rows_value(element(list, h, held),
                                 std::string(f.name) + "[" + std::to_string(h) + "]", f.rows,
                                 f.cols));
    }
    return out;
}

// One field's value by its rule's type (the type is all that is checked here), named `name`.
field_value field_of(const value &v, const field_rule &f, const std::string &name) {
    switch (f.type) {
    case field_type::number:
        if (type_of(v) != "number")
            reject(name, "must be a number, got " + type_of(v));
        return std::get<double>(v.v);
    case field_type::flag:
        if (type_of(v) != "boolean")
            reject(name, "must be true or false, got " + type_of(v));
        return std::get<bool>(v.v);
    case field_type::text:
        if (type_of(v) != "string")
            reject(name, "must be a string, got " + type_of(v));
        return text_of(v, name);
    case field_type::numbers:
        return numbers_value(v, f, name);
    case field_type::flag_or_numbers:
        if (type_of(v) == "boolean")
            return std::get<bool>(v.v);
        if (!is_array(v))
            reject(name, "must be true, false or an array of numbers, got " + type_of(v));
        return numbers_value(v, f, name);
    case field_type::words:
        return words_value(v, f, name);
    case field_type::matrix:
        return rows_value(v, name, f.rows, f.cols);
    case field_type::matrices:
        return matrices_value(v, f);
    case field_type::model:
        return f.read(v, name);
    case field_type::object: // its fields are read beside it (fields_from)
        if (type_of(v) != "object")
            reject(name, "must be an object, got " + type_of(v));
        return true;
    }
    return 0.0;
}

} // namespace

std::string type_of(const value &v) {
    struct name {
        std::string operator()(std::nullptr_t) const { return "null"; }
        std::string operator()(bool) const { return "boolean"; }
        std::string operator()(double) const { return "number"; }
        std::string operator()(const std::string &) const { return "string"; }
        std::string operator()(const value_list &) const { return "array"; }
        std::string operator()(const number_array &) const { return "array"; }
        std::string operator()(const long_array &a) const { return a.typed ? "object" : "array"; }
        std::string operator()(const value_record &) const { return "object"; }
        std::string operator()(const std::vector<double> &) const { return "object"; }
        std::string operator()(const foreign_value &f) const { return f.type; }
    };
    return std::visit(name{}, v.v);
}

bool is_record(const value &v) {
    return std::holds_alternative<value_record>(v.v);
}

const value *member(const value &record, const std::string &key) {
    const auto *fields = std::get_if<value_record>(&record.v);
    if (!fields)
        return nullptr;
    for (const auto &[name, item] : *fields)
        if (name == key)
            return type_of(item) == "undefined" ? nullptr : &item;
    return nullptr;
}

void require_object(const value &v, const std::string &field, const std::string &should) {
    if (type_of(v) != "object")
        reject(field, "must be " + should);
}

void reject_numbers_read(const std::string &path, double limit) {
    reject(path.empty() ? "value" : path,
           "the argument holds more than " + js_number(limit) +
               " numbers by here, more than every limit allows together (the weights of a " +
               "spec: 16777216); nothing was run");
}

void reject_unknown_fields(const value &v, const std::vector<field_rule> &rules,
                           const std::string &what, const std::string &field) {
    std::set<std::string> known; // listed in alphabetical order
    for (const field_rule &f : rules)
        known.insert(f.name);
    const auto *fields = std::get_if<value_record>(&v.v);
    for (const auto &[key, item] : fields ? *fields : value_record{}) {
        if (known.count(key))
            continue;
        std::string list;
        for (const std::string &k : known)
            list += (list.empty() ? "" : ", ") + k;
        // A key holding a lone surrogate crosses as 0xFF (never a byte of UTF-8), then its name.
        const bool lone = !key.empty() && key[0] == '\xFF';
        reject(field, "unknown field " +
                          (lone ? "holding " + key.substr(1) : quoted_for_message(key)) + " for " +
                          what + " (known: " + list + ")");
    }
}

field_values fields_from(const value &v, const std::vector<field_rule> &rules,
                         const std::string &prefix, const std::string &label) {
    field_values out;
    for (const field_rule &f : rules) {
        const std::string name = prefix + f.name, shown = label + name;
        const value *x = member(v, f.name);
        if (x && type_of(*x) == "null" && f.nullable)
            continue;
        if (!x && f.required && f.type == field_type::number)
            reject(shown, "is missing; give a whole number");
        if (!x && !f.required)
            continue;
        const value none = foreign_value{"undefined", "undefined"};
        out.emplace(name, field_of(x ? *x : none, f, shown));
        if (f.type == field_type::object) {
            reject_unknown_fields(*x, *f.fields, f.name, shown);
            out.merge(fields_from(*x, *f.fields, name + ".", label));
        }
    }
    return out;
}

field_values read(const value &v, const std::string &field, const std::string &should,
                  const std::vector<field_rule> &rules, const std::string &what, bool nested) {
    require_object(v, field, should);
    reject_unknown_fields(v, rules, what, field);
    return fields_from(v, rules, "", nested ? field + "." : "");
}

std::size_t checked_length(const value &array, const std::string &field, const char *what,
                           std::size_t limit) {
    const double n = length_of(array);
    if (n > double(limit))
        reject(field, js_number(n) + " " + what + ", more than the limit " + std::to_string(limit));
    return std::size_t(n);
}

row_list rows_value(const value &m, const std::string &field, std::size_t max_rows,
                    std::size_t max_cols) {
    if (is_record(m) && (member(m, "shape") || member(m, "values")))
        return flat_value(m, field, max_rows, max_cols);
    if (!is_array(m))
        reject(field, "must be an array of rows, got " + type_of(m));
    row_list out(checked_length(m, field, "rows", max_rows));
    for (std::size_t i = 0; i < out.size(); ++i) {
        value held;
        const value &row = element(m, i, held);
        const std::string at = field + "[" + std::to_string(i) + "]";
        if (!is_array(row))
            reject(at, "must be an array of numbers, got " + type_of(row));
        const std::size_t n = checked_length(row, at, "values", max_cols);
        if (const auto *numbers = std::get_if<number_array>(&row.v)) {
            out[i] = numbers->items;
            continue;
        }
        for (std::size_t j = 0; j < n; ++j) {
            const value &x = element(row, j, held);
            if (type_of(x) != "number")
                reject(at + "[" + std::to_string(j) + "]", "must be a number, got " + type_of(x));
            out[i].push_back(std::get<double>(x.v));
        }
    }
    return out;
}

std::pair<std::size_t, std::size_t> flat_shape(const std::string &field, double rows, double cols,
                                               double given, std::size_t max_rows,
                                               std::size_t max_cols) {
    const std::size_t r = whole_number(field + ".shape[0]", rows, 1, max_rows);
    const std::size_t c = whole_number(field + ".shape[1]", cols, 1, max_cols);
    if (given != double(r * c))
        reject(field + ".values", js_number(given) + " numbers for shape (" + std::to_string(r) +
                                      ", " + std::to_string(c) + ") (" + std::to_string(r * c) +
                                      " expected)");
    return {r, c};
}

row_list flat_rows(const std::string &field, std::size_t cols, const std::vector<double> &values) {
    row_list out(cols ? values.size() / cols : 0);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const double *row = values.data() + i * cols;
        for (std::size_t j = 0; j < cols; ++j) {
            if (std::isfinite(row[j]) && std::fabs(row[j]) <= limits::max_abs_value)
                continue;
            const std::string at = field + ".values[" + std::to_string(i * cols + j) + "]";
            const std::string cell =
                " (row " + std::to_string(i) + ", column " + std::to_string(j) + ")";
            reject(at, js_number(row[j]) +
                           (std::isfinite(row[j]) ? " is outside [-1e6, 1e6]"
                                                  : " is not a finite number") +
                           cell);
        }
        out[i].assign(row, row + cols);
    }
    return out;
}

} // namespace attention
