// The attention-only model and its training against numpy (tests/fixtures/model-reference.json,
// made by scripts/make-reference.py from scripts/numpy_model.py): each model case's draw, logits,
// loss, gradients, two Adam steps and head scores, and each task's batch of a step and its
// held-out sequences at the engine's default sizes. What is drawn (the matrices of init_model,
// the tasks' tokens and masks) must be numpy's bit for bit; what is computed within 1e-12,
// absolute up to 1 and relative above.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "attention/adam.hpp"
#include "attention/tasks.hpp"
#include "attention/train.hpp"
#include "check.hpp"
#include "reference.hpp"

using namespace attention;

namespace {

constexpr double tolerance = 1e-12;

struct model_file {
    std::map<std::string, reference::sizes> models; // "models": {name: {field: value}}
    std::map<std::string, reference::sizes> tasks;  // "tasks": {name: {field: value}}
    std::map<std::string, matrix> matrices;         // "matrices": {"name:key": rows}
};

model_file load_models() {
    const nlohmann::json all = reference::read_json("model-reference.json");
    model_file out;
    for (const auto &[name, fields] : all.at("models").items())
        out.models[name] = reference::fields_of(fields);
    for (const auto &[name, fields] : all.at("tasks").items())
        out.tasks[name] = reference::fields_of(fields);
    out.matrices = reference::matrices_of(all.at("matrices"));
    return out;
}

const model_file &fixture() {
    static const model_file loaded = load_models();
    return loaded;
}

const matrix &wanted(const std::string &key) {
    INFO("fixture " << key);
    REQUIRE(fixture().matrices.count(key) == 1);
    return fixture().matrices.at(key);
}

std::size_t whole(const reference::sizes &fields, const char *name) {
    INFO("field " << name);
    REQUIRE(fields.count(name) == 1);
    return std::stoul(fields.at(name));
}

model_config config_of(const reference::sizes &f) {
    return {whole(f, "vocab"),    whole(f, "seqLen"), whole(f, "dModel"), whole(f, "numLayers"),
            whole(f, "numHeads"), whole(f, "dK"),     whole(f, "dV")};
}

// Checks got is numpy's matrix under key bit for bit (the same doubles, signs of zeros too).
void same_bits(const std::string &key, const matrix &got) {
    const matrix &want = wanted(key);
    check::tensor(key, got, want, 0);
    if (got.shape() == want.shape())
        CHECK(std::memcmp(got.data(), want.data(), got.size() * sizeof(double)) == 0);
}

// Numpy's matrix under key within tolerance: |got − want| / max(1, |want|) in every cell.
// Returns the worst such difference.
double close(const std::string &key, const matrix &got) {
    const matrix &want = wanted(key);
    INFO(key << ": got shape " << check::shape(got) << ", want " << check::shape(want));
    REQUIRE(got.shape() == want.shape());
    double worst = 0;
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double off =
            check::difference(got.flat(i), want.flat(i)) / std::max(1.0, std::fabs(want.flat(i)));
        worst = std::max(worst, off);
        if (!(off <= tolerance) && bad++ == 0)
            first = i;
    }
    INFO(key << ": worst " << worst << ", " << bad << " cells off; first bad flat index " << first
             << ": got " << got.flat(first) << ", want " << want.flat(first));
    CHECK(bad == 0);
    return worst;
}

double close(const std::string &key, double got) {
    return close(key, matrix({1, 1}, got));
}

// A model case's model as numpy wrote it: its config, and each matrix "name:W_E" + at ("",
// "@1", …).
model model_of(const std::string &name, const std::string &at = "") {
    const model_config c = config_of(fixture().models.at(name));
    model m{c, zeros_like(c)};
    const std::vector<matrix *> slots = matrices_of(m.params);
    const std::vector<std::string> names = matrix_names(c);
    for (std::size_t i = 0; i < slots.size(); ++i)
        *slots[i] = wanted(name + ":" + names[i] + at);
    return m;
}

// A model case's batch: "name:tokens" (B, T + 1) and "name:mask" (B, T).
token_batch batch_of(const std::string &name) {
    const matrix &tokens = wanted(name + ":tokens");
    token_batch b{{}, wanted(name + ":mask")};
    for (std::size_t i = 0; i < rows(tokens); ++i) {
        b.tokens.emplace_back();
        for (std::size_t j = 0; j < cols(tokens); ++j)
            b.tokens.back().push_back(std::size_t(tokens(i, j)));
    }
    return b;
}

// Every gradient against "name:grad:W_E" + at …; the worst difference.
double close_params(const std::string &name, const std::string &prefix, const model_config &c,
                    const model_params &p, const std::string &at) {
    const std::vector<const matrix *> got = matrices_of(p);
    const std::vector<std::string> names = matrix_names(c);
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
        worst = std::max(worst, close(name + ":" + prefix + names[i] + at, *got[i]));
    return worst;
}

// A batch's tokens as a (B, T + 1) matrix of whole numbers, as numpy wrote them.
matrix tokens_matrix(const token_batch &b) {
    matrix out({b.tokens.size(), b.tokens.empty() ? 0 : b.tokens[0].size()});
    for (std::size_t i = 0; i < rows(out); ++i)
        for (std::size_t j = 0; j < cols(out); ++j)
            out(i, j) = double(b.tokens[i][j]);
    return out;
}

} // namespace

TEST_CASE("model reference: init_model draws numpy's matrices bit for bit", "[model-reference]") {
    REQUIRE(!fixture().models.empty());
    for (const auto &[name, fields] : fixture().models) {
        SECTION(name) {
            const model m = init_model(config_of(fields), std::uint32_t(whole(fields, "seed")));
            const std::vector<const matrix *> drawn = matrices_of(m.params);
            const std::vector<std::string> names = matrix_names(m.config);
            for (std::size_t i = 0; i < drawn.size(); ++i)
                same_bits(name + ":" + names[i], *drawn[i]);
        }
    }
}

TEST_CASE("model reference: logits, loss and every gradient are numpy's", "[model-reference]") {
    for (const auto &[name, fields] : fixture().models) {
        SECTION(name) {
            const model m = model_of(name);
            const token_batch b = batch_of(name);
            double worst = 0;
            for (std::size_t i = 0; i < b.tokens.size(); ++i) {
                const std::vector<std::size_t> inputs(b.tokens[i].begin(), b.tokens[i].end() - 1);
                const matrix logits = forward_sequence(m, inputs).logits;
                worst = std::max(worst, close(name + ":logits/" + std::to_string(i), logits));
            }
            const loss_gradients lg = loss_and_gradients(m, b);
            worst = std::max(worst, close(name + ":loss", lg.loss));
            worst = std::max(worst, close(name + ":loss", loss_of(m, b)));
            worst = std::max(worst, close_params(name, "grad:", m.config, lg.grads, ""));
            CHECK(worst <= tolerance); // shown with -s: the largest difference of the case
        }
    }
}

TEST_CASE("model reference: Adam's steps on the batch's gradients are numpy's",
          "[model-reference]") {
    for (const auto &[name, fields] : fixture().models) {
        SECTION(name) {
            model m = model_of(name);
            const token_batch b = batch_of(name);
            const double learning_rate = std::stod(fields.at("learningRate"));
            adam_state s = adam_start(m.config);
            double worst = 0;
            for (std::size_t t = 1; t <= whole(fields, "adamSteps"); ++t) {
                CAPTURE(t);
                const std::string before = t == 1 ? "" : "@" + std::to_string(t - 1);
                const std::string after = "@" + std::to_string(t);
                const loss_gradients lg = loss_and_gradients(m, b);
                worst = std::max(worst, close_params(name, "grad:", m.config, lg.grads, before));
                adam_step(m.params, lg.grads, s, learning_rate);
                CHECK(s.step == t);
                worst = std::max(worst, close_params(name, "", m.config, m.params, after));
                worst = std::max(worst, close(name + ":loss" + after, loss_of(m, b)));
            }
            CHECK(worst <= tolerance); // shown with -s: the largest difference of the case
        }
    }
}

TEST_CASE("model reference: head scores are numpy's", "[model-reference]") {
    for (const auto &[name, fields] : fixture().models) {
        SECTION(name) {
            const model m = model_of(name);
            const model_config &c = m.config;
            const std::vector<head_score> scores = head_scores(m, batch_of(name).tokens);
            REQUIRE(scores.size() == c.num_layers * c.num_heads);
            matrix previous({c.num_layers, c.num_heads}), first(previous.shape()),
                self(previous.shape()), induction(previous.shape());
            for (const head_score &h : scores) {
                REQUIRE(h.induction.has_value()); // numpy's batch has a repeated token
                previous(h.layer, h.head) = h.previous_token,
                                  first(h.layer, h.head) = h.first_token;
                self(h.layer, h.head) = h.self, induction(h.layer, h.head) = *h.induction;
            }
            const double worst = std::max(
                {close(name + ":previousToken", previous), close(name + ":firstToken", first),
                 close(name + ":self", self), close(name + ":induction", induction)});
            CHECK(worst <= tolerance); // shown with -s: the largest difference of the case
        }
    }
}

TEST_CASE("model reference: each task's batch of a step and held-out sequences are numpy's bit "
          "for bit, at the engine's default sizes",
          "[model-reference]") {
    REQUIRE(fixture().tasks.size() == 3);
    for (const auto &[name, fields] : fixture().tasks) {
        SECTION(name) {
            const task_kind t = task_named(name);
            const train_spec defaults = default_train_spec(t);
            // numpy drew at the sizes the engine trains with; a default changed since shows here.
            CHECK(defaults.config.vocab == whole(fields, "vocab"));
            CHECK(defaults.config.seq_len == whole(fields, "seqLen"));
            CHECK(defaults.batch == whole(fields, "batch"));
            CHECK(held_out_sequences == whole(fields, "heldOut"));
            model_config c = defaults.config;
            c.vocab = whole(fields, "vocab"), c.seq_len = whole(fields, "seqLen");
            const auto seed = std::uint32_t(whole(fields, "seed"));
            const std::size_t step = whole(fields, "step");
            for (const auto &[k, count] : {std::pair{step, whole(fields, "batch")},
                                           std::pair{std::size_t(0), whole(fields, "heldOut")}}) {
                CAPTURE(k);
                numpy_random rng(stream_seed(seed, k));
                const token_batch b = draw_batch(t, c, count, rng);
                same_bits(name + ":tokens@" + std::to_string(k), tokens_matrix(b));
                same_bits(name + ":mask@" + std::to_string(k), b.mask);
            }
        }
    }
}

TEST_CASE("model reference: the tests above read every matrix numpy wrote", "[model-reference]") {
    std::set<std::string> expected;
    for (const auto &[name, fields] : fixture().models) {
        const std::size_t steps = whole(fields, "adamSteps"),
                          sequences = rows(wanted(name + ":mask"));
        for (const char *key :
             {"tokens", "mask", "loss", "previousToken", "firstToken", "self", "induction"})
            expected.insert(name + ":" + key);
        for (std::size_t b = 0; b < sequences; ++b)
            expected.insert(name + ":logits/" + std::to_string(b));
        for (const std::string &m : matrix_names(config_of(fields))) {
            expected.insert(name + ":" + m);
            expected.insert(name + ":grad:" + m);
            for (std::size_t t = 1; t <= steps; ++t) {
                expected.insert(name + ":" + m + "@" + std::to_string(t));
                if (t < steps)
                    expected.insert(name + ":grad:" + m + "@" + std::to_string(t));
            }
        }
        for (std::size_t t = 1; t <= steps; ++t)
            expected.insert(name + ":loss@" + std::to_string(t));
    }
    for (const auto &[name, fields] : fixture().tasks)
        for (const std::string k : {fields.at("step"), std::string("0")})
            for (const char *key : {":tokens@", ":mask@"})
                expected.insert(name + key + k);
    std::set<std::string> written;
    for (const auto &[key, m] : fixture().matrices)
        written.insert(key);
    CHECK(written == expected);
}
