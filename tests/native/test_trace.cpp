// The trace of self-attention: stage ids in the lesson's order, shapes, equations and axes, the
// recorded values agreeing with what the passes return, and the value count agreeing with it.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include <xtensor/xbuilder.hpp>

#include "attention/attention.hpp"
#include "attention/engine.hpp"
#include "attention/ops.hpp"
#include "attention/presets.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;
using check::label;
using check::operand_of;
using check::stage_of;

namespace {

// x, per head q k v scores scaled (masked) weights head, then concat output with W_O.
std::vector<std::string> expected_labels(const attention_config &c) {
    std::vector<std::string> ids{"x"};
    for (int h = 0; h < int(c.num_heads); ++h) {
        for (const char *id : {"q", "k", "v", "scores", "scaled"})
            ids.push_back(std::string(id) + "/" + std::to_string(h));
        if (c.causal)
            ids.push_back("masked/" + std::to_string(h));
        ids.push_back("weights/" + std::to_string(h));
        ids.push_back("head/" + std::to_string(h));
    }
    if (c.output_projection)
        ids.insert(ids.end(), {"concat", "output"});
    else if (c.num_heads > 1) // the concat is the output
        ids.push_back("concat");
    return ids;
}

std::vector<generated_spec> configs() {
    std::vector<generated_spec> out;
    for (const bool causal : {false, true})
        for (const bool w_o : {false, true}) {
            out.push_back(specs::self(5, 16, 4, 4, 4, causal, w_o));
            out.push_back(specs::self(7, 12, 3, 5, 2, causal, w_o)); // d_k ≠ d_v
            out.push_back(specs::self(3, 6, 1, 2, 9, causal, w_o));  // one head, d_v > d_model
        }
    return out;
}

std::size_t words(const std::string &s) {
    std::istringstream in(s);
    std::size_t n = 0;
    for (std::string w; in >> w;)
        ++n;
    return n;
}

std::string axes_text(const axes &a) {
    return "(" + a.rows + ", " + a.cols + ")";
}

} // namespace

TEST_CASE("trace: stage ids come in the lesson's order", "[trace]") {
    for (const generated_spec &s : configs()) {
        const problem p = make_problem(s);
        INFO(check::describe(p.config));
        CHECK(check::labels(run_traced(p)) == expected_labels(p.config));
    }
}

TEST_CASE("trace: in multi-head attention each head reads its own K/V head", "[trace]") {
    for (const generated_spec &s : configs()) {
        const trace t = run_traced(make_problem(s));
        INFO(check::describe(t.config));
        CHECK(t.config.num_kv_heads == t.config.num_heads);
        for (const stage &st : t.stages) {
            CAPTURE(label(st.id, st.head));
            CHECK(st.kv_head == st.head); // no_head for x, concat, output
        }
    }
}

TEST_CASE("trace: value counts equal the doubles recorded, for every kind", "[trace]") {
    std::vector<generated_spec> all = configs();
    for (const generated_spec &s : specs::every_kind())
        all.push_back(s);
    for (const generated_spec &s : all) {
        const problem p = make_problem(s);
        INFO(check::describe(p.config));
        CHECK(trace_value_count(p.config) == recorded_value_count(run_traced(p)));
    }
}

TEST_CASE("trace: recorded values equal what the passes return", "[trace]") {
    for (const generated_spec &s : configs()) {
        const problem p = make_problem(s);
        INFO(check::describe(p.config));
        trace t;
        const matrix returned = multi_head_attention(p.params, p.config, &t);
        const attention_config &c = p.config;
        check::tensor("x", stage_of(t, stage_id::x).values, p.params.x, 0);
        std::vector<matrix> heads;
        for (int h = 0; h < int(c.num_heads); ++h) {
            CAPTURE(h);
            const head_result r =
                self_attention(p.params.x, p.params.w_q[h], p.params.w_k[h], p.params.w_v[h], c);
            const stage &q = stage_of(t, stage_id::q, h), &k = stage_of(t, stage_id::k, h);
            const stage &v = stage_of(t, stage_id::v, h),
                        &scores = stage_of(t, stage_id::scores, h);
            const stage &head = stage_of(t, stage_id::head, h);
            check::tensor("head stage", head.values, r.output, 0);
            check::tensor("weights stage", stage_of(t, stage_id::weights, h).values, r.weights, 0);
            check::tensor("W_Q operand", operand_of(q, "W_Q", h), p.params.w_q[h], 0);
            check::tensor("W_K operand", operand_of(k, "W_K", h), p.params.w_k[h], 0);
            check::tensor("W_V operand", operand_of(v, "W_V", h), p.params.w_v[h], 0);
            check::tensor("X operand of q", operand_of(q, "X", no_head), p.params.x, 0);
            check::tensor("Q operand = q", operand_of(scores, "Q", h), q.values, 0);
            check::tensor("K operand = k", operand_of(scores, "K", h), k.values, 0);
            check::tensor("V operand = v", operand_of(head, "V", h), v.values, 0);
            check::tensor("weights operand", operand_of(head, "weights", h), r.weights, 0);
            heads.push_back(r.output);
        }
        check::tensor("forward = returned", forward(p), returned, 0);
        if (!c.output_projection) {
            check::tensor("returned = heads side by side", returned, concat_columns(heads), 0);
            continue;
        }
        const stage &out = stage_of(t, stage_id::output), &concat = stage_of(t, stage_id::concat);
        check::tensor("returned = output stage", returned, out.values, 0);
        check::tensor("concat stage", concat.values, concat_columns(heads), 0);
        check::tensor("concat operand", operand_of(out, "concat", no_head), concat.values, 0);
        check::tensor("W_O operand", operand_of(out, "W_O", no_head), p.params.w_o, 0);
        matrix sum = xt::zeros<double>(out.values.shape());
        for (int h = 0; h < int(c.num_heads); ++h) {
            check::tensor("concat's head operand", operand_of(concat, "head", h), heads[h], 0);
            sum += operand_of(out, "contribution", h);
        }
        // The engine adds the shares in head order too: the same bits.
        check::tensor("sum of contributions = output", sum, out.values, 0);
    }
}

TEST_CASE("trace: shapes of every stage when d_k differs from d_v", "[trace]") {
    // T = 7, D = 12, H = 3, DK = 5, DV = 2, causal, with W_O (H·DV = 6).
    const trace t = run_traced(make_problem(specs::self(7, 12, 3, 5, 2, true, true)));
    const std::map<stage_id, std::string> want{
        {stage_id::x, "(7, 12)"},     {stage_id::q, "(7, 5)"},       {stage_id::k, "(7, 5)"},
        {stage_id::v, "(7, 2)"},      {stage_id::scores, "(7, 7)"},  {stage_id::scaled, "(7, 7)"},
        {stage_id::masked, "(7, 7)"}, {stage_id::weights, "(7, 7)"}, {stage_id::head, "(7, 2)"},
        {stage_id::concat, "(7, 6)"}, {stage_id::output, "(7, 12)"}};
    for (const stage &s : t.stages) {
        CAPTURE(label(s.id, s.head));
        CHECK(check::shape(s.values) == want.at(s.id));
        CHECK(check::shape(s.totals) == (s.id == stage_id::weights ? "(7, 1)" : "(0, 0)"));
    }
    CHECK(stage_of(t, stage_id::v, 1).eq.numeric == "(7, 12) @ (12, 2) → (7, 2)");
    CHECK(stage_of(t, stage_id::q, 1).eq.numeric == "(7, 12) @ (12, 5) → (7, 5)");
    CHECK(stage_of(t, stage_id::scores, 2).eq.numeric == "(7, 5) @ (5, 7) → (7, 7)");
    CHECK(stage_of(t, stage_id::scaled, 0).eq.numeric == "(7, 7) ÷ √5 → (7, 7)");
    CHECK(stage_of(t, stage_id::masked, 0).eq.numeric == "(7, 7) + (7, 7) → (7, 7)");
    CHECK(stage_of(t, stage_id::concat).eq.numeric == "3 × (7, 2) → (7, 6)");
    CHECK(stage_of(t, stage_id::output).eq.numeric == "(7, 6) @ (6, 12) → (7, 12)");
    const matrix &w_o = operand_of(stage_of(t, stage_id::output), "W_O", no_head);
    CHECK(check::shape(w_o) == "(6, 12)");
}

TEST_CASE("trace: equations and axes of the lesson's multi-head example", "[trace]") {
    const trace t = run_traced(make_problem(preset("lesson-multi-head")));
    struct want {
        const char *numeric, *symbolic, *axes;
    };
    const std::map<stage_id, want> wants{
        {stage_id::x, {"(5, 16)", "(T, d_model)", "(T, d_model)"}},
        {stage_id::q,
         {"(5, 16) @ (16, 4) → (5, 4)", "(T, d_model) @ (d_model, d_k) → (T, d_k)", "(T, d_k)"}},
        {stage_id::k,
         {"(5, 16) @ (16, 4) → (5, 4)", "(T, d_model) @ (d_model, d_k) → (T, d_k)", "(T, d_k)"}},
        {stage_id::v,
         {"(5, 16) @ (16, 4) → (5, 4)", "(T, d_model) @ (d_model, d_v) → (T, d_v)", "(T, d_v)"}},
        {stage_id::scores, {"(5, 4) @ (4, 5) → (5, 5)", "(T, d_k) @ (d_k, T) → (T, T)", "(T, T)"}},
        {stage_id::scaled, {"(5, 5) ÷ √4 → (5, 5)", "(T, T) ÷ √d_k → (T, T)", "(T, T)"}},
        {stage_id::weights, {"softmax(5, 5) → (5, 5)", "softmax(T, T) → (T, T)", "(T, T)"}},
        {stage_id::head, {"(5, 5) @ (5, 4) → (5, 4)", "(T, T) @ (T, d_v) → (T, d_v)", "(T, d_v)"}},
        {stage_id::concat, {"4 × (5, 4) → (5, 16)", "h × (T, d_v) → (T, h·d_v)", "(T, h·d_v)"}},
        {stage_id::output,
         {"(5, 16) @ (16, 16) → (5, 16)", "(T, h·d_v) @ (h·d_v, d_model) → (T, d_model)",
          "(T, d_model)"}}};
    for (const stage &s : t.stages) {
        CAPTURE(label(s.id, s.head));
        CHECK(s.eq.numeric == wants.at(s.id).numeric);
        CHECK(s.eq.symbolic == wants.at(s.id).symbolic);
        CHECK(axes_text(s.ax) == wants.at(s.id).axes);
    }
    const trace causal = run_traced(make_problem(preset("lesson-causal")));
    const stage &masked = stage_of(causal, stage_id::masked, 0);
    CHECK(masked.eq.numeric == "(4, 4) + (4, 4) → (4, 4)");
    CHECK(masked.eq.symbolic == "(T, T) + (T, T) → (T, T)");
    CHECK(axes_text(masked.ax) == "(T, T)");
    REQUIRE(masked.operands.size() == 2);
    CHECK(masked.operands[0].name == "scaled");
    CHECK(masked.operands[1].name == "M");
    CHECK(axes_text(masked.operands[1].ax) == "(T, T)");
}

TEST_CASE("trace: numeric and symbolic equations match token for token", "[trace]") {
    for (const generated_spec &s : specs::every_kind()) {
        const problem p = make_problem(s);
        INFO(check::describe(p.config));
        for (const stage &st : run_traced(p).stages) {
            CAPTURE(label(st.id, st.head), st.eq.numeric, st.eq.symbolic);
            CHECK(words(st.eq.numeric) == words(st.eq.symbolic));
        }
    }
}
