// What the fuzzer (tests/fuzz) found in files another change was editing, as the smallest
// failing case; the input that found it is in tests/fuzz/findings/. Each case is tagged
// [!shouldfail] so the suite stays green while the bug is open: when the fix lands the case
// passes, Catch2 reports that as a failure, and the tag (and this note) should go, and the
// input move to tests/fuzz/corpus/.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "attention/engine.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;

namespace {

// A run that checks itself against one ordinary pass (decoding, tiling) must agree with it; a
// refusal naming validKeys is fine too (the JS API refuses validKeys outside cross-attention).
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

// Found as "maxDifference 0.123" (fuzz/findings/valid-keys-kv-cache): validKeys is accepted for
// kind kv-cache; decode_with_cache ignores it while causal_reference pads the keys.
TEST_CASE("fuzz finding: validKeys in KV-cache decoding is refused or honoured",
          "[fuzz][decode][!shouldfail]") {
    generated_spec s = specs::decode(2, 8, 1, 8, 8);
    s.valid_keys = 1;
    CHECK(refused_or_consistent(s));
}

// Found as "maxDifference 2.53" (fuzz/findings/valid-keys-flash-causal): validKeys is accepted
// for kind flash; the tiles ignore it while the causal reference applies attention_mask, which
// pads the keys. (Without causal neither side masks, and validKeys is silently ignored.)
TEST_CASE("fuzz finding: validKeys in causal FlashAttention is refused or honoured",
          "[fuzz][flash][!shouldfail]") {
    generated_spec s = specs::flash(5, 6, 2, 2, 5, 5, true);
    s.valid_keys = 1;
    CHECK(refused_or_consistent(s));
}
