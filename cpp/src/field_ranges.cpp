#include "attention/field_ranges.hpp"

#include <stdexcept>

#include "attention/validation.hpp"

namespace attention {

const field_range &range_of(const std::string &field) {
    for (const field_range &r : field_ranges)
        if (field == r.field)
            return r;
    throw std::logic_error("range_of: no range for " + field);
}

std::size_t in_range(const std::string &field, double v) {
    const field_range &r = range_of(field);
    return whole_number(field, v, std::size_t(r.min), std::size_t(r.max));
}

value limits_answer() {
    value_record out;
    for (const field_range &r : field_ranges)
        out.push_back(
            {r.field, value_record{{r.above_min ? "above" : "min", r.min}, {"max", r.max}}});
    return out;
}

} // namespace attention
