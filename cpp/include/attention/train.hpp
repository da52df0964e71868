// Training the attention-only model (model.hpp) on a task (tasks.hpp) with Adam (adam.hpp), and
// measuring what each head learned to attend to.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "attention/adam.hpp"
#include "attention/tasks.hpp"

namespace attention {

struct train_spec {
    task_kind task = task_kind::induction;
    std::uint32_t seed = 0;
    model_config config;              // d_k = d_v = d_model / heads
    std::size_t batch = 0, steps = 0; // sequences per step; updates in the whole run
    std::size_t checkpoint_every = 0; // a checkpoint each this many steps, and at the last
    double learning_rate = 0;
};

// The task's defaults, chosen so that its default run shows what the task is for.
train_spec default_train_spec(task_kind t);

// `count` sequences of the spec's task from stream k: 0 holds the held-out sequences, k ≥ 1 the
// batch of step k.
token_batch task_batch(const train_spec &spec, std::uint64_t k, std::size_t count);

// Held-out sequences: the checkpoints' loss and head scores are measured on them.
constexpr std::size_t held_out_sequences = 64;

// Where each head of each layer puts its weight, averaged over the sequences' queries t ≥ 1:
// on key t − 1, on key 0, on key t, and (over the queries whose token occurred before, at s, the
// latest such) on key s + 1, the token that followed it: an induction head's target. No such
// query: induction is empty.
struct head_score {
    std::size_t layer, head;
    double previous_token, first_token, self;
    std::optional<double> induction;
};

// tokens: sequences of T + 1 tokens (the last is not read), as token_batch holds them.
std::vector<head_score> head_scores(const model &m,
                                    const std::vector<std::vector<std::size_t>> &tokens);

// What a head attending uniformly would score on the same sequences: weight 1/(t + 1) on each of
// the t + 1 keys the causal mask leaves query t. Every head's floor: a score near it says nothing
// about the head (layer and head 0; induction empty as head_scores leaves it).
head_score uniform_scores(const std::vector<std::vector<std::size_t>> &tokens);

struct checkpoint {
    std::size_t step;     // updates taken
    double loss;          // on the held-out sequences' counted positions
    double train_loss;    // the mean of the batches' losses since the checkpoint before; NaN at 0
    model trained;        // the model after `step` updates
    adam_state optimizer; // Adam's state then: training resumes from it bit for bit
    std::vector<head_score> scores; // on the held-out sequences
    head_score uniform;             // uniform_scores on them: the scores' floor
};

// The spec's run, from step 0 (its model init_model(config, seed), checkpoint 0 included) or from
// `from`, for `steps` updates (0: up to spec.steps). Step k's batch is drawn from stream k
// (tasks.hpp), so 200 steps equal 100 and then 100 from the 100th checkpoint, bit for bit.
// Throws naming the field for a checkpoint of another config or a step past spec.steps.
std::vector<checkpoint> train(const train_spec &spec, const checkpoint *from = nullptr,
                              std::size_t steps = 0);

// A checkpoint's measurements of a model: its held-out loss and head scores.
checkpoint measured(const train_spec &spec, std::size_t step, double train_loss, model m,
                    adam_state optimizer);

} // namespace attention
