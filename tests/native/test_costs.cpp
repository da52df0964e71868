// What a pass costs, by hand: h heads of d_model / h against one head of d_model (the same
// multiply-adds, h times the exponentials); the slow-memory traffic of standard attention and
// of the tiled loop (the tiles a causal mask skips read nothing); the training passes a causal
// mask saves; and the check behind that: row t of a causal pass is the pass over 0 … t alone,
// which fails without the mask.
#include <catch2/catch.hpp>

#include "attention/spec_reader.hpp"
#include "attention/costs.hpp"
#include "attention/engine.hpp"
#include "attention/fields.hpp"
#include "attention/presets.hpp"

using namespace attention;

TEST_CASE("costs: four heads of 4 cost what one head of 16 costs, with four times the exps",
          "[costs][known]") {
    const head_split_costs c = head_split(make_problem(preset("lesson-multi-head")).config);
    // T = 5, d_model = 16, h = 4, d_k = d_v = 4, with W_O.
    CHECK(c.heads.projections == 5 * 16 * 4 * 4 + 5 * 16 * 4 * (4 + 4));
    CHECK(c.single.projections == 5 * 16 * 16 + 5 * 16 * (16 + 16));
    CHECK(c.heads.scores == 4 * 5 * 5 * 4);
    CHECK(c.single.scores == 5 * 5 * 16);
    CHECK(c.heads.values == c.single.values);
    CHECK(c.heads.output == 5 * 16 * 16);
    CHECK(c.single.output == c.heads.output);
    CHECK(c.heads.total == 3840 + 400 + 400 + 1280);
    CHECK(c.single.total == c.heads.total);
    CHECK(c.heads.exps == 4 * 25);
    CHECK(c.single.exps == 25);
}

TEST_CASE("costs: slow-memory traffic, standard against tiled", "[costs][known]") {
    attention_config c = make_problem(preset("flash-causal")).config;
    // T = 5 in tiles of 2 × 2 under the causal mask: query blocks 0–1, 2–3 and 4 read key
    // blocks 0–1; 0–1 and 2–3; 0–1, 2–3 and 4: 2 + 4 + 5 = 11 keys.
    const double t = double(c.seq_len), dk = double(c.d_k), dv = double(c.d_v);
    REQUIRE((c.block_rows == 2 && c.block_cols == 2 && c.seq_len == 5));
    slow_memory_traffic m = memory_traffic(c);
    CHECK(m.standard == 2 * t * dk + 2 * t * dv + 4 * t * t);
    CHECK(m.tiled == t * dk + 11 * (dk + dv) + t * dv);
    c.causal = false; // every block reads all 5 keys
    CHECK(memory_traffic(c).tiled == t * dk + 3 * 5 * (dk + dv) + t * dv);
    // The lesson's 2048 tokens, d = 64, tiles of 256: 8 blocks of queries each read all of K, V.
    c.seq_len = c.kv_len = 2048;
    c.d_k = c.d_v = 64;
    c.block_rows = c.block_cols = 256;
    m = memory_traffic(c);
    CHECK(m.standard == 4 * 2048.0 * 64 + 4 * 2048.0 * 2048);       // 17 301 504
    CHECK(m.tiled == 2048.0 * 64 + 8 * 2048.0 * 128 + 2048.0 * 64); // 2 359 296
}

TEST_CASE("costs: training passes with and without a causal mask", "[costs][known]") {
    const training_passes p = causal_training_passes(32, 1024);
    CHECK(p.without_mask == 32768);
    CHECK(p.with_mask == 32);
    CHECK(causal_training_passes(1, 6).without_mask == 6);
}

TEST_CASE("costs: row t of a causal pass is the pass over tokens 0 … t, and without the mask not",
          "[costs][property]") {
    const problem causal = make_problem(preset("lesson-causal"));
    const trace t = run_traced(causal);
    REQUIRE(t.checks.causal_prefix.size() == causal.config.seq_len);
    for (double d : t.checks.causal_prefix)
        CHECK(d <= 1e-12);
    problem open = causal;
    open.config.causal = false;
    const std::vector<double> seen =
        causal_prefix_differences(open.params, open.config, forward(open));
    for (std::size_t i = 0; i + 1 < seen.size(); ++i) // a prefix misses the later keys
        CHECK(seen[i] > 1e-3);
    CHECK(seen.back() <= 1e-12); // the whole sequence is its own prefix
    // No check where a prefix-LM lets the first tokens see ahead, nor without any mask.
    CHECK(run_traced(problem_of_preset("masks-prefix", true)).checks.causal_prefix.empty());
    CHECK(run_traced(make_problem(preset("lesson-multi-head"))).checks.causal_prefix.empty());
    // A window and packed documents keep each row its prefix's.
    for (const char *id :
         {"masks-window", "masks-documents", "positions-rope", "positions-alibi"}) {
        const trace w = run_traced(problem_of_preset(id, true));
        CAPTURE(id);
        REQUIRE(w.checks.causal_prefix.size() == w.config.seq_len);
        for (double d : w.checks.causal_prefix)
            CHECK(d <= 1e-12);
    }
}
