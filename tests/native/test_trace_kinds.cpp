// The trace of every kind (self, causal, grouped-query, cross ± validKeys, encoder layer): the
// budget's prediction equals what is recorded, stages come in the kind's order, and equations
// and axes use the kind's symbols (T_q and T_kv in cross-attention, d_ff in the encoder).
#include <catch2/catch.hpp>

#include <map>

#include "attention/engine.hpp"
#include "attention/presets.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;
using check::label;
using check::stage_of;

namespace {

// The size a symbol stands for in config c.
std::size_t size_of(const std::string &symbol, const attention_config &c) {
    const std::map<std::string, std::size_t> sizes{
        {"T", c.seq_len},   {"T_q", c.seq_len},
        {"T_kv", c.kv_len}, {"d_model", c.d_model},
        {"d_k", c.d_k},     {"d_v", c.d_v},
        {"d_ff", c.d_ff},   {"1", 1},
        {"h", c.num_heads}, {"h·d_v", c.num_heads * c.d_v}};
    INFO("symbol " << symbol);
    REQUIRE(sizes.count(symbol) == 1);
    return sizes.at(symbol);
}

void append(std::vector<std::string> &to, std::initializer_list<const char *> ids, int h) {
    for (const char *id : ids)
        to.push_back(h < 0 ? id : std::string(id) + "/" + std::to_string(h));
}

} // namespace

TEST_CASE("trace kinds: every stage's and operand's shape is what its axes name",
          "[trace][kinds]") {
    for (const generated_spec &s : specs::every_kind()) {
        const trace t = run_traced(make_problem(s));
        INFO(check::describe(t.config));
        for (const stage &st : t.stages) {
            CAPTURE(label(st.id, st.head), st.ax.rows, st.ax.cols);
            CHECK(rows(st.values) == size_of(st.ax.rows, t.config));
            CHECK(cols(st.values) == size_of(st.ax.cols, t.config));
            // The symbolic equation ends with the result's axes.
            const std::string tail = "(" + st.ax.rows + ", " + st.ax.cols + ")";
            CHECK(st.eq.symbolic.substr(st.eq.symbolic.size() - tail.size()) == tail);
            for (const operand &o : st.operands) {
                CAPTURE(o.name, o.head, o.ax.rows, o.ax.cols);
                CHECK(rows(o.values) == size_of(o.ax.rows, t.config));
                CHECK(cols(o.values) == size_of(o.ax.cols, t.config));
            }
        }
    }
}

TEST_CASE("trace kinds: cross-attention's stage order", "[trace][kinds][cross]") {
    const trace t = run_traced(make_problem(specs::cross(2, 4, 8, 2, 4, 4, 3)));
    std::vector<std::string> want{"x_q", "x_kv"};
    for (int h = 0; h < 2; ++h)
        append(want, {"q", "k", "v", "scores", "scaled", "masked", "weights", "head"}, h);
    append(want, {"concat", "output"}, -1);
    CHECK(check::labels(t) == want);
    const trace unpadded = run_traced(make_problem(specs::cross(2, 4, 8, 2, 4, 4)));
    CHECK(check::labels(unpadded).size() == want.size() - 2); // no masked stage without padding
}

TEST_CASE("trace kinds: grouped-query stage order projects K and V once per group",
          "[trace][kinds][gqa]") {
    // 4 query heads, 2 K/V heads: k and v appear with heads 0 and 2 only.
    const trace t = run_traced(make_problem(specs::self(3, 8, 4, 2, 2, true, true, 2)));
    std::vector<std::string> want{"x"};
    for (int h = 0; h < 4; ++h) {
        append(want, {"q"}, h);
        if (h % 2 == 0)
            append(want, {"k", "v"}, h);
        append(want, {"scores", "scaled", "masked", "weights", "head"}, h);
    }
    append(want, {"concat", "output"}, -1);
    CHECK(check::labels(t) == want);
}

TEST_CASE("trace kinds: the encoder layer's stage order", "[trace][kinds][encoder]") {
    const trace t = run_traced(make_problem(specs::encoder(3, 4, 2, 6)));
    std::vector<std::string> want{"x"};
    for (int h = 0; h < 2; ++h)
        append(want, {"q", "k", "v", "scores", "scaled", "weights", "head"}, h);
    append(want,
           {"concat", "output", "residual1", "norm1", "ffn_pre", "ffn_hidden", "ffn_out",
            "residual2", "norm2"},
           -1);
    CHECK(check::labels(t) == want);
}

TEST_CASE("trace kinds: cross-attention's equations use T_q and T_kv", "[trace][kinds][cross]") {
    // T_q = 2, T_kv = 4 (3 valid), D = 8, H = 2, DK = 3, DV = 5.
    const trace t = run_traced(make_problem(specs::cross(2, 4, 8, 2, 3, 5, 3)));
    const std::map<stage_id, std::pair<const char *, const char *>> want{
        {stage_id::x_q, {"(2, 8)", "(T_q, d_model)"}},
        {stage_id::x_kv, {"(4, 8)", "(T_kv, d_model)"}},
        {stage_id::q, {"(2, 8) @ (8, 3) → (2, 3)", "(T_q, d_model) @ (d_model, d_k) → (T_q, d_k)"}},
        {stage_id::k,
         {"(4, 8) @ (8, 3) → (4, 3)", "(T_kv, d_model) @ (d_model, d_k) → (T_kv, d_k)"}},
        {stage_id::v,
         {"(4, 8) @ (8, 5) → (4, 5)", "(T_kv, d_model) @ (d_model, d_v) → (T_kv, d_v)"}},
        {stage_id::scores, {"(2, 3) @ (3, 4) → (2, 4)", "(T_q, d_k) @ (d_k, T_kv) → (T_q, T_kv)"}},
        {stage_id::scaled, {"(2, 4) ÷ √3 → (2, 4)", "(T_q, T_kv) ÷ √d_k → (T_q, T_kv)"}},
        {stage_id::masked, {"(2, 4) + (2, 4) → (2, 4)", "(T_q, T_kv) + (T_q, T_kv) → (T_q, T_kv)"}},
        {stage_id::weights, {"softmax(2, 4) → (2, 4)", "softmax(T_q, T_kv) → (T_q, T_kv)"}},
        {stage_id::head, {"(2, 4) @ (4, 5) → (2, 5)", "(T_q, T_kv) @ (T_kv, d_v) → (T_q, d_v)"}},
        {stage_id::concat, {"2 × (2, 5) → (2, 10)", "h × (T_q, d_v) → (T_q, h·d_v)"}},
        {stage_id::output,
         {"(2, 10) @ (10, 8) → (2, 8)", "(T_q, h·d_v) @ (h·d_v, d_model) → (T_q, d_model)"}}};
    for (const stage &s : t.stages) {
        CAPTURE(label(s.id, s.head));
        CHECK(s.eq.numeric == want.at(s.id).first);
        CHECK(s.eq.symbolic == want.at(s.id).second);
    }
    const stage &k = stage_of(t, stage_id::k, 0);
    CHECK(k.operands.at(0).name == "X_kv");
    CHECK(stage_of(t, stage_id::q, 1).operands.at(0).name == "X_q");
    CHECK(stage_of(t, stage_id::masked, 1).operands.at(1).ax.cols == "T_kv");
}

TEST_CASE("trace kinds: the encoder layer's equations use d_ff", "[trace][kinds][encoder]") {
    // T = 3, D = 4, H = 2, DFF = 6.
    const trace t = run_traced(make_problem(specs::encoder(3, 4, 2, 6)));
    const std::map<stage_id, std::pair<const char *, const char *>> want{
        {stage_id::residual1,
         {"(3, 4) + (3, 4) → (3, 4)", "(T, d_model) + (T, d_model) → (T, d_model)"}},
        {stage_id::norm1, {"norm(3, 4) → (3, 4)", "norm(T, d_model) → (T, d_model)"}},
        {stage_id::ffn_pre,
         {"(3, 4) @ (4, 6) + (6) → (3, 6)", "(T, d_model) @ (d_model, d_ff) + (d_ff) → (T, d_ff)"}},
        {stage_id::ffn_hidden, {"ReLU(3, 6) → (3, 6)", "ReLU(T, d_ff) → (T, d_ff)"}},
        {stage_id::ffn_out,
         {"(3, 6) @ (6, 4) + (4) → (3, 4)",
          "(T, d_ff) @ (d_ff, d_model) + (d_model) → (T, d_model)"}},
        {stage_id::residual2,
         {"(3, 4) + (3, 4) → (3, 4)", "(T, d_model) + (T, d_model) → (T, d_model)"}},
        {stage_id::norm2, {"norm(3, 4) → (3, 4)", "norm(T, d_model) → (T, d_model)"}}};
    for (const auto &[id, eq] : want) {
        const stage &s = stage_of(t, id);
        CAPTURE(name_of(id));
        CHECK(s.eq.numeric == eq.first);
        CHECK(s.eq.symbolic == eq.second);
    }
    const stage &pre = stage_of(t, stage_id::ffn_pre);
    REQUIRE(pre.operands.size() == 3);
    CHECK(pre.operands[1].name == "W1");
    CHECK(pre.operands[2].name == "b1");
    CHECK(pre.operands[2].ax.rows == "1");
    CHECK(pre.operands[2].ax.cols == "d_ff");
}
