// A plain value the core hands out: null, a boolean, a number, text, a list, a record (its fields
// in order) or a list of doubles. The bindings turn it into the JS value it mirrors (the doubles
// into a Float64Array) and add nothing.
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
using value_record = std::vector<std::pair<std::string, value>>;

struct value {
    std::variant<std::nullptr_t, bool, double, std::string, value_list, value_record,
                 std::vector<double>>
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
