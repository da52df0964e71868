// Matrices given flat (row-major values with a declared shape), as the JS API's
// { shape: [rows, cols], values: Float64Array } arrives in the core: the shape and the count
// checked before the values are read, each value checked, messages naming the field.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "attention/reader.hpp"
#include "attention/spec_reader.hpp"
#include "attention/engine.hpp"
#include "attention/spec.hpp"
#include "check.hpp"

using namespace attention;

namespace {

// The message of what f throws, or "" when it does not throw.
template <class F> std::string message_of(F f) {
    try {
        f();
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST_CASE("flat: a shape and its values become the rows", "[flat][known]") {
    const auto [r, c] = flat_shape("X", 2, 3, 6, 1024, 1024);
    CHECK(r == 2);
    CHECK(c == 3);
    CHECK(flat_rows("X", 3, {1, 2, 3, 4, 5, 6}) == row_list{{1, 2, 3}, {4, 5, 6}});
}

TEST_CASE("flat: the same problem as the same matrices in rows", "[flat]") {
    explicit_spec rows;
    rows.x = {{1, 2}, {3, 4}, {5, 6}};
    rows.w_q = rows.w_k = rows.w_v = {{{0.5, -1}, {2, 0.25}}};
    rows.w_o = row_list{{1, 0}, {0, 1}};
    rows.causal = true;
    explicit_spec flat = rows;
    flat.x = flat_rows("X", 2, {1, 2, 3, 4, 5, 6});
    flat.w_q = {flat_rows("W_Q[0]", 2, {0.5, -1, 2, 0.25})};
    check::tensor("output", forward(make_problem(flat)), forward(make_problem(rows)), 0);
}

TEST_CASE("flat: shapes and counts are refused by name before any value is read", "[flat]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::pair<std::string, std::string> cases[] = {
        {message_of([] { flat_shape("X", 3, 4, 11, 1024, 1024); }),
         "X.values: 11 numbers for shape (3, 4) (12 expected)"},
        {message_of([] { flat_shape("W_O", 2, 2, 5, 1024, 1024); }),
         "W_O.values: 5 numbers for shape (2, 2) (4 expected)"},
        {message_of([] { flat_shape("X", 2.5, 4, 10, 1024, 1024); }),
         "X.shape[0]: 2.5 is not a whole number"},
        {message_of([] { flat_shape("X", 0, 4, 0, 1024, 1024); }),
         "X.shape[0]: 0 is out of range [1, 1024]"},
        {message_of([&] { flat_shape("W_Q[1]", 4, nan, 4, 1024, 1024); }),
         "W_Q[1].shape[1]: NaN is not a finite number"},
        {message_of([] { flat_shape("X", 1025, 1, 1025, 1024, 1024); }),
         "X.shape[0]: 1025 is out of range [1, 1024]"},
        {message_of([] { flat_shape("X", 1024, 1024, 1e15, 1024, 1024); }),
         "X.values: 1000000000000000 numbers for shape (1024, 1024) (1048576 expected)"},
    };
    for (const auto &[got, want] : cases)
        CHECK(got == want);
}

TEST_CASE("flat: each value finite within 1e6, named by index and cell", "[flat]") {
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(message_of([] {
              flat_rows("X", 2, {1, 2, std::nan(""), 4});
          }) == "X.values[2]: NaN is not a finite number (row 1, column 0)");
    CHECK(message_of([&] {
              flat_rows("W_Q[0]", 2, {1, 0, 0, -inf});
          }) == "W_Q[0].values[3]: -Infinity is not a finite number (row 1, column 1)");
    CHECK(message_of([] {
              flat_rows("W_V[0]", 3, {1, 2e6, 0});
          }) == "W_V[0].values[1]: 2000000 is outside [-1e6, 1e6] (row 0, column 1)");
    CHECK(message_of([] { flat_rows("X", 2, {1e6, -1e6}); }).empty());
}
