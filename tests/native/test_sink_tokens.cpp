// StreamingLLM's sink tokens (Xiao et al. 2023): with a window W and k sink tokens, query i sees
// keys j ≤ i with j < k or j > i − (W − k); the mask hides the gap between, the weights there are
// exactly 0; the untraced pass has the traced pass's bits; decoding keeps k pinned cache rows and a
// ring of W − k, every step's row equal to one masked pass; a sink count without a window, of 0,
// of W or more, or with a prefix or documents is refused by name.
#include <catch2/catch.hpp>

#include <cmath>

#include "attention/engine.hpp"
#include "attention/mask.hpp"
#include "attention/spec_reader.hpp"
#include "check.hpp"

using namespace attention;

namespace {

field_values streaming(double t, double window, double sinks) {
    return {{"seqLen", t},         {"dModel", 8.0},     {"numHeads", 2.0},   {"weightScale", 1.0},
            {"window", window},    {"sinkTokens", sinks}, {"rope", true}};
}

problem self_problem(const field_values &v) {
    return problem_of(problem_kind::self, false, v, true);
}

bool seen(std::size_t i, std::size_t j, std::size_t w, std::size_t k) {
    return j <= i && (j < k || j + (w - k) > i);
}

} // namespace

TEST_CASE("sinkTokens: each query sees the k first keys and the W − k latest", "[sink-tokens][known]") {
    const trace t = run_traced(self_problem(streaming(9, 4, 2)));
    for (int h : {0, 1}) {
        const stage &masked = check::stage_of(t, stage_id::masked, h);
        const stage &a = check::stage_of(t, stage_id::weights, h);
        CHECK(masked.terms == std::vector<std::string>{"causal", "window", "sink-tokens"});
        for (std::size_t i = 0; i < 9; ++i)
            for (std::size_t j = 0; j < 9; ++j) {
                CAPTURE(h, i, j);
                CHECK(std::isinf(masked.operands[1].values(i, j)) == !seen(i, j, 4, 2));
                CHECK((a.values(i, j) > 0) == seen(i, j, 4, 2));
            }
    }
    // Query 8 sees keys 0, 1 (the sinks) and 7, 8: four keys, as the window promises.
    CHECK(sink_gap(t.config, 8).begin == 2);
    CHECK(sink_gap(t.config, 8).end == 7);
    CHECK(sink_gap(t.config, 3).begin == sink_gap(t.config, 3).end); // the window still reaches
}

TEST_CASE("sinkTokens: traced and untraced passes agree bit for bit", "[sink-tokens][forward]") {
    for (const double k : {1.0, 3.0}) {
        field_values v = streaming(10, 5, k);
        v["numKvHeads"] = 1.0;
        const problem p = self_problem(v);
        INFO(check::describe(p.config));
        const trace t = run_traced(p);
        CHECK(check::compare(forward(p), t.stages.back().values, 0).max_diff == 0);
        CHECK(trace_value_count(p.config) == recorded_value_count(t));
    }
}

TEST_CASE("sinkTokens: decoding pins k cache rows and turns a ring of W − k", "[sink-tokens][kv-cache]") {
    field_values v = streaming(9, 4, 2);
    v["alibi"] = true;
    const problem p = problem_of(problem_kind::kv_cache, false, v, true);
    const trace t = run_traced(p);
    REQUIRE(t.checks.max_difference);
    CHECK(*t.checks.max_difference < 1e-12); // every step's row against one masked pass
    CHECK(t.checks.cache_slots == std::vector<double>{0, 1, 2, 3, 2, 3, 2, 3, 2});
    REQUIRE(t.checks.slot_tokens.size() == 9);
    CHECK(t.checks.slot_tokens[2] == std::vector<double>{0, 1, 2});
    CHECK(t.checks.slot_tokens[4] == std::vector<double>{0, 1, 4, 3});
    CHECK(t.checks.slot_tokens[8] == std::vector<double>{0, 1, 8, 7});
    CHECK(t.checks.cache_bytes.back() == t.checks.cache_bytes[3]); // W rows, however long
    const stage &keys = check::stage_of(t, stage_id::k_cache, 0, 6);
    CHECK(keys.terms == std::vector<std::string>{"ring"});
    CHECK(trace_value_count(p.config) == recorded_value_count(t));
    const stage &reference = check::stage_of(t, stage_id::causal_reference, no_head);
    CHECK(std::find(reference.terms.begin(), reference.terms.end(), "sink-tokens") !=
          reference.terms.end());
}

TEST_CASE("sinkTokens: without a window, 0, W or more, with a prefix or documents: refused by name",
          "[sink-tokens][validation]") {
    field_values v = streaming(6, 4, 2);
    v.erase("window");
    CHECK_THROWS_WITH(self_problem(v), Catch::Matchers::StartsWith("sinkTokens: needs a window"));
    for (const double bad : {0.0, 4.0, 1.5}) {
        CAPTURE(bad);
        CHECK_THROWS_WITH(self_problem(streaming(6, 4, bad)), Catch::Matchers::StartsWith("sinkTokens: "));
    }
    field_values prefixed = streaming(6, 4, 2);
    prefixed["prefix"] = 2.0;
    CHECK_THROWS_WITH(self_problem(prefixed), "sinkTokens: and prefix together are not stepped here; "
                                              "give one of them");
    field_values packed = streaming(6, 4, 2);
    packed["documents"] = std::vector<double>{3, 3};
    CHECK_THROWS_WITH(self_problem(packed), Catch::Matchers::StartsWith("sinkTokens: and documents"));
}
