// Kind model: the shipped model's forward pass traced stage by stage, each layer's stages on the
// step axis, against forward_sequence (the pass training uses) and the loss by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "attention/checkpoints.hpp"
#include "attention/engine.hpp"
#include "attention/explain.hpp"
#include "attention/fields.hpp"
#include "attention/spec_reader.hpp"
#include "attention/train.hpp"
#include "check.hpp"

using namespace attention;

namespace {

const std::vector<double> block{20, 8, 14, 7, 5, 3, 21, 14, 7, 5, 3, 21};

problem model_problem(const std::string &checkpoint, const std::vector<double> &tokens) {
    return problem_of(problem_kind::model, false, {{"checkpoint", checkpoint}, {"tokens", tokens}},
                      true);
}

problem scored_problem(const std::vector<double> &tokens, const std::vector<double> &scored) {
    return problem_of(
        problem_kind::model, false,
        {{"checkpoint", std::string("trained")}, {"tokens", tokens}, {"scored", scored}}, true);
}

problem given_problem(const model &m, const std::vector<double> &tokens) {
    return problem_of(problem_kind::model, false,
                      {{"model", std::make_shared<const model>(m)}, {"tokens", tokens}}, true);
}

std::vector<std::size_t> ids(const std::vector<double> &tokens) {
    return {tokens.begin(), tokens.end()};
}

const stage &at(const trace &t, stage_id id, int head, int step) {
    for (const stage &s : t.stages)
        if (s.id == id && s.head == head && s.step == step)
            return s;
    FAIL("no stage " << name_of(id) << " head " << head << " step " << step);
    throw;
}

} // namespace

TEST_CASE("model pass: the stages in order, each layer's on its step", "[model-pass]") {
    const trace t = run_traced(model_problem("trained", block));
    std::vector<std::string> names;
    for (const stage &s : t.stages)
        names.push_back(std::string(name_of(s.id)) + "/" + std::to_string(s.head) + "@" +
                        std::to_string(s.step));
    CHECK(names.front() == "embedded/-1@-1");
    CHECK(names[1] == "x/-1@0");
    CHECK(names[2] == "q/0@0");
    const std::vector<std::string> tail{"output/-1@1",         "residual/-1@1",    "logits/-1@-1",
                                        "probabilities/-1@-1", "token_loss/-1@-1", "loss/-1@-1"};
    CHECK(std::vector<std::string>(names.end() - 6, names.end()) == tail);
    // embedded, per layer x + 2 heads × (q k v scores scaled masked weights head) + concat,
    // output, residual, then the four results.
    CHECK(t.stages.size() == 1 + 2 * (1 + 2 * 8 + 3) + 4);
    CHECK(t.config.kind == problem_kind::model);
    CHECK(t.config.vocab == 32);
    CHECK(t.config.num_layers == 2);
    CHECK(t.config.seq_len == 12);
    CHECK(trace_value_count(t.config) == recorded_value_count(t));
}

TEST_CASE("model pass: every value is the model's forward pass, and the loss by hand",
          "[model-pass]") {
    const model &m = shipped_model("trained");
    const trace t = run_traced(model_problem("trained", block));
    const sequence_pass pass = forward_sequence(m, ids(block));
    const stage &x0 = at(t, stage_id::embedded, no_head, no_step);
    for (std::size_t i = 0; i < block.size(); ++i)
        for (std::size_t j = 0; j < m.config.d_model; ++j)
            REQUIRE(x0.values(i, j) == m.params.w_e(std::size_t(block[i]), j) + m.params.w_p(i, j));
    check::tensor("x₀", x0.values, pass.residual[0], 0);
    check::tensor("x₁", at(t, stage_id::residual, no_head, 0).values, pass.residual[1], 1e-14);
    check::tensor("x₂", at(t, stage_id::residual, no_head, 1).values, pass.residual[2], 1e-14);
    check::tensor("layer 1 reads x₁", at(t, stage_id::x, no_head, 1).values, pass.residual[1],
                  1e-14);
    check::tensor("logits", at(t, stage_id::logits, no_head, no_step).values, pass.logits, 1e-13);
    const stage &p = at(t, stage_id::probabilities, no_head, no_step);
    const stage &token_loss = at(t, stage_id::token_loss, no_head, no_step);
    REQUIRE(rows(token_loss.values) == block.size() - 1);
    double total = 0;
    for (std::size_t i = 0; i + 1 < block.size(); ++i) {
        double row = 0;
        for (std::size_t v = 0; v < 32; ++v)
            row += p.values(i, v);
        CHECK(row == Approx(1).margin(1e-15));
        CHECK(p.totals(i, 0) == Approx(1).margin(1e-15));
        CHECK(token_loss.values(i, 0) == -std::log(p.values(i, std::size_t(block[i + 1]))));
        total += token_loss.values(i, 0);
    }
    const double loss = at(t, stage_id::loss, no_head, no_step).values(0, 0);
    CHECK(loss == total / 11);
    CHECK(forward(model_problem("trained", block))(0, 0) == loss);
    // Trained, the copy is predicted: the last four positions' loss is far below ln 32.
    for (std::size_t i = 7; i < 11; ++i)
        CHECK(token_loss.values(i, 0) < 0.5);
}

TEST_CASE("model pass: untrained is the run's draw, trained forms an induction head",
          "[model-pass]") {
    const train_spec spec = default_train_spec(task_kind::induction);
    const model drawn = init_model(spec.config, spec.seed);
    const trace t = run_traced(model_problem("untrained", block));
    check::tensor("W_U", at(t, stage_id::logits, no_head, no_step).operands[1].values,
                  drawn.params.w_u, 0);
    check::tensor("layer 1 W_Q head 1", at(t, stage_id::q, 1, 1).operands[1].values,
                  drawn.params.layers[1].w_q[1], 0);
    // The compiled-in weights are the run's step 1000 (tests/wasm: bit for bit against its file):
    // a layer-1 head attends to the token after the previous occurrence.
    const auto held_out = task_batch(spec, 0, held_out_sequences).tokens;
    double best = 0;
    for (const head_score &s : head_scores(shipped_model("trained"), held_out))
        if (s.layer == 1)
            best = std::max(best, s.induction.value_or(0));
    CHECK(best > 0.6);
}

TEST_CASE("model pass: explain a layer's score, a token's loss and the mean", "[model-pass]") {
    const problem p = model_problem("trained", block);
    const trace t = run_traced(p);
    const cell_explanation loss = explain_cell(t, stage_id::token_loss, no_head, 8, 0);
    REQUIRE(loss.next_token);
    CHECK(*loss.next_token == block[9]);
    CHECK(loss.value == -std::log(*loss.input));
    const cell_explanation mean = explain_cell(t, stage_id::loss, no_head, 0, 0);
    CHECK(mean.addends.size() == 11);
    CHECK(mean.divisor == 11);
    CHECK(mean.value == mean.sum / 11);
    // Scored on the copy only (positions 6 … 10 predict tokens 7 … 11): those five terms.
    const trace copy = run_traced(scored_problem(block, {6, 7, 8, 9, 10}));
    const stage &losses = at(copy, stage_id::token_loss, no_head, no_step);
    const cell_explanation counted = explain_cell(copy, stage_id::loss, no_head, 0, 0);
    REQUIRE(counted.addends.size() == 5);
    CHECK(counted.addends[0] == losses.values(6, 0));
    CHECK(counted.divisor == 5);
    const double by_hand = (losses.values(6, 0) + losses.values(7, 0) + losses.values(8, 0) +
                            losses.values(9, 0) + losses.values(10, 0)) /
                           5;
    CHECK(at(copy, stage_id::loss, no_head, no_step).values(0, 0) ==
          Approx(by_hand).epsilon(1e-15));
    CHECK(counted.value == at(copy, stage_id::loss, no_head, no_step).values(0, 0));
    CHECK(trace_value_count(copy.config) == recorded_value_count(copy));
    const cell_explanation score = explain_cell(t, stage_id::scores, 1, 9, 3, 1);
    CHECK(score.value == at(t, stage_id::scores, 1, 1).values(9, 3));
    CHECK(score.sum == Approx(score.value).epsilon(1e-15));
}

TEST_CASE("model pass: refused by name", "[model-pass][validation]") {
    CHECK_THROWS_WITH(model_problem("halfway", block),
                      "checkpoint: \"halfway\" is not one of trained, untrained");
    CHECK_THROWS_WITH(model_problem("trained", {3}),
                      "tokens: 1 token; the loss needs the token after it: give 2 to seqLen = 24");
    CHECK_THROWS_WITH(model_problem("trained", {3, 32}),
                      "tokens[1]: 32 is outside the vocabulary [0, 31]");
    CHECK_THROWS_WITH(model_problem("trained", std::vector<double>(25, 1.0)),
                      "tokens: 25 tokens; the model reads 1 to seqLen = 24");
    CHECK_THROWS_WITH(model_problem("trained", {3, 2.5}), Catch::Contains("tokens[1]"));
    CHECK_THROWS_WITH(scored_problem(block, {11}), Catch::Contains("scored"));
    CHECK_THROWS_WITH(scored_problem(block, {3, 3}), "scored: position 3 is listed twice");
    CHECK_THROWS_WITH(scored_problem(block, {}), Catch::StartsWith("scored: lists no position"));
    CHECK_THROWS_WITH(scored_problem(block, {1.5}), Catch::Contains("scored"));
    const problem p = model_problem("trained", block);
    CHECK_THROWS_WITH(prune_each_head(p), Catch::Contains("pruning"));
}

TEST_CASE("model pass: a given model runs as the same model shipped, and any other config",
          "[model-pass]") {
    const trace shipped = run_traced(model_problem("trained", block));
    const trace given = run_traced(given_problem(shipped_model("trained"), block));
    REQUIRE(given.stages.size() == shipped.stages.size());
    for (std::size_t i = 0; i < given.stages.size(); ++i)
        check::tensor(name_of(given.stages[i].id), given.stages[i].values, shipped.stages[i].values,
                      0);
    // One layer of four heads over a vocabulary of 5: its own sizes, not the shipped run's.
    const model small = init_model({5, 6, 8, 1, 4, 2, 2}, 3);
    const std::vector<double> tokens{4, 0, 3, 3, 1};
    const trace t = run_traced(given_problem(small, tokens));
    CHECK(t.config.vocab == 5);
    CHECK(t.config.num_heads == 4);
    CHECK(t.config.d_k == 2);
    const sequence_pass f = forward_sequence(small, ids(tokens));
    check::tensor("logits", at(t, stage_id::logits, no_head, no_step).values, f.logits, 1e-12);
    CHECK(trace_value_count(t.config) == recorded_value_count(t));
}

TEST_CASE("model pass: a checkpoint or a model, exactly one", "[model-pass][validation]") {
    const std::vector<double> tokens{3, 4, 5};
    CHECK_THROWS_WITH(problem_of(problem_kind::model, false, {{"tokens", tokens}}, true),
                      "checkpoint: is missing; give one of trained, untrained, or a model "
                      "{ config, params }");
    CHECK_THROWS_WITH(
        problem_of(problem_kind::model, false,
                   {{"checkpoint", std::string("trained")},
                    {"model", std::make_shared<const model>(shipped_model("trained"))},
                    {"tokens", tokens}},
                   true),
        "checkpoint: and model are both given; give one");
    const model tiny = init_model({4, 3, 2, 1, 1, 2, 2}, 0);
    CHECK_THROWS_WITH(given_problem(tiny, {1, 2, 3, 0}),
                      "tokens: 4 tokens; the model reads 1 to seqLen = 3");
    CHECK_THROWS_WITH(given_problem(tiny, {1, 4}), "tokens[1]: 4 is outside the vocabulary [0, 3]");
}
