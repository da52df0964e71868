// What the fuzzer (tests/fuzz) found, as the smallest case: validKeys reached kinds that do not
// pad their keys, where the run's two ways of computing disagreed. The core now refuses it
// outside cross-attention; the inputs that found it are in tests/fuzz/corpus/.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "attention/engine.hpp"
#include "attention/mask.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;

namespace {

// A run that checks itself against one ordinary pass (decoding, tiling) must agree with it, or
// be refused by name (as the JS API and now the core refuse validKeys outside cross-attention).
bool refused_or_consistent(const generated_spec &s) {
    try {
        const trace t = run_traced(make_problem(s, true));
        INFO("maxDifference " << t.checks.max_difference.value_or(-1));
        CHECK(t.checks.max_difference.value_or(1) <= 1e-12);
        return t.checks.max_difference.value_or(1) <= 1e-12;
    } catch (const std::invalid_argument &e) {
        INFO(e.what());
        return std::string(e.what()).rfind("validKeys: ", 0) == 0;
    }
}

} // namespace

// Found as "maxDifference 0.123" (tests/fuzz/corpus/valid-keys-kv-cache): validKeys is accepted for
// kind kv-cache; decode_with_cache ignores it while causal_reference pads the keys.
TEST_CASE("fuzz finding: validKeys in KV-cache decoding is refused or honoured", "[fuzz][decode]") {
    generated_spec s = specs::decode(2, 8, 1, 8, 8);
    s.valid_keys = 1;
    CHECK(refused_or_consistent(s));
}

// Found as "maxDifference 2.53" (tests/fuzz/corpus/valid-keys-flash-causal): validKeys is accepted
// for kind flash; the tiles ignore it while the causal reference applies attention_mask, which
// pads the keys. (Without causal neither side masks, and validKeys is silently ignored.)
TEST_CASE("fuzz finding: validKeys in causal FlashAttention is refused or honoured",
          "[fuzz][flash]") {
    generated_spec s = specs::flash(5, 6, 2, 2, 5, 5, true);
    s.valid_keys = 1;
    CHECK(refused_or_consistent(s));
}

TEST_CASE("fuzz finding: validKeys is refused outside cross- and self-attention, by name",
          "[fuzz][validation]") {
    generated_spec s = specs::decode(2, 8, 1, 8, 8);
    s.valid_keys = 1;
    CHECK_THROWS_WITH(make_problem(s),
                      Catch::Contains("validKeys: is for cross- and self-attention"));
    generated_spec f = specs::flash(5, 6, 2, 2, 5, 5, true);
    f.num_heads = 2;
    CHECK_THROWS_WITH(make_problem(f),
                      Catch::Contains("numHeads: FlashAttention here runs one head"));
}
