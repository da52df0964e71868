// The traces whose stages carry a step: decoding (one step per token) and FlashAttention (one
// per tile). The budget's prediction equals what is recorded, causal skipping included; stages
// come in loop order; equations and axes use the step's own sizes (t, t+1, B_r, B_c).
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

// The size a symbol stands for at stage s of a trace with config c.
std::size_t size_of(const std::string &symbol, const attention_config &c, const stage &s) {
    const std::size_t t = s.step == no_step ? 0 : std::size_t(s.step);
    std::map<std::string, std::size_t> sizes{{"T", c.seq_len}, {"d_model", c.d_model},
                                             {"d_k", c.d_k},   {"d_v", c.d_v},
                                             {"1", 1},         {"h·d_v", c.num_heads * c.d_v}};
    if (c.kind == problem_kind::kv_cache)
        sizes.insert({{"t", t}, {"t+1", t + 1}});
    if (s.tile)
        sizes.insert({{"B_r", s.tile->query_end - s.tile->query_begin},
                      {"B_c", s.tile->key_end - s.tile->key_begin}});
    INFO("symbol " << symbol);
    REQUIRE(sizes.count(symbol) == 1);
    return sizes.at(symbol);
}

} // namespace

TEST_CASE("trace steps: value counts equal the doubles recorded, causal tiles skipped",
          "[trace][decode][flash]") {
    std::vector<generated_spec> all = specs::stepped_kinds();
    for (double b_r = 1; b_r <= 7; ++b_r)
        for (double b_c = 1; b_c <= 7; ++b_c)
            for (const bool causal : {false, true})
                all.push_back(specs::flash(7, 4, 2, 3, b_r, b_c, causal));
    for (const double h_kv : {1.0, 2.0, 4.0})
        for (const bool w_o : {false, true})
            all.push_back(specs::decode(6, 8, 4, 2, 3, h_kv, w_o));
    for (const generated_spec &s : all) {
        const problem p = make_problem(s);
        INFO(check::describe(p.config));
        CHECK(trace_value_count(p.config) == recorded_value_count(run_traced(p)));
    }
}

TEST_CASE("trace steps: a decode step's stages, K/V once per group", "[trace][decode]") {
    // T = 3, 4 query heads, 2 K/V heads, W_O.
    const trace t = run_traced(make_problem(specs::decode(3, 8, 4, 2, 2, 2)));
    std::vector<std::string> want;
    for (int step = 0; step < 3; ++step) {
        const std::string at = "@" + std::to_string(step);
        want.push_back("x_t" + at);
        for (int h = 0; h < 4; ++h) {
            const std::string head = "/" + std::to_string(h) + at;
            want.push_back("q" + head);
            if (h % 2 == 0)
                for (const char *id : {"k_new", "v_new", "k_cache", "v_cache"})
                    want.push_back(id + head);
            for (const char *id : {"scores", "scaled", "weights", "head"})
                want.push_back(id + head);
        }
        want.insert(want.end(), {"concat" + at, "output" + at});
    }
    want.insert(want.end(), {"stacked", "causal_reference"});
    CHECK(check::labels(t) == want);
    for (const stage &s : t.stages) {
        CAPTURE(label(s.id, s.head, s.step));
        CHECK(s.kv_head == (s.head == no_head ? no_head : s.head / 2));
        CHECK_FALSE(s.tile.has_value());
    }
}

TEST_CASE("trace steps: every stage's and operand's shape is what its axes name",
          "[trace][decode][flash]") {
    for (const generated_spec &s : specs::stepped_kinds()) {
        const trace t = run_traced(make_problem(s));
        INFO(check::describe(t.config));
        for (const stage &st : t.stages) {
            CAPTURE(label(st.id, st.head, st.step), st.ax.rows, st.ax.cols);
            CHECK(rows(st.values) == size_of(st.ax.rows, t.config, st));
            CHECK(cols(st.values) == size_of(st.ax.cols, t.config, st));
            const std::string tail = "(" + st.ax.rows + ", " + st.ax.cols + ")";
            CHECK(st.eq.symbolic.substr(st.eq.symbolic.size() - tail.size()) == tail);
            for (const operand &o : st.operands) {
                CAPTURE(o.name, o.head, o.ax.rows, o.ax.cols);
                CHECK(rows(o.values) == size_of(o.ax.rows, t.config, st));
                CHECK(cols(o.values) == size_of(o.ax.cols, t.config, st));
            }
        }
    }
}

TEST_CASE("trace steps: decoding's equations at step 2 of kv-cache-gqa", "[trace][decode]") {
    // T 5, D 16, 4 heads of d_k = d_v = 4, 2 K/V heads; step 2 holds 3 tokens.
    const trace t = run_traced(make_problem(preset("kv-cache-gqa")));
    const std::pair<const stage *, std::pair<const char *, const char *>> want[] = {
        {&stage_of(t, stage_id::x_t, no_head, 2), {"(1, 16)", "(1, d_model)"}},
        {&stage_of(t, stage_id::q, 1, 2),
         {"(1, 16) @ (16, 4) → (1, 4)", "(1, d_model) @ (d_model, d_k) → (1, d_k)"}},
        {&stage_of(t, stage_id::k_new, 2, 2),
         {"(1, 16) @ (16, 4) → (1, 4)", "(1, d_model) @ (d_model, d_k) → (1, d_k)"}},
        {&stage_of(t, stage_id::k_cache, 2, 2),
         {"[(2, 4); (1, 4)] → (3, 4)", "[(t, d_k); (1, d_k)] → (t+1, d_k)"}},
        {&stage_of(t, stage_id::v_cache, 0, 2),
         {"[(2, 4); (1, 4)] → (3, 4)", "[(t, d_v); (1, d_v)] → (t+1, d_v)"}},
        {&stage_of(t, stage_id::scores, 3, 2),
         {"(1, 4) @ (4, 3) → (1, 3)", "(1, d_k) @ (d_k, t+1) → (1, t+1)"}},
        {&stage_of(t, stage_id::head, 3, 2),
         {"(1, 3) @ (3, 4) → (1, 4)", "(1, t+1) @ (t+1, d_v) → (1, d_v)"}},
        {&stage_of(t, stage_id::output, no_head, 2),
         {"(1, 16) @ (16, 16) → (1, 16)", "(1, h·d_v) @ (h·d_v, d_model) → (1, d_model)"}},
        {&stage_of(t, stage_id::stacked),
         {"5 × (1, 16) → (5, 16)", "T × (1, d_model) → (T, d_model)"}},
        {&stage_of(t, stage_id::causal_reference), {"(5, 16)", "(T, d_model)"}}};
    for (const auto &[s, eq] : want) {
        CAPTURE(label(s->id, s->head, s->step));
        CHECK(s->eq.numeric == eq.first);
        CHECK(s->eq.symbolic == eq.second);
    }
}

TEST_CASE("trace steps: the tiles' equations in flash-causal", "[trace][flash]") {
    // T 5, d_k = d_v = 4, 2 × 2 tiles; tile 5 is the last block's diagonal 1 × 1 tile.
    const trace t = run_traced(make_problem(preset("flash-causal")));
    const std::pair<const stage *, std::pair<const char *, const char *>> want[] = {
        {&stage_of(t, stage_id::tile_scores, 0, 5),
         {"(1, 4) @ (4, 1) ÷ √4 → (1, 1)", "(B_r, d_k) @ (d_k, B_c) ÷ √d_k → (B_r, B_c)"}},
        {&stage_of(t, stage_id::tile_max, 0, 1),
         {"max(μ, rowmax(2, 2)) → (2, 1)", "max(μ, rowmax(B_r, B_c)) → (B_r, 1)"}},
        {&stage_of(t, stage_id::tile_sum, 0, 3),
         {"α·Z + rowsum(1, 2) → (1, 1)", "α·Z + rowsum(B_r, B_c) → (B_r, 1)"}},
        {&stage_of(t, stage_id::tile_out, 0, 2),
         {"α·O + (2, 2) @ (2, 4) → (2, 4)", "α·O + (B_r, B_c) @ (B_c, d_v) → (B_r, d_v)"}},
        {&stage_of(t, stage_id::block_out, 0, 5),
         {"(1, 4) ÷ l → (1, 4)", "(B_r, d_v) ÷ l → (B_r, d_v)"}},
        {&stage_of(t, stage_id::stacked),
         {"3 × (2, 4) → (5, 4)", "blocks × (B_r, d_v) → (T, d_v)"}},
        {&stage_of(t, stage_id::reference), {"(5, 4)", "(T, d_v)"}}};
    for (const auto &[s, eq] : want) {
        CAPTURE(label(s->id, s->head, s->step));
        CHECK(s->eq.numeric == eq.first);
        CHECK(s->eq.symbolic == eq.second);
    }
    generated_spec unscaled = preset("flash-causal");
    unscaled.scale_scores = false;
    CHECK(stage_of(run_traced(make_problem(unscaled)), stage_id::tile_scores, 0, 0).eq.numeric ==
          "(2, 4) @ (4, 2) ÷ 1 → (2, 2)");
}
