// The sinusoidal position encoding: PE by hand, X + PE recorded as x_pos and read by the
// projections, the traced and untraced passes agreeing bit for bit, bad names refused.
#include <catch2/catch.hpp>

#include <cmath>

#include "attention/encoding.hpp"
#include "attention/engine.hpp"
#include "attention/fields.hpp"
#include "attention/spec_reader.hpp"
#include "check.hpp"

using namespace attention;

TEST_CASE("sinusoidal: PE by hand", "[encoding][known]") {
    const matrix pe = sinusoidal_encoding(0, 3, 4); // (3, 4): rates 1, 1, 1/100, 1/100
    check::tensor("PE", pe,
                  check::m({{0, 1, 0, 1},
                            {std::sin(1.0), std::cos(1.0), std::sin(0.01), std::cos(0.01)},
                            {std::sin(2.0), std::cos(2.0), std::sin(0.02), std::cos(0.02)}}),
                  1e-15);
    check::tensor("from position 2", sinusoidal_encoding(2, 1, 4),
                  check::m({{std::sin(2.0), std::cos(2.0), std::sin(0.02), std::cos(0.02)}}),
                  1e-15);
    CHECK(sinusoidal_encoding(1, 1, 5)(0, 4) == std::sin(std::pow(10000.0, -0.8))); // odd d: a sine
}

TEST_CASE("sinusoidal: x_pos = X + PE feeds the projections", "[encoding][forward]") {
    const field_values v{{"seqLen", 5.0},
                         {"dModel", 8.0},
                         {"numHeads", 2.0},
                         {"positionalEncoding", std::string("sinusoidal")}};
    const problem p = problem_of(problem_kind::self, false, v, true);
    const trace t = run_traced(p);
    const stage &x_pos = check::stage_of(t, stage_id::x_pos, no_head);
    check::tensor("x_pos", x_pos.values, p.params.x + sinusoidal_encoding(0, 5, 8), 0);
    CHECK(check::stage_of(t, stage_id::q, 1).operands[0].name == "x_pos");
    check::tensor("q reads x_pos", check::stage_of(t, stage_id::q, 1).values,
                  check::naive_matmul(x_pos.values, p.params.w_q[1]), 1e-15);
    CHECK(check::compare(forward(p), t.stages.back().values, 0).max_diff == 0);
    CHECK(trace_value_count(p.config) == recorded_value_count(t));
    field_values bad = v;
    bad["positionalEncoding"] = std::string("learned");
    CHECK_THROWS_WITH(problem_of(problem_kind::self, false, bad, true),
                      "positionalEncoding: \"learned\" is not sinusoidal (the only one)");
}
