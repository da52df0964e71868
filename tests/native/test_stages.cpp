// The stage table's own rules (one entry per enum value, distinct names read back, equations
// that name the dims they index) and record()'s check of the operands a pass hands it against
// the ones the entry declares. Which stages exist and what each holds is tested where they are
// computed and, for the page, by tests/wasm/stage-declarations.test.mjs against the web table.
#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>

#include <xtensor/xbuilder.hpp>

#include "attention/trace.hpp"

using namespace attention;

namespace {

std::vector<stage_id> all_ids() {
    std::vector<stage_id> out;
    for (int i = 0; i < int(stage_id::count); ++i)
        out.push_back(stage_id(i));
    return out;
}

// The largest $N an equation names, plus one.
std::size_t dims_named(const std::string &eq) {
    std::size_t n = 0;
    for (std::size_t p = eq.find('$'); p != std::string::npos; p = eq.find('$', p + 1))
        n = std::max(n, std::size_t(eq[p + 1] == 's' ? eq[p + 2] - '0' : eq[p + 1] - '0') + 1);
    return n;
}

} // namespace

TEST_CASE("stages: every enum value has its own entry and a distinct name read back", "[stages]") {
    std::set<std::string> names;
    for (const stage_id id : all_ids()) {
        CAPTURE(int(id));
        CHECK(entry(id).id == id);
        REQUIRE(std::string(name_of(id)).size() > 0);
        names.insert(name_of(id));
        CHECK(stage_named(name_of(id)) == id);
    }
    CHECK(names.size() == all_ids().size());
    for (const char *name : {"", "nope", "Scores", "scores ", " x", "W_Q", "mask", "K_cache"})
        CHECK_FALSE(stage_named(name).has_value());
}

TEST_CASE("stages: each equation names the dims its result's rows and columns index", "[stages]") {
    for (const stage_id id : all_ids()) {
        const stage_entry &e = entry(id);
        CAPTURE(e.name, e.equation);
        CHECK(e.rows < dims_named(e.equation));
        CHECK(e.cols < dims_named(e.equation));
    }
}

TEST_CASE("stages: operands are checked against the declaration", "[stages]") {
    const stage_entry &scores = entry(stage_id::scores);   // "Q|q_rot K|k_rot"
    const stage_entry &weights = entry(stage_id::weights); // "masked|biased|scaled"
    const stage_entry &output = entry(stage_id::output);   // "concat|pruned W_O contribution*"
    CHECK(operand_mismatch(scores, {"Q", "K"}).empty());
    CHECK(operand_mismatch(scores, {"K", "Q"}) == "operand 0 is \"K\", declared Q|q_rot|q_norm");
    CHECK(operand_mismatch(scores, {"Q"}) == "operand 1 is missing, declared K|k_rot|k_norm");
    CHECK(operand_mismatch(scores, {"Q", "K", "V"}) == "operand 2 \"V\" is not declared");
    CHECK(operand_mismatch(weights, {"masked"}).empty());
    CHECK(operand_mismatch(weights, {"scaled"}).empty());
    CHECK(operand_mismatch(weights, {"scores"}) ==
          "operand 0 is \"scores\", declared masked|biased|capped|scaled");
    CHECK(operand_mismatch(output, {"pruned", "W_O"}).empty()); // one head's share or none
    CHECK(operand_mismatch(output, {"concat", "W_O", "contribution", "contribution"}).empty());
    CHECK(operand_mismatch(output, {"concat", "W_O", "head"}) ==
          "operand 2 \"head\" is not declared");

    trace t;
    const matrix m = xt::zeros<double>({2, 2});
    const dim two{2, "T"}, dk{2, "d_k"}, none{0, "d_r"};
    CHECK_THROWS_WITH(record(&t, stage_id::scores, {}, {two, dk, two, none, none}, m,
                             operand{"Q", 0, m, axes_of(two, dk)}),
        "stage scores: operand 1 is missing, declared K|k_rot|k_norm");
    CHECK(t.stages.empty());
}

TEST_CASE("stages: each operand's declared shape names dims the pass gives", "[stages]") {
    for (const stage_id id : all_ids()) {
        const stage_entry &e = entry(id);
        CAPTURE(e.name, e.operands, e.shapes);
        std::size_t tokens = 0; // one shape per declared operand
        for (const char *p = e.operands; *p; ++p)
            tokens += (*p != ' ') && (p == e.operands || p[-1] == ' ');
        CHECK(shapes_of(e).size() == tokens);
    }
}

TEST_CASE("stages: a stage's values counted from its shapes, and record() checks them",
          "[stages]") {
    // scores (T, d_k, T_kv, d_r, d_c) = (5, 4, 7, 0, 0): S (5, 7), Q (5, 4), K (7, 4).
    CHECK(stage_values(stage_id::scores, {5, 4, 7, 0, 0}) == 5 * 7 + 5 * 4 + 7 * 4);
    // MLA's (5, 4, 5, 2, 3): S (5, 5), Q, K (5, 4), q_rope, k_rope (5, 2), q_absorbed, c_kv (5, 3).
    CHECK(stage_values(stage_id::scores, {5, 4, 5, 2, 3}) == 25 + 2 * 20 + 2 * 10 + 2 * 15);
    // weights (5, 7): the weights, their row totals, the logits.
    CHECK(stage_values(stage_id::weights, {5, 7}) == 5 * 7 + 5 + 5 * 7);
    // concat (h, T, d_v, h·d_v) = (3, 5, 2, 6): (5, 6) and three heads of (5, 2).
    CHECK(stage_values(stage_id::concat, {3, 5, 2, 6}) == 5 * 6 + 3 * 5 * 2);

    trace t;
    const matrix m = xt::zeros<double>({2, 2}), wide = xt::zeros<double>({2, 3});
    const dim two{2, "T"}, dk{2, "d_k"}, h{2, "h"}, dv{1, "d_v"}, none{0, "d_c"};
    CHECK_THROWS_WITH(record(&t, stage_id::scores, {}, {two, dk, two, none, none}, m,
                             operand{"Q", 0, wide, axes_of(two, dk)},
                             operand{"K", 0, m, axes_of(two, dk)}),
                      "stage scores: operand 0 \"Q\" is not of its declared shape");
    const matrix col = xt::zeros<double>({2, 1});
    CHECK_THROWS_WITH(record(&t, stage_id::concat, {}, {h, two, dv, two}, m,
                             std::vector<operand>{{"head", 0, col, axes_of(two, dv)}}),
                      "stage concat: operand list 0 holds 1, not its declared count");
    CHECK(t.stages.empty());
}
