// KV-cache decoding with positions and a window: each step's query turned at t and each key at
// its own position before it enters the cache (RoPE), ALiBi's bias from the keys' positions, the
// sinusoidal encoding added to x_t, and a window of W kept as a ring of W slots. The decoded rows
// equal one ordinary pass of the same config to 1e-12, and the cache never holds more than W.
#include <catch2/catch.hpp>

#include "attention/engine.hpp"
#include "attention/fields.hpp"
#include "attention/spec_reader.hpp"
#include "check.hpp"

using namespace attention;

namespace {

problem decoding(field_values extra) {
    field_values v{{"seqLen", 9.0}, {"dModel", 16.0}, {"numHeads", 4.0}, {"numKvHeads", 2.0}};
    v.merge(extra);
    return problem_of(problem_kind::kv_cache, false, v, true);
}

} // namespace

TEST_CASE("decoding with positions: the steps equal one ordinary pass", "[decode][positions]") {
    const std::vector<std::pair<const char *, field_values>> cases{
        {"rope", {{"rope", true}}},
        {"rope half-split, offset 4",
         {{"rope", true}, {"rope.convention", std::string("half-split")}, {"rope.offset", 4.0}}},
        {"alibi", {{"alibi", true}}},
        {"sinusoidal", {{"positionalEncoding", std::string("sinusoidal")}}},
        {"window 3", {{"window", 3.0}}},
        {"window 3, rope and alibi", {{"window", 3.0}, {"rope", true}, {"alibi", true}}},
    };
    for (const auto &[name, extra] : cases) {
        CAPTURE(name);
        const problem p = decoding(extra);
        const trace t = run_traced(p);
        REQUIRE(t.checks.max_difference.has_value());
        CHECK(*t.checks.max_difference <= 1e-12);
        CHECK(trace_value_count(p.config) == recorded_value_count(t));
        CHECK(check::compare(forward(p), check::stage_of(t, stage_id::stacked, no_head).values, 0)
                  .max_diff == 0);
    }
}

TEST_CASE("decoding with a window: a ring of W slots, bounded bytes", "[decode][masks]") {
    const problem p = decoding({{"window", 3.0}});
    const trace t = run_traced(p);
    // Steps 0, 1, 2 fill slots 0, 1, 2; step 3 overwrites slot 0, step 4 slot 1, …
    CHECK(t.checks.cache_slots == std::vector<double>{0, 1, 2, 0, 1, 2, 0, 1, 2});
    const double full = t.checks.cache_bytes[2];
    for (std::size_t step = 3; step < 9; ++step)
        CHECK(t.checks.cache_bytes[step] == full);
    const stage &cache = check::stage_of(t, stage_id::k_cache, 0, 4);
    CHECK(rows(cache.values) == 3);
    // Slot 1 now holds step 4's key; slots 0 and 2, steps 3 and 2.
    const matrix &written = cache.operands[1].values; // (1, DK): k_new of step 4
    for (std::size_t j = 0; j < cols(written); ++j)
        CHECK(cache.values(1, j) == written(0, j));
}
