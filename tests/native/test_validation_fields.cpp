// The fields of engine.explain's cell and engine.randn's arguments, refused by name and rule
// (cell_of, randn: the bindings hand them over as field_values), and the stage names a cell
// may give. The wording the WASM tests leave to this layer (tests/wasm/errors.test.mjs).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "attention/spec_reader.hpp"
#include "attention/engine.hpp"
#include "attention/fields.hpp"
#include "attention/stages.hpp"

using namespace attention;

namespace {

field_values cell(field_values fields) {
    field_values c{{"stage", std::string("q")}, {"head", 0.0}, {"row", 0.0}, {"col", 0.0}};
    for (auto &[k, v] : fields)
        c[k] = v;
    return c;
}

field_values randn_args(double seed, double rows, double cols) {
    return {{"seed", seed}, {"rows", rows}, {"cols", cols}};
}

} // namespace

TEST_CASE("validation fields: a cell's stage, head, row and col", "[validation][explain]") {
    CHECK_THROWS_AS(cell_of(cell({{"stage", std::string("nope")}})), std::invalid_argument);
    CHECK_THROWS_WITH(cell_of(cell({{"stage", std::string("nope")}})),
                      "stage: \"nope\" is not a stage; the stages are " + stage_names());
    CHECK_THROWS_WITH(cell_of(cell({{"head", 1.5}})), "head: 1.5 is not a whole number");
    CHECK_THROWS_WITH(cell_of(cell({{"head", -5.0}})), "head: -5 is out of range [0, 63]");
    CHECK_THROWS_WITH(cell_of(cell({{"head", -1.0}})), "head: -1 is out of range [0, 63]");
    CHECK_THROWS_WITH(cell_of(cell({{"row", -1.0}})), "row: -1 is out of range [0, 1024]");
    CHECK_THROWS_WITH(cell_of(cell({{"col", std::nan("")}})), "col: NaN is not a finite number");
    const cell_request ok = cell_of(cell({{"head", 3.0}, {"row", 2.0}, {"col", 1.0}}));
    CHECK((ok.head == 3 && ok.row == 2 && ok.col == 1 && ok.step == no_step));
}

TEST_CASE("validation fields: cells asked together are named by their index", "[validation][explain]") {
    const std::vector<cell_request> two = cells_of({cell({}), cell({{"row", 2.0}})});
    CHECK((two.size() == 2 && two[0].row == 0 && two[1].row == 2));
    CHECK_THROWS_WITH(cells_of({cell({}), cell({{"row", -1.0}})}),
                      "cells[1].row: -1 is out of range [0, 1024]");
    const problem p = problem_of_preset("lesson-multi-head", true);
    CHECK_THROWS_WITH(explain(p, cells_of({cell({}), cell({{"row", 9.0}})})),
                      "cells[1]: (9, 0) is outside q's shape (5, 4)");
    const std::vector<cell_explanation> each = explain(p, cells_of({cell({}), cell({{"col", 3.0}})}));
    CHECK(each[1].value == explain(p, cell_of(cell({{"col", 3.0}}))).value);
}

TEST_CASE("validation fields: randn's seed, rows and cols", "[validation]") {
    CHECK_THROWS_WITH(randn(randn_args(-1, 2, 2)), "seed: -1 is out of range [0, 4294967295]");
    CHECK_THROWS_WITH(randn(randn_args(4294967296.0, 2, 2)),
                      "seed: 4294967296 is out of range [0, 4294967295]");
    CHECK_THROWS_WITH(randn(randn_args(42, 0, 5)), "rows: 0 is out of range [1, 16777216]");
    CHECK_THROWS_WITH(randn(randn_args(42, 2.5, 5)), "rows: 2.5 is not a whole number");
    CHECK_THROWS_WITH(randn(randn_args(42, 2, std::nan(""))), "cols: NaN is not a finite number");
    CHECK_THROWS_WITH(randn(randn_args(42, 5000, 5000)),
                      "rows: 5000 × 5000 values, above the limit 16777216");
    // rows · cols = 2^32: refused by division, whatever the word size.
    CHECK_THROWS_WITH(randn(randn_args(42, 65536, 65536)),
                      "rows: 65536 × 65536 values, above the limit 16777216");
    CHECK(randn(randn_args(42, 2, 3)).shape()[1] == 3);
}
