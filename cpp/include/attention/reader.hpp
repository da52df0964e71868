// A caller's argument as it crossed from JS (value.hpp), read by the field rules (fields.hpp):
// every check of type, presence, length and unknown keys, each refusal naming the field by its
// path ("spec: must be an object, got string", "X[1][0]: must be a number, got array"). Reading
// ends at values of the rules' types; what they mean (ranges, kinds, shapes) is the readers'
// callers' (fields.cpp, train_api.cpp). The bindings convert a JS value and call these; nothing
// here knows JS beyond the names messages give its types.
#pragma once

#include <string>
#include <vector>

#include "attention/fields.hpp"
#include "attention/value.hpp"

namespace attention {

// "array", "null", or JS's typeof ("undefined" for a field that is absent).
std::string type_of(const value &v);

// Whether v is a JS object that is not an array, null or a typed array: a record.
bool is_record(const value &v);

// A record's field `key`, or nullptr when it is absent or undefined.
const value *member(const value &record, const std::string &key);

// Refuses anything but a record, naming the argument and what it should hold.
void require_object(const value &v, const std::string &field, const std::string &should);

// Refuses an argument holding more than `limit` numbers in all, at `path`, where the crossing
// passed the limit: more than every field's limit allows together, so nothing past it is read.
[[noreturn]] void reject_numbers_read(const std::string &path, double limit);

// Refuses a key of the record v no rule names, naming it and listing the known ones
// (alphabetically); field: the argument's name in messages (spec, query, cell); what: whose
// fields these are.
void reject_unknown_fields(const value &v, const std::vector<field_rule> &rules,
                           const std::string &what, const std::string &field = "spec");

// The fields of the record v the rules name, each read by its rule's type (prefix: what their
// names start with in the result, label: in messages).
field_values fields_from(const value &v, const std::vector<field_rule> &rules,
                         const std::string &prefix = "", const std::string &label = "");

// An argument read by its rules after refusing what it is not and what it must not hold; nested:
// inside another (a model's config), its fields named in messages as field.name.
field_values read(const value &v, const std::string &field, const std::string &should,
                  const std::vector<field_rule> &rules, const std::string &what,
                  bool nested = false);

// A matrix (an array of rows, or { shape, values: Float64Array }) of at most max_rows × max_cols,
// its values' ranges left to the caller.
row_list rows_value(const value &m, const std::string &field, std::size_t max_rows,
                    std::size_t max_cols);

// An array's length, refused above `limit` (naming the field and `what` it counts).
std::size_t checked_length(const value &array, const std::string &field, const char *what,
                           std::size_t limit);

// A matrix given flat, { shape: [rows, cols], values: Float64Array } in JS, is checked in two
// steps, naming its fields: first its shape and how many values it holds (before they are
// read), then the values themselves, which become the rows an explicit_spec takes.

// The shape (X.shape: whole numbers in 1 … max_rows and 1 … max_cols) of a flat matrix holding
// `given` values, exactly rows · cols of them (X.values: 11 numbers for shape (3, 4) …).
std::pair<std::size_t, std::size_t> flat_shape(const std::string &field, double rows, double cols,
                                               double given, std::size_t max_rows,
                                               std::size_t max_cols);

// Row-major values, `cols` to a row, as rows, each finite within ±limits::max_abs_value
// (X.values[5]: NaN is not a finite number (row 1, column 1)).
row_list flat_rows(const std::string &field, std::size_t cols, const std::vector<double> &values);

} // namespace attention
