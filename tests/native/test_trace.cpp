// The trace: stage ids in the lesson's order, shapes and equations, the recorded values
// agreeing with what the passes return, and trace_value_count agreeing with the recording.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include <xtensor/xbuilder.hpp>

#include "attention/attention.hpp"
#include "attention/engine.hpp"
#include "attention/ops.hpp"
#include "attention/spec.hpp"
#include "check.hpp"

using namespace attention;

namespace {

std::string label(const std::string &id, int head) {
    return head == no_head ? id : id + "/" + std::to_string(head);
}

// x, per head q k v scores scaled (masked) weights head, then concat output with W_O.
std::vector<std::string> expected_ids(const attention_config &c) {
    std::vector<std::string> ids{"x"};
    for (int h = 0; h < int(c.num_heads); ++h) {
        for (const char *id : {"q", "k", "v", "scores", "scaled"})
            ids.push_back(label(id, h));
        if (c.causal)
            ids.push_back(label("masked", h));
        ids.push_back(label("weights", h));
        ids.push_back(label("head", h));
    }
    if (c.output_projection)
        ids.insert(ids.end(), {"concat", "output"});
    return ids;
}

std::vector<std::string> ids_of(const trace &t) {
    std::vector<std::string> ids;
    for (const stage &s : t.stages)
        ids.push_back(label(s.id, s.head));
    return ids;
}

const stage &find(const trace &t, const std::string &id, int head = no_head) {
    for (const stage &s : t.stages)
        if (s.id == id && s.head == head)
            return s;
    FAIL("no stage " << label(id, head));
    throw;
}

const matrix &operand_of(const stage &s, const std::string &name, int head) {
    for (const operand &o : s.operands)
        if (o.name == name && o.head == head)
            return o.values;
    FAIL("stage " << label(s.id, s.head) << " has no operand " << label(name, head));
    throw;
}

generated_spec spec(double t, double d, double h, double dk, double dv, bool causal, bool w_o) {
    generated_spec s;
    s.seq_len = t, s.d_model = d, s.num_heads = h, s.d_k = dk, s.d_v = dv;
    s.causal = causal, s.output_projection = w_o;
    return s;
}

std::vector<generated_spec> configs() {
    std::vector<generated_spec> out;
    for (const bool causal : {false, true})
        for (const bool w_o : {false, true}) {
            out.push_back(spec(5, 16, 4, 4, 4, causal, w_o));
            out.push_back(spec(7, 12, 3, 5, 2, causal, w_o)); // d_k ≠ d_v
            out.push_back(spec(3, 6, 1, 2, 9, causal, w_o));  // one head, d_v > d_model
        }
    return out;
}

std::string describe(const attention_config &c) {
    std::ostringstream o;
    o << "T " << c.seq_len << ", D " << c.d_model << ", H " << c.num_heads << ", DK " << c.d_k
      << ", DV " << c.d_v << (c.causal ? ", causal" : "") << (c.output_projection ? ", W_O" : "");
    return o.str();
}

std::size_t words(const std::string &s) {
    std::istringstream in(s);
    std::size_t n = 0;
    for (std::string w; in >> w;)
        ++n;
    return n;
}

} // namespace

TEST_CASE("trace: stage ids come in the lesson's order", "[trace]") {
    for (const generated_spec &s : configs()) {
        const problem p = make_problem(s);
        INFO(describe(p.config));
        CHECK(ids_of(run_traced(p)) == expected_ids(p.config));
    }
}

TEST_CASE("trace: trace_value_count equals the doubles recorded", "[trace]") {
    for (const generated_spec &s : configs()) {
        const problem p = make_problem(s);
        INFO(describe(p.config));
        const trace t = run_traced(p);
        std::size_t recorded = 0;
        for (const stage &st : t.stages) {
            recorded += st.values.size();
            for (const operand &o : st.operands)
                recorded += o.values.size();
        }
        CHECK(trace_value_count(p.config) == recorded);
    }
}

TEST_CASE("trace: recorded values equal what the passes return", "[trace]") {
    for (const generated_spec &s : configs()) {
        const problem p = make_problem(s);
        INFO(describe(p.config));
        trace t;
        const matrix returned = multi_head_attention(p.params, p.config, &t);
        const attention_config &c = p.config;
        check::tensor("x", find(t, "x").values, p.params.x, 0);
        std::vector<matrix> heads;
        for (int h = 0; h < int(c.num_heads); ++h) {
            CAPTURE(h);
            const head_result r =
                self_attention(p.params.x, p.params.w_q[h], p.params.w_k[h], p.params.w_v[h], c);
            check::tensor("self_attention output = head stage", find(t, "head", h).values, r.output,
                          0);
            check::tensor("self_attention weights = weights stage", find(t, "weights", h).values,
                          r.weights, 0);
            check::tensor("W_Q operand", operand_of(find(t, "q", h), "W_Q", h), p.params.w_q[h], 0);
            check::tensor("W_K operand", operand_of(find(t, "k", h), "W_K", h), p.params.w_k[h], 0);
            check::tensor("W_V operand", operand_of(find(t, "v", h), "W_V", h), p.params.w_v[h], 0);
            check::tensor("Q operand = q", operand_of(find(t, "scores", h), "Q", h),
                          find(t, "q", h).values, 0);
            check::tensor("K operand = k", operand_of(find(t, "scores", h), "K", h),
                          find(t, "k", h).values, 0);
            check::tensor("V operand = v", operand_of(find(t, "head", h), "V", h),
                          find(t, "v", h).values, 0);
            check::tensor("weights operand", operand_of(find(t, "head", h), "weights", h),
                          r.weights, 0);
            heads.push_back(r.output);
        }
        check::tensor("forward = returned", forward(p), returned, 0);
        if (!c.output_projection) {
            check::tensor("returned = heads side by side", returned, concat_columns(heads), 0);
            continue;
        }
        const stage &out = find(t, "output");
        check::tensor("returned = output stage", returned, out.values, 0);
        check::tensor("concat stage", find(t, "concat").values, concat_columns(heads), 0);
        check::tensor("concat operand", operand_of(out, "concat", no_head),
                      find(t, "concat").values, 0);
        check::tensor("W_O operand", operand_of(out, "W_O", no_head), p.params.w_o, 0);
        matrix sum = xt::zeros<double>(out.values.shape());
        for (int h = 0; h < int(c.num_heads); ++h) {
            check::tensor("concat's head operand", operand_of(find(t, "concat"), "head", h),
                          heads[h], 0);
            sum += operand_of(out, "contribution", h);
        }
        check::tensor("sum of contributions = output", sum, out.values, 1e-12);
    }
}

TEST_CASE("trace: shapes of every stage when d_k differs from d_v", "[trace]") {
    // T = 7, D = 12, H = 3, DK = 5, DV = 2, causal, with W_O (H·DV = 6).
    const problem p = make_problem(spec(7, 12, 3, 5, 2, true, true));
    const trace t = run_traced(p);
    const std::map<std::string, std::vector<std::size_t>> want{
        {"x", {7, 12}},     {"q", {7, 5}},      {"k", {7, 5}},      {"v", {7, 2}},
        {"scores", {7, 7}}, {"scaled", {7, 7}}, {"masked", {7, 7}}, {"weights", {7, 7}},
        {"head", {7, 2}},   {"concat", {7, 6}}, {"output", {7, 12}}};
    for (const stage &s : t.stages) {
        CAPTURE(label(s.id, s.head));
        CHECK(std::vector<std::size_t>{rows(s.values), cols(s.values)} == want.at(s.id));
    }
    CHECK(find(t, "v", 1).eq.numeric == "(7, 12) @ (12, 2) → (7, 2)");
    CHECK(find(t, "q", 1).eq.numeric == "(7, 12) @ (12, 5) → (7, 5)");
    CHECK(find(t, "scores", 2).eq.numeric == "(7, 5) @ (5, 7) → (7, 7)");
    CHECK(find(t, "scaled", 0).eq.numeric == "(7, 7) ÷ √5 → (7, 7)");
    CHECK(find(t, "concat").eq.numeric == "3 × (7, 2) → (7, 6)");
    CHECK(find(t, "output").eq.numeric == "(7, 6) @ (6, 12) → (7, 12)");
    const matrix &w_o = operand_of(find(t, "output"), "W_O", no_head);
    CHECK(std::vector<std::size_t>{rows(w_o), cols(w_o)} == std::vector<std::size_t>{6, 12});
}

TEST_CASE("trace: equations of the lesson's multi-head example", "[trace]") {
    const trace t = run_traced(make_problem(preset("lesson-multi-head")));
    const std::map<std::string, std::pair<std::string, std::string>> want{
        {"x", {"(5, 16)", "(T, d_model)"}},
        {"q", {"(5, 16) @ (16, 4) → (5, 4)", "(T, d_model) @ (d_model, d_k) → (T, d_k)"}},
        {"k", {"(5, 16) @ (16, 4) → (5, 4)", "(T, d_model) @ (d_model, d_k) → (T, d_k)"}},
        {"v", {"(5, 16) @ (16, 4) → (5, 4)", "(T, d_model) @ (d_model, d_v) → (T, d_v)"}},
        {"scores", {"(5, 4) @ (4, 5) → (5, 5)", "(T, d_k) @ (d_k, T) → (T, T)"}},
        {"scaled", {"(5, 5) ÷ √4 → (5, 5)", "(T, T) ÷ √d_k → (T, T)"}},
        {"weights", {"softmax(5, 5) → (5, 5)", "softmax(T, T) → (T, T)"}},
        {"head", {"(5, 5) @ (5, 4) → (5, 4)", "(T, T) @ (T, d_v) → (T, d_v)"}},
        {"concat", {"4 × (5, 4) → (5, 16)", "h × (T, d_v) → (T, h·d_v)"}},
        {"output",
         {"(5, 16) @ (16, 16) → (5, 16)", "(T, h·d_v) @ (h·d_v, d_model) → (T, d_model)"}}};
    for (const stage &s : t.stages) {
        CAPTURE(label(s.id, s.head));
        CHECK(s.eq.numeric == want.at(s.id).first);
        CHECK(s.eq.symbolic == want.at(s.id).second);
    }
    const trace causal = run_traced(make_problem(preset("lesson-causal")));
    CHECK(find(causal, "masked", 0).eq.numeric == "(4, 4) + mask (4, 4) → (4, 4)");
    CHECK(find(causal, "masked", 0).eq.symbolic == "(T, T) + mask (T, T) → (T, T)");
}

TEST_CASE("trace: numeric and symbolic equations match token for token", "[trace]") {
    for (const generated_spec &s : configs()) {
        const problem p = make_problem(s);
        INFO(describe(p.config));
        for (const stage &st : run_traced(p).stages) {
            CAPTURE(label(st.id, st.head), st.eq.numeric, st.eq.symbolic);
            CHECK(words(st.eq.numeric) == words(st.eq.symbolic));
        }
    }
}
