// Grouped-query and multi-query attention: query head i reads K/V head i / (H / H_kv), the K/V
// heads are projected once and drawn after every W_Q, and H_kv = H is plain multi-head attention.
#include <catch2/catch.hpp>

#include "attention/engine.hpp"
#include "attention/rng.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;
using check::label;
using check::m;
using check::operand_of;
using check::stage_of;

namespace {

// The k (or v) stage of K/V head g.
const stage &kv_stage(const trace &t, stage_id id, int g) {
    for (const stage &s : t.stages)
        if (s.id == id && s.kv_head == g)
            return s;
    FAIL("no " << name_of(id) << " stage for K/V head " << g);
    throw;
}

} // namespace

TEST_CASE("gqa: numKvHeads = numHeads gives exactly the multi-head trace", "[gqa]") {
    for (const bool causal : {false, true}) {
        CAPTURE(causal);
        const trace mha = run_traced(make_problem(specs::self(5, 16, 4, 4, 4, causal)));
        const trace same = run_traced(make_problem(specs::self(5, 16, 4, 4, 4, causal, true, 4)));
        REQUIRE(check::labels(same) == check::labels(mha));
        for (std::size_t i = 0; i < mha.stages.size(); ++i) {
            const stage &a = same.stages[i], &b = mha.stages[i];
            CAPTURE(label(a.id, a.head));
            CHECK(a.kv_head == b.kv_head);
            CHECK(a.eq.numeric == b.eq.numeric);
            check::tensor("values", a.values, b.values, 0);
            REQUIRE(a.operands.size() == b.operands.size());
            for (std::size_t j = 0; j < a.operands.size(); ++j)
                check::tensor(a.operands[j].name, a.operands[j].values, b.operands[j].values, 0);
        }
    }
}

TEST_CASE("gqa: k and v appear once per K/V head, with its first query head", "[gqa]") {
    struct want_kv {
        double kv_heads;
        std::vector<std::pair<int, int>> k_heads; // (head, kv_head) of each k stage, in order
    };
    for (const want_kv &w : {want_kv{2, {{0, 0}, {2, 1}}}, want_kv{1, {{0, 0}}},
                             want_kv{4, {{0, 0}, {1, 1}, {2, 2}, {3, 3}}}}) {
        const trace t =
            run_traced(make_problem(specs::self(5, 16, 4, 4, 4, false, true, w.kv_heads)));
        INFO(check::describe(t.config));
        std::vector<std::pair<int, int>> k_heads, v_heads;
        for (const stage &s : t.stages) {
            if (s.id == stage_id::k)
                k_heads.push_back({s.head, s.kv_head});
            if (s.id == stage_id::v)
                v_heads.push_back({s.head, s.kv_head});
        }
        CHECK(k_heads == w.k_heads);
        CHECK(v_heads == w.k_heads);
        // Every per-head stage names the group its head reads: i / (4 / H_kv), contiguous.
        const int group = 4 / int(w.kv_heads);
        for (const stage &s : t.stages) {
            CAPTURE(label(s.id, s.head));
            CHECK(s.kv_head == (s.head == no_head ? no_head : s.head / group));
        }
    }
}

TEST_CASE("gqa: query heads of one group read the same K and V", "[gqa]") {
    for (const double kv_heads : {1.0, 2.0}) {
        const trace t = run_traced(make_problem(specs::self(6, 8, 4, 3, 2, true, true, kv_heads)));
        INFO(check::describe(t.config));
        for (int h = 0; h < 4; ++h) {
            CAPTURE(h);
            const int group = 4 / int(kv_heads), g = h / group;
            const stage &scores = stage_of(t, stage_id::scores, h);
            const stage &head = stage_of(t, stage_id::head, h);
            // K and V carry the head of the k and v stages they come from: g's first query head.
            check::tensor("K operand", operand_of(scores, "K", g * group),
                          kv_stage(t, stage_id::k, g).values, 0);
            check::tensor("V operand", operand_of(head, "V", g * group),
                          kv_stage(t, stage_id::v, g).values, 0);
            CHECK(kv_stage(t, stage_id::k, g).head == g * group);
        }
        if (kv_heads == 2.0) { // the two groups' keys differ
            const matrix &k0 = kv_stage(t, stage_id::k, 0).values;
            const matrix &k1 = kv_stage(t, stage_id::k, 1).values;
            CHECK(check::compare(k0, k1, 0).bad > 0);
        }
    }
}

TEST_CASE("gqa: weights are drawn X, every W_Q, every W_K, every W_V, then W_O", "[gqa][rng]") {
    for (const double kv_heads : {1.0, 2.0, 4.0}) {
        const generated_spec s = specs::self(3, 8, 4, 2, 3, false, true, kv_heads);
        const problem p = make_problem(s);
        INFO(check::describe(p.config));
        REQUIRE(p.params.w_q.size() == 4);
        REQUIRE(p.params.w_k.size() == std::size_t(kv_heads));
        REQUIRE(p.params.w_v.size() == std::size_t(kv_heads));
        numpy_random rng(42);
        check::tensor("X", p.params.x, rng.randn(3, 8), 0);
        for (int i = 0; i < 4; ++i)
            check::tensor("W_Q", p.params.w_q[i], rng.randn(8, 2) * 0.1, 0);
        for (std::size_t g = 0; g < p.params.w_k.size(); ++g)
            check::tensor("W_K", p.params.w_k[g], rng.randn(8, 2) * 0.1, 0);
        for (std::size_t g = 0; g < p.params.w_v.size(); ++g)
            check::tensor("W_V", p.params.w_v[g], rng.randn(8, 3) * 0.1, 0);
        check::tensor("W_O", p.params.w_o, rng.randn(12, 8) * 0.1, 0);
        const trace t = run_traced(p);
        for (std::size_t g = 0; g < p.params.w_k.size(); ++g) {
            const stage &k = kv_stage(t, stage_id::k, int(g));
            check::tensor("W_K operand", operand_of(k, "W_K", k.head), p.params.w_k[g], 0);
        }
    }
}

TEST_CASE("gqa: head i reads K/V head i / 2 of 2, by hand", "[gqa][known]") {
    // X = I (T = D = 2), so K_g = W_K[g] and V_g = W_V[g]. W_Q = 0 makes every score 0 and
    // every weight 1/2: head i's output is the mean of its V's rows in both rows.
    // W_V[0] = [[1], [10]] → mean 5.5;  W_V[1] = [[2], [20]] → mean 11.
    // Contiguous groups give heads [5.5, 5.5, 11, 11]; tiled ones would give [5.5, 11, 5.5, 11].
    explicit_spec s;
    s.x = {{1, 0}, {0, 1}};
    s.w_q = std::vector<row_list>(4, row_list{{0}, {0}});
    s.w_k = {{{1}, {2}}, {{3}, {4}}};
    s.w_v = {{{1}, {10}}, {{2}, {20}}};
    const problem p = make_problem(s);
    CHECK(p.config.num_kv_heads == 2);
    const trace t = run_traced(p);
    const double k_of_head[4][2] = {{1, 2}, {1, 2}, {3, 4}, {3, 4}};
    const int k_owner[4] = {0, 0, 2, 2}; // the query head whose k stage K comes from
    for (int h = 0; h < 4; ++h) {
        CAPTURE(h);
        const matrix want_k = m({{k_of_head[h][0]}, {k_of_head[h][1]}});
        check::tensor("K", operand_of(stage_of(t, stage_id::scores, h), "K", k_owner[h]), want_k,
                      0);
    }
    check::tensor("output", forward(p), m({{5.5, 5.5, 11, 11}, {5.5, 5.5, 11, 11}}), 0);
}

TEST_CASE("gqa: multi-query, one K/V head for all, by hand", "[gqa][known]") {
    // As above with a single K/V head W_V = [[1], [3]]: every head outputs the mean, 2.
    explicit_spec s;
    s.x = {{1, 0}, {0, 1}};
    s.w_q = std::vector<row_list>(4, row_list{{0}, {0}});
    s.w_k = {{{1}, {2}}};
    s.w_v = {{{1}, {3}}};
    const problem p = make_problem(s);
    CHECK(p.config.num_kv_heads == 1);
    check::tensor("output", forward(p), m({{2, 2, 2, 2}, {2, 2, 2, 2}}), 0);
}

TEST_CASE("gqa: K/V parameters and cache values shrink with the K/V heads", "[gqa][known]") {
    const problem p = make_problem(specs::self(5, 16, 4, 4, 4, false, true, 2));
    const attention_config &c = p.config;
    CHECK(group_size(c) == 2);
    // 2 K/V heads · 16 · (4 + 4) = 256 parameters; multi-head would have 4 · 16 · 8 = 512.
    CHECK(kv_parameter_count(c, c.num_kv_heads) == 256);
    CHECK(kv_parameter_count(c, c.num_heads) == 512);
    // 5 tokens · 2 K/V heads · (4 + 4) = 80 cached values; multi-head 5 · 4 · 8 = 160.
    CHECK(kv_cache_values(c, c.num_kv_heads) == 80);
    CHECK(kv_cache_values(c, c.num_heads) == 160);
}
