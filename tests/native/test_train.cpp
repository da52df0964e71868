// Training: the tasks' sequences have the structure their comment states; Adam's first step
// moves each weight by the learning rate against its gradient's sign; head scores of a model
// that attends uniformly are the exact means of 1/(t + 1); runs are deterministic and resume bit
// for bit; bad specs and checkpoints are refused by name.
#include <catch2/catch.hpp>

#include <cmath>
#include <utility>

#include "attention/train.hpp"
#include "attention/train_api.hpp"

using namespace attention;

namespace {

// A run small enough to take a few milliseconds: induction at V 8, T 9, D 8, 2 layers, 2 heads.
train_spec tiny_spec() {
    train_spec s = default_train_spec(task_kind::induction);
    s.seed = 4, s.config = {8, 9, 8, 2, 2, 4, 4}, s.batch = 4, s.steps = 60,
    s.checkpoint_every = 20;
    return s;
}

bool same_bits(const model_params &a, const model_params &b) {
    const std::vector<const matrix *> x = matrices_of(a), y = matrices_of(b);
    for (std::size_t i = 0; i < x.size(); ++i)
        if (*x[i] != *y[i])
            return false;
    return true;
}

token_batch drawn(task_kind t, const model_config &c, std::uint32_t seed) {
    numpy_random rng(seed);
    return draw_batch(t, c, 50, rng);
}

} // namespace

TEST_CASE("tasks: induction repeats a block of 4-8 tokens and counts its copy after the first",
          "[train]") {
    const model_config c = default_train_spec(task_kind::induction).config;
    const token_batch b = drawn(task_kind::induction, c, 1);
    std::size_t lengths_seen = 0, offsets_seen = 0;
    std::vector<bool> length(9, false), offset(c.seq_len + 1, false);
    for (std::size_t s = 0; s < b.tokens.size(); ++s) {
        std::size_t first = 0, counted = 0;
        while (b.mask(s, first) == 0)
            ++first; // the copy's first token: counted positions start there
        for (std::size_t t = 0; t < c.seq_len; ++t)
            counted += b.mask(s, t) == 1;
        const std::size_t n = counted + 1, start = first - n; // the block's length and start
        REQUIRE((n >= 4 && n <= 8));
        for (std::size_t j = 0; j < n; ++j)
            REQUIRE(b.tokens[s][first + j] == b.tokens[s][start + j]);
        for (std::size_t t = first; t < first + counted; ++t)
            REQUIRE(b.mask(s, t) == 1);
        for (const std::size_t token : b.tokens[s])
            REQUIRE(token < c.vocab);
        lengths_seen += !length[n], length[n] = true;
        offsets_seen += !offset[start], offset[start] = true;
    }
    CHECK(lengths_seen == 5); // every length 4 … 8 occurs in 50 sequences
    CHECK(offsets_seen >= 8); // and the copy starts at many offsets
}

TEST_CASE("tasks: previous-token triples (a, b, a) count at b, and two-relations counts at r",
          "[train]") {
    const model_config prev = default_train_spec(task_kind::previous_token).config;
    const token_batch p = drawn(task_kind::previous_token, prev, 2);
    for (std::size_t s = 0; s < p.tokens.size(); ++s)
        for (std::size_t t = 0; t < prev.seq_len; ++t) {
            REQUIRE(p.mask(s, t) == (t % 3 == 1 ? 1 : 0));
            if (t % 3 == 1)
                REQUIRE(p.tokens[s][t + 1] == p.tokens[s][t - 1]); // the answer is one back
        }
    const model_config two = default_train_spec(task_kind::two_relations).config; // V 30: K 5
    const token_batch r = drawn(task_kind::two_relations, two, 3);
    for (std::size_t s = 0; s < r.tokens.size(); ++s) {
        const std::vector<std::size_t> &q = r.tokens[s];
        REQUIRE(q[0] < 5);
        for (std::size_t t = 1; t < two.seq_len; ++t)
            if (r.mask(s, t) == 1) {
                REQUIRE((t - 1) % 3 == 1);
                REQUIRE(q[t + 1] == 5 + q[0] * 5 + q[t - 1]); // ⟨s₀, s⟩ needs key 0 and key t − 1
            }
    }
}

TEST_CASE("tasks: each step's batch comes from its own stream", "[train]") {
    CHECK(stream_seed(0, 3) == 3);
    CHECK(stream_seed(1, 0) == 2654435761u);
    CHECK(stream_seed(2, 1) == std::uint32_t((2ull * 2654435761ull + 1) % 4294967296ull));
}

TEST_CASE("adam: the first step moves each weight by lr against its gradient's sign", "[train]") {
    const model m = init_model(tiny_spec().config, 1);
    const token_batch b = drawn(task_kind::induction, m.config, 5);
    const loss_gradients g = loss_and_gradients(m, b);
    model_params p = m.params;
    adam_state s = adam_start(m.config);
    adam_step(p, g.grads, s, 0.01);
    REQUIRE(s.step == 1);
    const std::vector<const matrix *> before = matrices_of(m.params),
                                      after = matrices_of(std::as_const(p)),
                                      grad = matrices_of(g.grads);
    double worst = 0;
    for (std::size_t i = 0; i < before.size(); ++i)
        for (std::size_t k = 0; k < before[i]->size(); ++k) {
            const double gk = grad[i]->flat(k), expected = -0.01 * gk / (std::fabs(gk) + 1e-8);
            worst = std::max(worst, std::fabs(after[i]->flat(k) - before[i]->flat(k) - expected));
        }
    CHECK(worst <= 1e-15); // m̂ = g and √v̂ = |g| at t = 1
}

TEST_CASE("head scores: a model that attends uniformly scores the means of 1/(t + 1), the "
          "checkpoints' floor",
          "[train]") {
    model m = init_model({6, 5, 4, 2, 2, 2, 2}, 3);
    for (attention_params &layer : m.params.layers)
        for (matrix &w : layer.w_q)
            w.fill(0); // every score 0: query t weighs each of its t + 1 keys 1/(t + 1)
    const std::vector<std::vector<std::size_t>> tokens{{1, 2, 1, 3, 2, 0}, {4, 4, 0, 1, 5, 3}};
    double mean = 0, repeats = 0, on_repeats = 0;
    for (int t = 1; t < 5; ++t)
        mean += 1.0 / (t + 1) / 4;
    // Repeats (query t, its token seen before): sequence 0 at t 2 and 4, sequence 1 at t 1.
    for (int t : {2, 4, 1})
        on_repeats += 1.0 / (t + 1), ++repeats;
    for (const head_score &h : head_scores(m, tokens)) {
        CHECK(h.previous_token == Approx(mean).epsilon(1e-14));
        CHECK(h.first_token == Approx(mean).epsilon(1e-14));
        CHECK(h.self == Approx(mean).epsilon(1e-14));
        REQUIRE(h.induction);
        CHECK(*h.induction == Approx(on_repeats / repeats).epsilon(1e-14));
    }
    // The floor every checkpoint reports is that model's scores, computed without one.
    const head_score u = uniform_scores(tokens);
    CHECK(u.previous_token == Approx(mean).epsilon(1e-14));
    CHECK(u.first_token == Approx(mean).epsilon(1e-14));
    CHECK(u.self == Approx(mean).epsilon(1e-14));
    REQUIRE(u.induction);
    CHECK(*u.induction == Approx(on_repeats / repeats).epsilon(1e-14));
    const std::vector<checkpoint> run = train(tiny_spec(), nullptr, 20);
    const head_score floor = uniform_scores(task_batch(tiny_spec(), 0, held_out_sequences).tokens);
    for (const checkpoint &c : run) {
        CHECK(c.uniform.previous_token == floor.previous_token);
        CHECK(c.uniform.induction == floor.induction);
    }
}

TEST_CASE("train: deterministic, checkpointed, and resumed bit for bit", "[train]") {
    const train_spec s = tiny_spec();
    const std::vector<checkpoint> whole = train(s), again = train(s);
    REQUIRE(whole.size() == 4); // steps 0, 20, 40, 60
    CHECK(std::isnan(whole[0].train_loss));
    for (std::size_t i = 0; i < whole.size(); ++i) {
        CHECK(whole[i].step == 20 * i);
        CHECK(same_bits(whole[i].trained.params, again[i].trained.params));
    }
    CHECK(whole[3].loss < whole[0].loss); // it learns something in 60 steps
    const std::vector<checkpoint> first = train(s, nullptr, 30);
    REQUIRE(first.back().step == 30);
    const std::vector<checkpoint> rest = train(s, &first.back());
    REQUIRE(rest.back().step == 60);
    CHECK(same_bits(rest.back().trained.params, whole[3].trained.params));
    CHECK(same_bits(rest.back().optimizer.v, whole[3].optimizer.v));
    CHECK(rest.back().loss == whole[3].loss);
}

TEST_CASE("train: bad specs, options and checkpoints are refused by name", "[train]") {
    const auto refused = [](field_values v, const std::string &message) {
        v.emplace("task", std::string("induction"));
        REQUIRE_THROWS_WITH(train_spec_of(v), message);
    };
    REQUIRE_THROWS_WITH(train_spec_of({{"task", std::string("copy")}}),
                        "task: \"copy\" is not a task; the tasks are induction, previous-token, "
                        "two-relations");
    refused({{"learningRate", 0.0}}, "learningRate: 0 is not a finite number in (0, 1]");
    refused({{"learningRate", double(NAN)}}, "learningRate: NaN is not a finite number in (0, 1]");
    refused({{"steps", 0.0}}, "steps: 0 is out of range [1, 100000]");
    refused({{"steps", 2.5}}, "steps: 2.5 is not a whole number");
    refused({{"numHeads", 3.0}},
            "numHeads: 3 does not divide dModel 32 (each head is dModel / numHeads wide)");
    refused({{"seqLen", 6.0}},
            "seqLen: 6 is too short for the induction task, whose sequences hold "
            "a block of at least 4 tokens twice (seqLen ≥ 7)");
    REQUIRE_THROWS_WITH(train_spec_of({{"task", std::string("two-relations")}, {"vocab", 31.0}}),
                        "vocab: 31 is not K + K² for K ≥ 2 symbols (6, 12, 20, 30, 42, …): the "
                        "two-relations task has a token for each pair of symbols");
    const train_spec s = tiny_spec();
    std::vector<checkpoint> done = train(s, nullptr, 20);
    train_spec other = s;
    other.config.d_model = 12, other.config.d_k = other.config.d_v = 6;
    REQUIRE_THROWS_WITH(train(other, &done.back()),
                        "from: the checkpoint's model has another config than the spec's");
    done = train(s);
    REQUIRE_THROWS_WITH(train(s, &done.back()),
                        "steps: nothing to run: the checkpoint is at step 60 and spec.steps is 60");
}
