// The presets the stepper opens with, and the lesson's table of real models.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "attention/spec_reader.hpp"
#include "attention/engine.hpp"
#include "attention/presets.hpp"
#include "attention/rng.hpp"
#include "check.hpp"

using namespace attention;
using Catch::Contains;

TEST_CASE("presets: every preset runs traced and forward, and they agree", "[presets]") {
    for (const preset_info &info : presets()) {
        CAPTURE(info.id);
        const problem p = problem_of_preset(info.id, true);
        const trace t = run_traced(p);
        REQUIRE_FALSE(t.stages.empty());
        // What forward returns: the final stage (norm2, output, or the one head without W_O);
        // decoding and tiling end with their stacked rows, then the reference they are checked
        // against; the backward pass with its gradients, after the forward pass's last stage.
        const bool checked =
            p.config.kind == problem_kind::kv_cache || p.config.kind == problem_kind::flash;
        const auto gradients = std::find_if(t.stages.begin(), t.stages.end(), [](const stage &s) {
            return s.id == stage_id::d_output;
        });
        const stage &result = checked                       ? check::stage_of(t, stage_id::stacked)
                              : gradients != t.stages.end() ? *std::prev(gradients)
                                                            : t.stages.back();
        check::tensor("forward = " + check::label(result.id, result.head), forward(p),
                      result.values, 0);
        CHECK(trace_value_count(p.config) == recorded_value_count(t));
    }
}

TEST_CASE("presets: ids are distinct, chapters match kinds, tokens label the rows", "[presets]") {
    std::set<std::string> ids;
    for (const preset_info &info : presets()) {
        CAPTURE(info.id);
        ids.insert(info.id);
        CHECK_FALSE(info.title.empty());
        CHECK(preset(info.id).seq_len == info.spec.seq_len);
        const problem_kind kind = info.spec.kind;
        const std::map<std::string, std::set<problem_kind>> kinds_of_chapter{
            {"attention", {problem_kind::self}},
            {"gqa", {problem_kind::self}},
            {"cross", {problem_kind::cross}},
            {"encoder-layer", {problem_kind::encoder_layer}},
            {"kv-cache", {problem_kind::kv_cache}},
            {"flash", {problem_kind::flash}},
            {"designed-heads", {problem_kind::designed}},
            {"trained-heads", {problem_kind::model}},
            {"positions", {problem_kind::self}},
            {"masks", {problem_kind::self}},
            {"modern", {problem_kind::self}},
            {"latent", {problem_kind::mla}},
            {"backward", {problem_kind::backward}}};
        REQUIRE(kinds_of_chapter.count(info.chapter) == 1);
        CHECK(kinds_of_chapter.at(info.chapter).count(kind) == 1);
        const std::size_t t = kind == problem_kind::designed ? info.spec.tokens.size()
                              : kind == problem_kind::model  ? info.spec.token_ids.size()
                                                             : std::size_t(info.spec.seq_len);
        CHECK(info.tokens.size() == t);
        if (kind == problem_kind::designed) // the row labels are the very words X is built from
            CHECK(info.tokens == info.spec.tokens);
        for (std::size_t i = 0; kind == problem_kind::model && i < t; ++i) // the model's ids
            CHECK(info.tokens[i] == std::to_string(int(info.spec.token_ids[i])));
        CHECK(info.key_tokens.size() ==
              (kind == problem_kind::cross ? std::size_t(info.spec.kv_len) : 0));
    }
    CHECK(ids.size() == presets().size());
    CHECK(presets().front().id == "lesson-multi-head");
    std::vector<std::string> order;
    for (const preset_info &info : presets())
        order.push_back(info.id);
    CHECK(order == std::vector<std::string>{"lesson-multi-head",
                                            "lesson-self-attention",
                                            "lesson-causal",
                                            "cross-translation",
                                            "cross-padding",
                                            "gqa-4-2",
                                            "mqa-4-1",
                                            "gqa-4-4",
                                            "encoder-layer",
                                            "kv-cache-gqa",
                                            "kv-cache-mha",
                                            "kv-cache-streaming",
                                            "flash-causal",
                                            "flash-full",
                                            "designed-heads",
                                            "designed-heads-causal",
                                            "trained-induction",
                                            "untrained-induction",
                                            "positions-rope",
                                            "positions-rope-half-split",
                                            "positions-alibi",
                                            "positions-sinusoidal",
                                            "masks-window",
                                            "masks-prefix",
                                            "masks-documents",
                                            "masks-padding",
                                            "masks-causal",
                                            "modern-softcap",
                                            "modern-qk-norm",
                                            "modern-sinks",
                                            "modern-mla",
                                            "backward-causal",
                                            "backward-gqa",
                                            "backward-window-alibi",
                                            "backward-rope",
                                            "backward-no-scale"});
}

TEST_CASE("presets: the chapters' examples have their defining sizes", "[presets]") {
    CHECK(preset("gqa-4-2").num_kv_heads == 2.0);
    CHECK(preset("mqa-4-1").num_kv_heads == 1.0);
    CHECK(preset("gqa-4-4").num_kv_heads == 4.0);
    const generated_spec padding = preset("cross-padding");
    CHECK(padding.kv_len == 4);
    CHECK(padding.valid_keys == 3.0);
    CHECK(preset("encoder-layer").d_ff == 64.0);
    CHECK(preset("kv-cache-gqa").num_kv_heads == 2.0);
    CHECK(preset("kv-cache-mha").num_kv_heads == 4.0);
    const problem decoding = make_problem(preset("kv-cache-gqa"));
    CHECK(decoding.config.causal); // decoding is causal by nature
    CHECK(decoding.config.num_heads == 4);
    const generated_spec causal = preset("flash-causal"), full = preset("flash-full");
    CHECK((causal.causal && causal.block_rows == 2 && causal.block_cols == 2));
    CHECK((!full.causal && full.block_rows == 2 && full.block_cols == 3));
    CHECK(std::fmod(causal.seq_len, causal.block_rows) != 0); // the last block is short
    for (const preset_info &info : presets())
        CHECK(info.seed42 == (info.id.rfind("lesson-", 0) == 0));
}

TEST_CASE("presets: lesson-causal draws after the multi-head example's 1104 normals",
          "[presets][rng]") {
    // The lesson's causal example keeps drawing from seed 42 after the multi-head example:
    // X 5·16 + W_Q, W_K, W_V 3·4·(16·4) + W_O 16·16 = 80 + 768 + 256 = 1104 normals.
    const generated_spec s = preset("lesson-causal");
    CHECK(s.skip == 1104);
    const problem multi = make_problem(preset("lesson-multi-head"));
    std::size_t drawn = multi.params.x.size() + multi.params.w_o.size();
    for (const auto *list : {&multi.params.w_q, &multi.params.w_k, &multi.params.w_v})
        for (const matrix &w : *list)
            drawn += w.size();
    CHECK(drawn == 1104);
    numpy_random rng(42);
    for (int i = 0; i < 1104; ++i)
        rng.gauss();
    check::tensor("X after 1104 normals", make_problem(s).params.x, rng.randn(4, 8), 0);
}

TEST_CASE("presets: the flash presets tile the lesson's self-attention example", "[presets]") {
    // Same seed and sizes (T 5, D 8, one head of 4): X, W_Q, W_K, W_V are the lesson's draws,
    // so Q, K, V are its Q, K, V bit for bit, and the tiled output is its head to rounding.
    const trace lesson = run_traced(make_problem(preset("lesson-self-attention")));
    const trace full = run_traced(make_problem(preset("flash-full")));
    for (const stage_id id : {stage_id::x, stage_id::q, stage_id::k, stage_id::v}) {
        const int head = id == stage_id::x ? no_head : 0;
        check::tensor(name_of(id), check::stage_of(full, id, head).values,
                      check::stage_of(lesson, id, head).values, 0);
    }
    check::tensor("stacked vs the lesson's head", check::stage_of(full, stage_id::stacked).values,
                  check::stage_of(lesson, stage_id::head, 0).values, 1e-15);
}

TEST_CASE("presets: an unknown id names the known ones", "[presets]") {
    CHECK_THROWS_AS(preset("nope"), std::invalid_argument);
    CHECK_THROWS_WITH(preset("nope"),
                      Contains("preset: \"nope\" is not one of lesson-multi-head") &&
                          Contains("gqa-4-2") && Contains("encoder-layer") &&
                          Contains("kv-cache-gqa") && Contains("flash-full"));
}

TEST_CASE("models: the lesson's table of real models", "[presets][models]") {
    struct row {
        const char *name;
        std::size_t d_model, heads, d_k, layers, kv_heads;
    };
    const row want[] = {
        {"GPT-2 (124M)", 768, 12, 64, 12, 12},    {"GPT-2 (1.5B)", 1600, 25, 64, 48, 25},
        {"GPT-3 (175B)", 12288, 96, 128, 96, 96}, {"LLaMA 3 (8B)", 4096, 32, 128, 32, 8},
        {"LLaMA 3 (70B)", 8192, 64, 128, 80, 8},  {"Mistral 7B", 4096, 32, 128, 32, 8}};
    REQUIRE(models().size() == std::size(want));
    for (std::size_t i = 0; i < std::size(want); ++i) {
        const model_info &got = models()[i];
        CAPTURE(got.id, got.name);
        CHECK(got.name == want[i].name);
        CHECK(got.d_model == want[i].d_model);
        CHECK(got.num_heads == want[i].heads);
        CHECK(got.d_k == want[i].d_k);
        CHECK(got.num_layers == want[i].layers);
        CHECK(got.num_kv_heads == want[i].kv_heads);
        CHECK(got.num_heads % got.num_kv_heads == 0);
    }
}

TEST_CASE("models: attention weights held at full context", "[presets][models]") {
    // context² · heads · layers. GPT-3: 2048² · 96 · 96 = 4,194,304 · 9,216 = 38,654,705,664.
    const model_info &gpt3 = models()[2];
    REQUIRE(gpt3.context == 2048);
    CHECK(score_values(gpt3) == 38654705664ull);
    // GPT-2 124M: 1024² · 12 · 12 = 1,048,576 · 144 = 150,994,944.
    CHECK(score_values(models()[0]) == 150994944ull);
}
