// RoPE: a pair turned by hand, the score depending on positions only through i − j (so a shift
// of every position changes q_rot but not the scores or weights), half-split as interleaved on
// permuted columns, only the first dims columns turning, the traced and untraced passes agreeing
// bit for bit, the trace budget counting q_rot and k_rot, and every bad field refused by name.
#include <catch2/catch.hpp>

#include <cmath>

#include "attention/engine.hpp"
#include "attention/fields.hpp"
#include "attention/spec_reader.hpp"
#include "attention/rng.hpp"
#include "attention/rope.hpp"
#include "check.hpp"

using namespace attention;

namespace {

// A generated self-attention spec's fields, with RoPE's as given ("rope" and "rope.…").
field_values self_fields(double t, double d, double h, field_values rope, bool causal = false) {
    field_values v{{"seqLen", t}, {"dModel", d}, {"numHeads", h}, {"causal", causal}};
    if (!rope.empty())
        v.emplace("rope", true);
    for (auto &[k, x] : rope)
        v.emplace("rope." + k, x);
    return v;
}

problem self_problem(double t, double d, double h, field_values rope, bool causal = false) {
    return problem_of(problem_kind::self, false, self_fields(t, d, h, std::move(rope), causal),
                      true);
}

} // namespace

TEST_CASE("rope: a pair turned by hand", "[rope][known]") {
    // dims 2, base anything: θ_0 = base⁰ = 1, so at position p the pair turns by p radians.
    const rope_settings r{10000, false, 0, 2};
    const rope_table table = rope_table_of(r, 0, 3);
    const matrix x = check::m({{1, 0}, {1, 0}, {0, 2}}); // (3, 2): positions 0, 1, 2
    const matrix got = rotated(view_of(x), table, r);
    check::tensor(
        "turned", got,
        check::m({{1, 0}, {std::cos(1.0), std::sin(1.0)}, {-2 * std::sin(2.0), 2 * std::cos(2.0)}}),
        1e-15);
    // θ_i = base^(−2i/dims): for dims 4, base 100, θ = (1, 0.1).
    const rope_table four = rope_table_of({100, false, 3, 4}, 0, 1);
    check::tensor("θ", four.theta, check::m({{1, 0.1}}), 1e-15);
    check::tensor("angle at offset 3", four.angle, check::m({{3, 0.3}}), 1e-15);
}

TEST_CASE("rope: scores depend on positions only through i − j", "[rope][property]") {
    const problem base = self_problem(6, 8, 2, {});
    for (const bool half : {false, true}) {
        CAPTURE(half);
        const auto turned = [&](std::size_t offset) {
            attention_config c = base.config;
            c.rope = rope_settings{10000, half, offset, c.d_k};
            trace t;
            multi_head_attention(base.params, c, &t);
            return t;
        };
        const trace at0 = turned(0), at7 = turned(7);
        for (stage_id id : {stage_id::scores, stage_id::weights}) {
            const matrix &a = check::stage_of(at0, id, 1).values,
                         &b = check::stage_of(at7, id, 1).values;
            CHECK(check::compare(b, a, 1e-12).max_diff <= 1e-12);
        }
        const matrix &q0 = check::stage_of(at0, stage_id::q_rot, 1).values,
                     &q7 = check::stage_of(at7, stage_id::q_rot, 1).values;
        CHECK(check::compare(q7, q0, 0).max_diff > 1e-3); // q_rot itself moved
    }
}

TEST_CASE("rope: half-split is interleaved on permuted columns", "[rope][property]") {
    const std::size_t dk = 6;
    const matrix x = numpy_random(3).randn(5, dk); // (5, 6)
    // Interleaved pairs (2i, 2i+1); half-split pairs (i, i + 3). Column 2i of P·x is x's column i,
    // column 2i + 1 is x's column i + 3: interleaved(P·x) = P·half-split(x).
    const auto permuted = [&](const matrix &m) {
        matrix out({rows(m), dk});
        for (std::size_t p = 0; p < rows(m); ++p)
            for (std::size_t i = 0; i < dk / 2; ++i)
                out(p, 2 * i) = m(p, i), out(p, 2 * i + 1) = m(p, i + dk / 2);
        return out;
    };
    const rope_settings inter{10000, false, 2, dk}, half{10000, true, 2, dk};
    const rope_table table = rope_table_of(inter, 0, 5);
    const matrix px = permuted(x);
    check::tensor("interleaved(Px) = P half-split(x)", rotated(view_of(px), table, inter),
                  permuted(rotated(view_of(x), table, half)), 0);
}

TEST_CASE("rope: only the first dims columns turn", "[rope][property]") {
    const matrix x = numpy_random(4).randn(4, 6); // (4, 6)
    const rope_settings r{10000, false, 0, 4};
    const matrix got = rotated(view_of(x), rope_table_of(r, 0, 4), r);
    for (std::size_t p = 0; p < 4; ++p)
        for (std::size_t j = 4; j < 6; ++j)
            CHECK(got(p, j) == x(p, j));
    CHECK(got(1, 0) != x(1, 0));
}

TEST_CASE("rope: traced and untraced passes agree bit for bit, and the trace counts its values",
          "[rope][forward]") {
    for (const bool causal : {false, true})
        for (const double kv : {4.0, 2.0, 1.0}) {
            field_values v =
                self_fields(9, 16, 4, {{"convention", std::string("half-split")}}, causal);
            v.emplace("numKvHeads", kv);
            const problem p = problem_of(problem_kind::self, false, v, true);
            INFO(check::describe(p.config));
            const trace t = run_traced(p);
            const matrix out = forward(p);
            CHECK(check::compare(out, t.stages.back().values, 0).max_diff == 0);
            CHECK(trace_value_count(p.config) == recorded_value_count(t));
            std::size_t q_rot = 0, k_rot = 0;
            for (const stage &s : t.stages)
                q_rot += s.id == stage_id::q_rot, k_rot += s.id == stage_id::k_rot;
            CHECK(q_rot == 4);
            CHECK(k_rot == std::size_t(kv));
            CHECK(check::stage_of(t, stage_id::scores, 3).operands[0].name == "q_rot");
        }
}

TEST_CASE("rope: each bad field is refused by name", "[rope][validation]") {
    const auto refused = [](field_values rope, const std::string &message) {
        CAPTURE(message);
        CHECK_THROWS_WITH(self_problem(4, 8, 2, std::move(rope)), message);
    };
    refused({{"convention", std::string("rotary")}},
            "rope.convention: \"rotary\" is not one of interleaved, half-split");
    refused({{"base", 0.0}},
            "rope.base: 0 must be a finite number above 0 (RoPE's usual base is 10000)");
    refused({{"base", -5.0}},
            "rope.base: -5 must be a finite number above 0 (RoPE's usual base is 10000)");
    refused({{"offset", -1.0}}, "rope.offset: -1 is out of range [0, 16777216]");
    refused({{"offset", 1.5}}, "rope.offset: 1.5 is not a whole number");
    refused({{"dims", 3.0}}, "rope.dims: 3 is odd; each pair turns two columns");
    refused({{"dims", 6.0}}, "rope.dims: 6 is out of range [2, 4]"); // d_k = 8 / 2 = 4
    // Kinds that do not take it yet (the bindings refuse the field by name: see fields.cpp).
    for (const problem_kind k : {problem_kind::cross, problem_kind::encoder_layer,
                                 problem_kind::flash, problem_kind::designed}) {
        bool takes = false;
        for (const field_rule &f : spec_fields(k, false).fields)
            takes = takes || std::string(f.name) == "rope";
        CHECK_FALSE(takes);
    }
    bool self_takes = false, explicit_takes = false;
    for (const field_rule &f : spec_fields(problem_kind::self, false).fields)
        self_takes = self_takes || std::string(f.name) == "rope";
    for (const field_rule &f : spec_fields(problem_kind::self, true).fields)
        explicit_takes = explicit_takes || std::string(f.name) == "rope";
    CHECK(self_takes);
    CHECK(explicit_takes);
}
