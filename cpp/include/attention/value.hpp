// A plain value as it crosses between JS and the core: null, a boolean, a number, text, a list, a
// record (its fields in order) or a list of doubles (a Float64Array). The core hands values out and
// the bindings turn each into the JS value it mirrors, adding nothing; a caller's argument comes in
// the same way (the bindings' value_of), and the core reads it (reader.hpp). Coming in, two more
// kinds: an array whose every element is a number (read in one copy, where a list would hold a
// value per number), and a JS value the core has no use for, kept as what messages call it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace attention {

struct value;
using value_list = std::vector<value>;

// A JS array whose every element is a number.
struct number_array {
    std::vector<double> items;
};

// An array longer than the bindings read in (value_of's caps, above every reader's own limit):
// its length alone, which every reader checks against its limit before it reads an element.
// typed: a Float64Array.
struct long_array {
    double length;
    bool typed = false;
};

// undefined, a bigint, a symbol, a function, a typed array other than a Float64Array, or a string
// holding a lone surrogate (which UTF-8 cannot hold): its typeof, and how a message names it
// ("undefined", "bigint", "Float32Array", "a lone surrogate (U+D800 at index 3)").
struct foreign_value {
    std::string type;
    std::string name;
};

using value_record = std::vector<std::pair<std::string, value>>;

struct value {
    std::variant<std::nullptr_t, bool, double, std::string, value_list, value_record,
                 std::vector<double>, number_array, long_array, foreign_value>
        v;

    value() : v(nullptr) {}
    value(std::nullptr_t) : v(nullptr) {}
    value(bool b) : v(b) {}
    value(double x) : v(x) {}
    value(int x) : v(double(x)) {}
    value(std::size_t x) : v(double(x)) {}
    value(const char *s) : v(std::string(s)) {}
    value(std::string s) : v(std::move(s)) {}
    value(value_list l) : v(std::move(l)) {}
    value(value_record r) : v(std::move(r)) {}
    value(std::vector<double> d) : v(std::move(d)) {}
    value(number_array a) : v(std::move(a)) {}
    value(long_array a) : v(a) {}
    value(foreign_value f) : v(std::move(f)) {}
    template <class T> value(const std::optional<T> &o) : value(o ? value(*o) : value()) {}
};

// Each string as text, in a list.
inline value text_list(const std::vector<std::string> &items) {
    value_list out;
    for (const std::string &s : items)
        out.emplace_back(s);
    return out;
}

} // namespace attention
