// Every preset the engine defines against numpy (tests/fixtures, scripts/make-reference.py):
// every stage of every head, every drawn weight and bias, the mask M and the weights' row totals.
// What is drawn (X, X_q, X_kv, W…, b…) must be numpy's bit for bit: both sides multiply the
// same normals by the same 0.1. What is computed must match to 1e-12.
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>

#include "attention/engine.hpp"
#include "attention/presets.hpp"
#include "attention/spec.hpp"
#include "check.hpp"
#include "reference.hpp"

using namespace attention;

namespace {

std::string key_of(const std::string &preset, const std::string &name, int head) {
    return preset + ":" + name + (head == no_head ? "" : "/" + std::to_string(head));
}

// Drawn from the generator rather than computed; M is 0 or −∞ by construction.
bool is_exact(const std::string &name) {
    return name == "x" || name == "x_q" || name == "x_kv" || name == "M" || name[0] == 'W' ||
           name[0] == 'b';
}

// The operands numpy has matrices for: the drawn weights and biases, and the mask.
bool has_fixture(const operand &o) {
    return o.name[0] == 'W' || o.name[0] == 'b' || o.name == "M";
}

// The fixture keys numpy wrote for one preset, e.g. every "lesson-causal:…".
std::set<std::string> fixture_keys(const std::string &preset) {
    std::set<std::string> keys;
    for (const auto &[key, m] : reference::matrices())
        if (key.rfind(preset + ":", 0) == 0)
            keys.insert(key);
    return keys;
}

// Checks each named matrix of one preset against numpy's, remembering the keys it used.
struct comparer {
    std::string preset;
    std::set<std::string> compared;

    void operator()(const std::string &name, int head, const matrix &got) {
        const std::string key = key_of(preset, name, head);
        INFO("fixture " << key);
        REQUIRE(reference::matrices().count(key) == 1);
        check::tensor(key, got, reference::matrices().at(key), is_exact(name) ? 0.0 : 1e-12);
        compared.insert(key);
    }
};

void compare_trace(const trace &t, comparer &compare) {
    for (const stage &s : t.stages) {
        compare(name_of(s.id), s.head, s.values);
        if (s.id == stage_id::weights)
            compare("totals", s.head, s.totals); // (T, 1): every row sums to 1
        for (const operand &o : s.operands)
            if (has_fixture(o))
                compare(o.name, o.head, o.values);
    }
}

std::string whole(double v) {
    return std::to_string(static_cast<std::uint64_t>(v));
}

std::string flag(bool v) {
    return v ? "true" : "false";
}

std::string kind_text(problem_kind k) {
    return k == problem_kind::cross           ? "cross"
           : k == problem_kind::encoder_layer ? "encoder-layer"
                                              : "self";
}

// A preset's sizes after the engine resolved its defaults, written as the fixture writes them.
reference::sizes sizes_of(const generated_spec &s, const attention_config &c) {
    const auto n = [](std::size_t v) { return std::to_string(v); };
    return {{"kind", kind_text(c.kind)},
            {"seed", whole(s.seed)},
            {"skip", whole(s.skip)},
            {"seqLen", n(c.seq_len)},
            {"kvLen", n(c.kv_len)},
            {"dModel", n(c.d_model)},
            {"numHeads", n(c.num_heads)},
            {"numKvHeads", n(c.num_kv_heads)},
            {"dK", n(c.d_k)},
            {"dV", n(c.d_v)},
            {"dFF", c.kind == problem_kind::encoder_layer ? n(c.d_ff) : "null"},
            {"validKeys", c.valid_keys ? n(*c.valid_keys) : "null"},
            {"causal", flag(c.causal)},
            {"outputProjection", flag(c.output_projection)},
            {"scaleScores", flag(c.scale_scores)}};
}

// The same trace, bit for bit: stage ids, heads, K/V heads, equations, axes, values, totals and
// every operand.
void require_same(const trace &got, const trace &want) {
    REQUIRE(got.stages.size() == want.stages.size());
    for (std::size_t i = 0; i < got.stages.size(); ++i) {
        const stage &a = got.stages[i], &b = want.stages[i];
        INFO("stage " << i << ": " << name_of(b.id) << " head " << b.head);
        CHECK(std::string(name_of(a.id)) == name_of(b.id));
        CHECK(a.head == b.head);
        CHECK(a.kv_head == b.kv_head);
        CHECK(a.eq.numeric == b.eq.numeric);
        CHECK(a.eq.symbolic == b.eq.symbolic);
        CHECK((a.ax.rows == b.ax.rows && a.ax.cols == b.ax.cols));
        check::tensor("values", a.values, b.values, 0);
        check::tensor("totals", a.totals, b.totals, 0);
        REQUIRE(a.operands.size() == b.operands.size());
        for (std::size_t j = 0; j < a.operands.size(); ++j) {
            INFO("operand " << b.operands[j].name << " head " << b.operands[j].head);
            CHECK(a.operands[j].name == b.operands[j].name);
            CHECK(a.operands[j].head == b.operands[j].head);
            check::tensor("operand", a.operands[j].values, b.operands[j].values, 0);
        }
    }
}

} // namespace

TEST_CASE("reference: every preset matches numpy stage by stage", "[reference]") {
    for (const preset_info &p : presets()) {
        SECTION(p.id) {
            comparer compare{p.id, {}};
            compare_trace(run_traced(make_problem(p.spec)), compare);
            // Every matrix numpy computed for this preset was compared with something.
            CHECK(compare.compared == fixture_keys(p.id));
        }
    }
}

TEST_CASE("reference: the fixture was made from these presets, with these sizes", "[reference]") {
    // Sizes are defined once, in the engine; numpy read them from it. A preset changed or added
    // since, or a default resolved differently in C++ than in numpy, shows up here.
    const auto &recorded = reference::presets();
    std::set<std::string> ids, recorded_ids;
    for (const preset_info &p : presets()) {
        CAPTURE(p.id);
        ids.insert(p.id);
        REQUIRE(recorded.count(p.id) == 1);
        const reference::sizes got = sizes_of(p.spec, make_problem(p.spec).config);
        for (const auto &[field, want] : recorded.at(p.id)) {
            CAPTURE(field);
            REQUIRE(got.count(field) == 1);
            CHECK(got.at(field) == want);
        }
        CHECK(got.size() == recorded.at(p.id).size());
    }
    for (const auto &[id, sizes] : recorded)
        recorded_ids.insert(id);
    CHECK(ids == recorded_ids);
    for (const auto &[key, m] : reference::matrices()) {
        CAPTURE(key);
        CHECK((key.rfind("randn/", 0) == 0 || ids.count(key.substr(0, key.find(':'))) == 1));
    }
}

TEST_CASE("reference: numKvHeads = numHeads is exactly multi-head attention", "[reference][gqa]") {
    const trace mha = run_traced(make_problem(preset("lesson-multi-head")));
    SECTION("lesson-multi-head with numKvHeads 4 given") {
        generated_spec spec = preset("lesson-multi-head");
        spec.num_kv_heads = 4;
        require_same(run_traced(make_problem(spec)), mha);
    }
    SECTION("the preset gqa-4-4") {
        require_same(run_traced(make_problem(preset("gqa-4-4"))), mha);
    }
}
