// A JS value → the core's value tree (attention/value.hpp), in one pass: the mirror of js_of.
// Types only; what a value may be, and every message about it, is the core's (reader.hpp).
#include <emscripten/val.h>

#include <cstdio>
#include <optional>

#include "attention/reader.hpp"
#include "js_values.hpp"

namespace bindings {

using namespace attention;

namespace {

// Arrays, typed arrays and strings are read up to these lengths, above every reader's own limit;
// a longer array crosses as its length alone (long_array), a longer string cut.
constexpr double max_list = 1 << 16;         // elements of an array of anything but numbers
constexpr double max_numbers = 1 << 20;      // elements of an array of numbers
constexpr double max_float64s = 1 << 26;     // a Float64Array's (a flat dOutput: 1024 × 65,536)
constexpr double max_text = 1 << 20;         // UTF-16 units of a string
constexpr double max_numbers_read = 1 << 25; // numbers of one argument together (256 MiB)

// One argument's crossing: the numbers copied so far, and where the reader is ("W_Q[3].values"),
// so that an argument holding more numbers than every limit allows together stops before
// the rest is read.
struct crossing {
    double numbers = 0;
    std::string path;
    void count(double n) {
        numbers += n;
        if (numbers > max_numbers_read)
            reject_numbers_read(path, max_numbers_read);
    }
};

value value_in(const val &v, crossing &c);

// value_in of v at `step` below the current path (".key" or "[i]").
value value_below(const val &v, crossing &c, const std::string &step) {
    const std::size_t at = c.path.size();
    c.path += c.path.empty() && step[0] == '.' ? step.substr(1) : step;
    value out = value_in(v, c);
    c.path.resize(at);
    return out;
}

// "a lone surrogate (U+D800 at index 3)" when the JS string s holds one, else nothing.
std::optional<std::string> lone_surrogate(const val &s) {
    // \p{Cs} with the u flag matches only a surrogate that is not half of a pair.
    const val pattern = val::global("RegExp").new_(std::string("\\p{Cs}"), std::string("u"));
    const int at = s.call<int>("search", pattern);
    if (at < 0)
        return std::nullopt;
    char unit[8];
    std::snprintf(unit, sizeof unit, "U+%04X", s.call<unsigned>("charCodeAt", at));
    return std::string("a lone surrogate (") + unit + " at index " + std::to_string(at) + ")";
}

// Text as UTF-8, cut at max_text units (not inside a pair); one holding a lone surrogate, which
// UTF-8 cannot hold (Embind would turn it and the next unit into another character), crosses as
// what messages call it.
value text_of(val s) {
    if (s["length"].as<double>() > max_text) {
        const bool high = (s.call<unsigned>("charCodeAt", max_text - 1) & 0xFC00) == 0xD800;
        s = s.call<val>("slice", 0, max_text - (high ? 1 : 0));
    }
    if (const std::optional<std::string> lone = lone_surrogate(s))
        return foreign_value{"string", *lone};
    return s.as<std::string>();
}

// n doubles of a Float64Array, copied in one set().
std::vector<double> doubles_of(const val &typed) {
    std::vector<double> out(typed["length"].as<std::size_t>());
    val(emscripten::typed_memory_view(out.size(), out.data())).call<void>("set", typed);
    return out;
}

value array_of(const val &a, crossing &c) {
    const double n = a["length"].as<double>();
    // numbersOf (web/engine-api.js): a Float64Array of the elements when each is a number, else
    // null: one call for the array where reading it element by element takes one per number.
    const val numbers_of = val::module_property("numbersOf");
    if (n <= max_numbers && !numbers_of.isUndefined()) {
        const val numbers = numbers_of(a);
        if (!numbers.isNull())
            return c.count(n), number_array{doubles_of(numbers)};
    }
    if (n > max_list)
        return long_array{n};
    value_list out;
    for (std::size_t i = 0; i < std::size_t(n); ++i)
        out.push_back(value_below(a[i], c, "[" + std::to_string(i) + "]"));
    return out;
}

value record_of(const val &o, crossing &c) {
    const val keys = val::global("Object").call<val>("keys", o);
    value_record out;
    for (std::size_t i = 0; i < keys["length"].as<std::size_t>(); ++i) {
        // A key holding a lone surrogate crosses as 0xFF (never a byte of UTF-8), then its name.
        const std::optional<std::string> lone = lone_surrogate(keys[i]);
        const std::string key = lone ? "\xFF" + *lone : keys[i].as<std::string>();
        out.emplace_back(key, value_below(o[keys[i]], c, "." + (lone ? *lone : key)));
    }
    return out;
}

value value_in(const val &v, crossing &c) {
    const std::string type = v.typeOf().as<std::string>();
    if (type == "number")
        return v.as<double>();
    if (type == "boolean")
        return v.as<bool>();
    if (type == "string")
        return text_of(v);
    if (type != "object") // undefined, bigint, symbol, function
        return foreign_value{type, type};
    if (v.isNull())
        return nullptr;
    if (v.isArray())
        return array_of(v, c);
    if (val::global("ArrayBuffer").call<bool>("isView", v)) {
        const std::string name = v["constructor"]["name"].as<std::string>();
        if (name != "Float64Array")
            return foreign_value{"object", name};
        const double n = v["length"].as<double>();
        if (n > max_float64s)
            return long_array{n, true};
        c.count(n);
        return doubles_of(v);
    }
    return record_of(v, c);
}

} // namespace

value value_of(const val &v) {
    crossing c;
    return value_in(v, c);
}

} // namespace bindings
