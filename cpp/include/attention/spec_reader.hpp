// A spec → its validated problem: the one reader of run, forward, explain and pruneEach's spec
// (spec_reader.cpp). Messages name each field by its JS name.
#pragma once

#include <string>

#include "attention/fields.hpp"
#include "attention/spec.hpp"
#include "attention/value.hpp"

namespace attention {

// The validated problem of a spec as it crossed from JS (generated, explicit or { preset }): its
// kind, then the fields its schema takes, then what they mean (spec_reader.cpp); `traced` also
// checks the trace budget before drawing.
problem problem_from(const value &spec, bool traced);

// The validated problem of the fields read by spec_fields(kind, explicit_matrices), or of a
// preset's name; `traced` also checks the trace budget before drawing.
problem problem_of(problem_kind kind, bool explicit_matrices, const field_values &v, bool traced);
problem problem_of_preset(const std::string &name, bool traced);

} // namespace attention
