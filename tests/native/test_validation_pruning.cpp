// Refused input of the newest fields: weightScale, prunedHeads and the designed heads' tokens.
// Each throws std::invalid_argument naming the field, the value and the rule. (A token's type,
// and its length of at most 40 JavaScript characters, are the bindings' checks: WASM tests.)
#include <catch2/catch.hpp>

#include <limits>
#include <stdexcept>

#include "attention/presets.hpp"
#include "attention/spec.hpp"
#include "specs.hpp"

using namespace attention;
using Catch::Contains;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

generated_spec with_scale(double v) {
    generated_spec s = preset("lesson-multi-head");
    s.weight_scale = v;
    return s;
}

// A valid explicit spec: T = D = 2, two heads of width 1, W_O (2, 2).
explicit_spec two_heads() {
    explicit_spec e;
    e.x = {{1, 2}, {3, 4}};
    e.w_q = e.w_k = e.w_v = {{{1}, {0}}, {{0}, {1}}};
    e.w_o = row_list{{1, 0}, {0, 1}};
    return e;
}

} // namespace

TEST_CASE("validation: weightScale is finite, above 0 and at most 10",
          "[validation][weight-scale]") {
    const auto rule = [](const char *v) {
        return Contains(std::string("weightScale: ") + v +
                        " is out of range (0, 10]; the seed-42 examples use 0.1");
    };
    CHECK_THROWS_AS(make_problem(with_scale(0)), std::invalid_argument);
    CHECK_THROWS_WITH(make_problem(with_scale(0)), rule("0"));
    CHECK_THROWS_WITH(make_problem(with_scale(-0.0)), rule("0"));
    CHECK_THROWS_WITH(make_problem(with_scale(-1)), rule("-1"));
    CHECK_THROWS_WITH(make_problem(with_scale(not_a_number)), rule("NaN"));
    CHECK_THROWS_WITH(make_problem(with_scale(11)), rule("11"));
    CHECK_THROWS_WITH(make_problem(with_scale(10.000000000000002)), rule("10.000000000000002"));
    CHECK_THROWS_WITH(make_problem(with_scale(inf)), rule("Infinity")); // 1e309 in JS
    CHECK_THROWS_WITH(make_problem(with_scale(-inf)), rule("-Infinity"));
    CHECK_NOTHROW(make_problem(with_scale(10)));
    CHECK_NOTHROW(make_problem(with_scale(5e-324)));
    // Every kind that draws checks it, flash and decoding included.
    for (const char *id : {"cross-translation", "encoder-layer", "kv-cache-mha", "flash-full"}) {
        generated_spec s = preset(id);
        s.weight_scale = 0;
        CHECK_THROWS_WITH(make_problem(s), rule("0"));
    }
}

TEST_CASE("validation: prunedHeads are distinct whole numbers from 0 to H − 1",
          "[validation][pruning]") {
    const auto pruned = [](const char *id, std::vector<double> heads) {
        return make_problem(specs::pruned(preset(id), std::move(heads)));
    };
    const char *const multi = "lesson-multi-head"; // 4 heads
    CHECK_THROWS_AS(pruned(multi, {4}), std::invalid_argument);
    CHECK_THROWS_WITH(pruned(multi, {4}), Contains("prunedHeads: 4 is out of range [0, 3]"));
    CHECK_THROWS_WITH(pruned(multi, {-1}), Contains("prunedHeads: -1 is out of range [0, 3]"));
    CHECK_THROWS_WITH(pruned(multi, {1.5}), Contains("prunedHeads: 1.5 is not a whole number"));
    CHECK_THROWS_WITH(pruned(multi, {not_a_number}),
                      Contains("prunedHeads: NaN is not a finite number"));
    CHECK_THROWS_WITH(pruned(multi, {1, 3, 1}), Contains("prunedHeads: head 1 is listed twice"));
    CHECK_THROWS_WITH(pruned("cross-translation", {2}),
                      Contains("prunedHeads: 2 is out of range [0, 1]"));
    CHECK_THROWS_WITH(pruned("designed-heads", {4}),
                      Contains("prunedHeads: 4 is out of range [0, 3]"));
    CHECK_NOTHROW(pruned(multi, {3, 0, 2, 1})); // every head: the output is 0
    CHECK_NOTHROW(pruned("encoder-layer", {3}));
}

TEST_CASE("validation: prunedHeads need W_O", "[validation][pruning]") {
    const auto no_w_o = Contains("prunedHeads: needs the output projection W_O");
    CHECK_THROWS_WITH(make_problem(specs::pruned(preset("lesson-self-attention"), {0})), no_w_o);
    CHECK_THROWS_WITH(make_problem(specs::pruned(preset("flash-causal"), {0})), no_w_o);
    generated_spec self = specs::pruned(preset("lesson-multi-head"), {0});
    self.output_projection = false;
    CHECK_THROWS_WITH(make_problem(self), no_w_o);
    // W_O is checked first: a head out of range without W_O is refused for the W_O.
    self.pruned_heads = {9};
    CHECK_THROWS_WITH(make_problem(self), no_w_o);
    explicit_spec e = two_heads();
    e.pruned_heads = {1};
    CHECK_NOTHROW(make_problem(e));
    e.pruned_heads = {2};
    CHECK_THROWS_WITH(make_problem(e), Contains("prunedHeads: 2 is out of range [0, 1]"));
    e.pruned_heads = {0, 0};
    CHECK_THROWS_WITH(make_problem(e), Contains("prunedHeads: head 0 is listed twice"));
    e.pruned_heads = {0};
    e.w_o.reset();
    CHECK_THROWS_WITH(make_problem(e), no_w_o);
}

TEST_CASE("validation: the designed heads' tokens", "[validation][designed]") {
    const auto build = [](std::vector<std::string> tokens) {
        return make_problem(specs::designed(std::move(tokens)));
    };
    CHECK_THROWS_AS(build({}), std::invalid_argument);
    CHECK_THROWS_WITH(build({}), Contains("tokens: 0 tokens; give between 1 and 128 words"));
    CHECK_THROWS_WITH(build(std::vector<std::string>(129, "w")),
                      Contains("tokens: 129 tokens; give between 1 and 128 words"));
    CHECK_NOTHROW(build(std::vector<std::string>(128, "w")));
    CHECK_NOTHROW(build({"one"}));
    CHECK_THROWS_WITH(build({"a", ""}), Contains("tokens[1]: must be a word of 1 to 160 bytes"));
    // The core counts bytes (40 characters of UTF-8 take at most 160); a 41-character word
    // passes here, and the bindings refuse it by its JavaScript length.
    CHECK_THROWS_WITH(build({"a", "b", std::string(161, 'x')}),
                      Contains("tokens[2]: must be a word of 1 to 160 bytes"));
    CHECK_NOTHROW(build({std::string(160, 'x')}));
    CHECK(build({std::string(41, 'x'), "y"}).config.d_v == 2);
    // 128 distinct words: D = 2 · 128 + 1, still within every budget, traced too.
    std::vector<std::string> distinct;
    for (int i = 0; i < 128; ++i)
        distinct.push_back("w" + std::to_string(i));
    const problem wide = make_problem(specs::designed(distinct), true);
    CHECK(wide.config.d_model == 257);
}

TEST_CASE("validation: decoding with a KV cache takes no pruned heads", "[validation][pruning]") {
    generated_spec s;
    s.kind = problem_kind::kv_cache;
    s.seq_len = 3, s.d_model = 8, s.num_heads = 2, s.pruned_heads = {1};
    CHECK_THROWS_WITH(make_problem(s), Contains("prunedHeads: is not available when decoding"));
    s.pruned_heads.clear();
    CHECK_NOTHROW(make_problem(s));
}
