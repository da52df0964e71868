// The lesson's three examples against numpy (tests/fixtures, scripts/make-reference.py):
// X bit for bit, every drawn weight, every stage of every head, concat and output to 1e-12.
#include <catch2/catch.hpp>

#include <set>

#include "attention/engine.hpp"
#include "attention/spec.hpp"
#include "check.hpp"
#include "reference.hpp"

using namespace attention;

namespace {

std::string key_of(const std::string &example, const std::string &id, int head) {
    return example + ":" + id + (head == no_head ? "" : "/" + std::to_string(head));
}

// The fixture keys numpy wrote for one example, e.g. every "lesson-causal:…".
std::set<std::string> fixture_keys(const std::string &example) {
    std::set<std::string> keys;
    for (const auto &[key, m] : reference::matrices())
        if (key.rfind(example + ":", 0) == 0)
            keys.insert(key);
    return keys;
}

} // namespace

TEST_CASE("reference: the lesson's examples match numpy stage by stage", "[reference]") {
    const auto &ref = reference::matrices();
    for (const std::string example :
         {"lesson-self-attention", "lesson-multi-head", "lesson-causal"}) {
        SECTION(example) {
            const trace t = run_traced(make_problem(preset(example)));
            std::set<std::string> compared;
            auto compare = [&](const std::string &key, const matrix &got, double tol) {
                INFO("fixture " << key);
                REQUIRE(ref.count(key) == 1);
                check::tensor(key, got, ref.at(key), tol);
                compared.insert(key);
            };
            for (const stage &s : t.stages) {
                // X is drawn, not computed: it must be numpy's bit for bit.
                compare(key_of(example, s.id, s.head), s.values, s.id == "x" ? 0.0 : 1e-12);
                for (const operand &o : s.operands)
                    if (o.name.rfind("W_", 0) == 0)
                        compare(key_of(example, o.name, o.head), o.values, 1e-12);
            }
            // Every matrix numpy computed for this example was compared with something.
            CHECK(compared == fixture_keys(example));
        }
    }
}

TEST_CASE("reference: the drawn weights are numpy's randn · 0.1 exactly", "[reference][rng]") {
    // The same multiplication in both languages: no rounding difference is possible.
    const auto &ref = reference::matrices();
    const problem p = make_problem(preset("lesson-multi-head"));
    for (int h = 0; h < 4; ++h) {
        CAPTURE(h);
        check::tensor("W_Q", p.params.w_q[h], ref.at("lesson-multi-head:W_Q/" + std::to_string(h)),
                      0);
        check::tensor("W_K", p.params.w_k[h], ref.at("lesson-multi-head:W_K/" + std::to_string(h)),
                      0);
        check::tensor("W_V", p.params.w_v[h], ref.at("lesson-multi-head:W_V/" + std::to_string(h)),
                      0);
    }
    check::tensor("W_O", p.params.w_o, ref.at("lesson-multi-head:W_O"), 0);
}

TEST_CASE("reference: presets have the lesson's sizes", "[reference]") {
    struct want {
        const char *name;
        std::size_t t, d, h, dk, dv;
        bool causal, w_o;
    };
    for (const want &w : {want{"lesson-self-attention", 5, 8, 1, 4, 4, false, false},
                          want{"lesson-multi-head", 5, 16, 4, 4, 4, false, true},
                          want{"lesson-causal", 4, 8, 1, 4, 4, true, false}}) {
        CAPTURE(w.name);
        const generated_spec s = preset(w.name);
        CHECK(s.seed == 42);
        const attention_config c = make_problem(s).config;
        CHECK(c.seq_len == w.t);
        CHECK(c.d_model == w.d);
        CHECK(c.num_heads == w.h);
        CHECK(c.d_k == w.dk);
        CHECK(c.d_v == w.dv);
        CHECK(c.causal == w.causal);
        CHECK(c.output_projection == w.w_o);
        CHECK(c.scale_scores);
    }
}
