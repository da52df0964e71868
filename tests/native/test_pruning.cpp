// Pruning heads before W_O (prunedHeads): the pruned stage zeroes exactly the pruned heads'
// columns of the concat, the output is pruned · W_O, a pruned head contributes 0 and the kept
// heads what they contributed before, outputChange is ‖Δoutput‖ / ‖output‖ (by hand on a tiny
// spec); prune_each_head equals a traced run with that head alone pruned; the gate rule
// explains every cell of the pruned stage.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "attention/engine.hpp"
#include "attention/presets.hpp"
#include "check.hpp"
#include "explain_sweep.hpp"
#include "specs.hpp"

using namespace attention;
using Catch::Contains;
using check::operand_of;
using check::stage_of;

namespace {

// Every spec of the sweep with pruned heads, and the multi-head example with heads 1 and 3.
std::vector<generated_spec> pruned_specs() {
    std::vector<generated_spec> out{specs::pruned(preset("lesson-multi-head"), {1, 3})};
    for (const generated_spec &s : specs::every_kind())
        if (!s.pruned_heads.empty())
            out.push_back(s);
    return out;
}

// ‖a − b‖ / ‖b‖ in the Frobenius norm, summed here in the simplest order.
double relative_frobenius(const matrix &a, const matrix &b) {
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff += (a.flat(i) - b.flat(i)) * (a.flat(i) - b.flat(i));
        norm += b.flat(i) * b.flat(i);
    }
    return std::sqrt(diff / norm);
}

// The stage right after `id` (no head, no step) in t.
const stage &after(const trace &t, stage_id id) {
    for (std::size_t i = 0; i + 1 < t.stages.size(); ++i)
        if (t.stages[i].id == id && t.stages[i].step == no_step)
            return t.stages[i + 1];
    FAIL("no stage after " << name_of(id));
    throw;
}

} // namespace

TEST_CASE("pruning: the pruned stage zeroes exactly the pruned heads' columns",
          "[pruning][trace]") {
    for (const generated_spec &s : pruned_specs()) {
        const problem p = make_problem(s);
        const attention_config &c = p.config;
        INFO(check::describe(c));
        const trace t = run_traced(p);
        const stage &concat = stage_of(t, stage_id::concat), &pruned = after(t, stage_id::concat);
        REQUIRE(pruned.id == stage_id::pruned);
        CHECK(after(t, stage_id::pruned).id == stage_id::output);
        const std::string t_rows = c.kind == problem_kind::cross ? "T_q" : "T";
        const std::string shape =
            "(" + std::to_string(c.seq_len) + ", " + std::to_string(c.num_heads * c.d_v) + ")";
        CHECK(pruned.eq.symbolic == "(" + t_rows + ", h·d_v) ⊙ gate → (" + t_rows + ", h·d_v)");
        CHECK(pruned.eq.numeric == shape + " ⊙ gate → " + shape);
        check::tensor("operand concat", operand_of(pruned, "concat", no_head), concat.values, 0);
        const matrix &gate = operand_of(pruned, "gate", no_head);
        REQUIRE(check::shape(gate) == "(1, " + std::to_string(c.num_heads * c.d_v) + ")");
        const std::set<std::size_t> cut(c.pruned_heads.begin(), c.pruned_heads.end());
        for (std::size_t j = 0; j < cols(concat.values); ++j) {
            const bool gone = cut.count(j / c.d_v) == 1;
            CAPTURE(j);
            CHECK(gate(0, j) == (gone ? 0.0 : 1.0));
            for (std::size_t i = 0; i < rows(concat.values); ++i)
                CHECK(pruned.values(i, j) == (gone ? 0.0 : concat.values(i, j)));
        }
    }
}

TEST_CASE("pruning: output = pruned · W_O, pruned heads contribute 0, kept heads as before",
          "[pruning][trace]") {
    for (const generated_spec &s : pruned_specs()) {
        const problem p = make_problem(s);
        INFO(check::describe(p.config));
        const trace t = run_traced(p);
        generated_spec whole_spec = s;
        whole_spec.pruned_heads.clear();
        const trace whole = run_traced(make_problem(whole_spec));
        const stage &out = stage_of(t, stage_id::output),
                    &before = stage_of(whole, stage_id::output);
        const matrix &pruned = stage_of(t, stage_id::pruned).values;
        check::tensor("operand pruned", operand_of(out, "pruned", no_head), pruned, 0);
        check::tensor("output", out.values, check::naive_matmul(pruned, p.params.w_o), 1e-12);
        matrix sum = xt::zeros<double>(out.values.shape());
        for (std::size_t h = 0; h < p.config.num_heads; ++h) {
            CAPTURE(h);
            const matrix &part = operand_of(out, "contribution", int(h));
            const bool gone =
                std::count(p.config.pruned_heads.begin(), p.config.pruned_heads.end(), h);
            const matrix zero = xt::zeros<double>(part.shape());
            check::tensor("contribution", part,
                          gone ? zero : operand_of(before, "contribution", int(h)), 0);
            sum += part;
        }
        check::tensor("Σ contributions, added in head order", sum, out.values, 0);
        // Nothing before the pruning changes; the change is measured against the whole output.
        check::tensor("concat", stage_of(t, stage_id::concat).values,
                      stage_of(whole, stage_id::concat).values, 0);
        REQUIRE(t.checks.output_change.has_value());
        const double by_hand = relative_frobenius(out.values, before.values);
        CHECK(std::fabs(*t.checks.output_change - by_hand) <= 1e-15 * by_hand);
        CHECK_FALSE(whole.checks.output_change.has_value());
        for (const stage &st : whole.stages)
            CHECK(st.id != stage_id::pruned);
    }
}

TEST_CASE("pruning: outputChange by hand on two tokens and two heads", "[pruning][known]") {
    // X = I, W_Q = W_K = 0: both heads weigh the two tokens ½, ½. W_V picks feature 0 for head
    // 0 and feature 1 for head 1: head 0 = head 1 = [[½], [½]], concat = ½ everywhere.
    // W_O = diag(1, 2): output = [[½, 1], [½, 1]], ‖output‖² = 2 · (¼ + 1) = 2.5.
    // Prune head 1: output = [[½, 0], [½, 0]], ‖Δ‖² = 2, change = √(2 / 2.5) = √0.8.
    // Prune head 0: ‖Δ‖² = 2 · ¼ = 0.5, change = √0.2. Both: ‖Δ‖ = ‖output‖, change 1.
    explicit_spec e;
    e.x = {{1, 0}, {0, 1}};
    e.w_q = e.w_k = {{{0}, {0}}, {{0}, {0}}};
    e.w_v = {{{1}, {0}}, {{0}, {1}}};
    e.w_o = row_list{{1, 0}, {0, 2}};
    const auto change = [&](std::vector<double> heads) {
        e.pruned_heads = std::move(heads);
        return *run_traced(make_problem(e)).checks.output_change;
    };
    CHECK(std::fabs(change({1}) - std::sqrt(0.8)) <= 1e-15);
    CHECK(std::fabs(change({0}) - std::sqrt(0.2)) <= 1e-15);
    CHECK(change({0, 1}) == 1.0);
    CHECK(change({1, 0}) == 1.0);
    e.pruned_heads.clear();
    const std::vector<double> each = prune_each_head(make_problem(e));
    REQUIRE(each.size() == 2);
    CHECK(std::fabs(each[0] - std::sqrt(0.2)) <= 1e-15);
    CHECK(std::fabs(each[1] - std::sqrt(0.8)) <= 1e-15);
    e.pruned_heads = {1};
    check::tensor("output without head 1", forward(make_problem(e)), check::m({{0.5, 0}, {0.5, 0}}),
                  0);
}

TEST_CASE("pruning: prune_each_head equals a traced run with that head alone pruned",
          "[pruning][engine]") {
    for (const char *id : {"lesson-multi-head", "cross-translation", "cross-padding", "gqa-4-2",
                           "mqa-4-1", "encoder-layer", "designed-heads", "designed-heads-causal"}) {
        CAPTURE(id);
        const generated_spec s = preset(id);
        const problem p = make_problem(s);
        const std::vector<double> each = prune_each_head(p);
        REQUIRE(each.size() == p.config.num_heads);
        for (std::size_t h = 0; h < each.size(); ++h) {
            CAPTURE(h, each[h]);
            const trace t = run_traced(make_problem(specs::pruned(s, {double(h)})));
            CHECK(each[h] == *t.checks.output_change);
            CHECK(each[h] > 0.0);
        }
        // Heads already pruned in the spec are ignored: each head is pruned alone.
        CHECK(prune_each_head(make_problem(specs::pruned(s, {0}))) == each);
    }
}

TEST_CASE("pruning: prune_each_head refuses kinds without W_O", "[pruning][engine]") {
    const auto refused = Contains("spec: pruning needs the output projection W_O (self-, cross-, "
                                  "designed attention or the encoder layer)");
    CHECK_THROWS_WITH(prune_each_head(make_problem(preset("lesson-self-attention"))), refused);
    CHECK_THROWS_WITH(prune_each_head(make_problem(preset("kv-cache-gqa"))), refused);
    CHECK_THROWS_WITH(prune_each_head(make_problem(preset("flash-full"))), refused);
    explicit_spec e;
    e.x = {{1, 2}};
    e.w_q = e.w_k = e.w_v = {{{1}, {0}}};
    CHECK_THROWS_AS(prune_each_head(make_problem(e)), std::invalid_argument);
    e.w_o = row_list{{1, 0}};
    CHECK(prune_each_head(make_problem(e)).size() == 1);
}

TEST_CASE("explain: gate: input · gate is the value", "[explain][pruning]") {
    std::size_t cut = 0;
    const std::size_t cells =
        sweep::for_each_cell({rules::gate}, [&](const trace &, const stage &s, std::size_t i,
                                                std::size_t j, const cell_explanation &e) {
            REQUIRE(e.input.has_value());
            REQUIRE(e.gate.has_value());
            CHECK(*e.input == sweep::op(s, 0)(i, j));
            CHECK(*e.gate == sweep::op(s, 1)(0, j));
            CHECK((*e.gate == 0.0 || *e.gate == 1.0));
            CHECK(*e.input * *e.gate == e.value);
            CHECK(e.terms.empty());
            CHECK_FALSE(e.mask.has_value());
            cut += *e.gate == 0.0;
        });
    CHECK(cells > 0);
    CHECK(cut > 0);
    // Other rules leave the gate empty.
    const trace t = run_traced(make_problem(specs::pruned(preset("lesson-multi-head"), {2})));
    CHECK_FALSE(explain_cell(t, stage_id::concat, no_head, 0, 0).gate.has_value());
    CHECK_FALSE(explain_cell(t, stage_id::output, no_head, 0, 0).gate.has_value());
    CHECK(*explain_cell(t, stage_id::pruned, no_head, 1, 8).gate == 0.0);  // head 2's column 0
    CHECK(*explain_cell(t, stage_id::pruned, no_head, 1, 12).gate == 1.0); // head 3's
    CHECK_THROWS_WITH(explain_cell(t, stage_id::pruned, no_head, 5, 0),
                      Contains("cell: (5, 0) is outside pruned's shape (5, 16)"));
}
