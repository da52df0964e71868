#include "attention/train.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "attention/model_work.hpp"
#include "attention/validation.hpp"

namespace attention {

namespace {

model_config model_shape(std::size_t vocab, std::size_t seq_len, std::size_t d_model,
                         std::size_t layers, std::size_t heads) {
    return {vocab, seq_len, d_model, layers, heads, d_model / heads, d_model / heads};
}

bool same_config(const model_config &a, const model_config &b) {
    return a.vocab == b.vocab && a.seq_len == b.seq_len && a.d_model == b.d_model &&
           a.num_layers == b.num_layers && a.num_heads == b.num_heads && a.d_k == b.d_k &&
           a.d_v == b.d_v;
}

// Where the latest earlier occurrence of each position's token is followed: s + 1, or none.
std::vector<std::optional<std::size_t>> after_previous(const std::vector<std::size_t> &inputs) {
    std::vector<std::optional<std::size_t>> out(inputs.size());
    for (std::size_t t = 1; t < inputs.size(); ++t)
        for (std::size_t s = t; s-- > 0;)
            if (inputs[s] == inputs[t]) {
                out[t] = s + 1;
                break;
            }
    return out;
}

} // namespace

token_batch task_batch(const train_spec &s, std::uint64_t k, std::size_t count) {
    numpy_random rng(stream_seed(s.seed, k));
    return draw_batch(s.task, s.config, count, rng);
}

train_spec default_train_spec(task_kind t) {
    train_spec s;
    s.task = t;
    s.batch = 32, s.checkpoint_every = 25, s.learning_rate = 3e-3;
    if (t == task_kind::induction)
        s.config = model_shape(32, 24, 32, 2, 2), s.steps = 1000;
    else if (t == task_kind::previous_token)
        s.config = model_shape(32, 23, 32, 1, 1), s.steps = 300;
    else
        s.config = model_shape(30, 22, 32, 1, 2), s.steps = 1000;
    return s;
}

namespace {

// Each head's weights summed over the queries t ≥ 1 of the sequences added so far, on the keys
// head_score names; scores() averages them.
class score_tally {
  public:
    explicit score_tally(const model_config &c) : seq_len_(c.seq_len) {
        for (std::size_t l = 0; l < c.num_layers; ++l)
            for (std::size_t h = 0; h < c.num_heads; ++h)
                sums_.push_back({l, h, 0, 0, 0, std::nullopt});
        induction_.assign(sums_.size(), 0.0);
    }

    // One sequence's pass: inputs are the tokens it read.
    void add(const std::vector<std::size_t> &inputs, const sequence_pass &pass) {
        const auto targets = after_previous(inputs);
        for (std::size_t i = 0; i < sums_.size(); ++i) {
            const matrix &a = pass.layers[sums_[i].layer].a[sums_[i].head]; // (T, T)
            for (std::size_t t = 1; t < seq_len_; ++t) {
                sums_[i].previous_token += a(t, t - 1);
                sums_[i].first_token += a(t, 0);
                sums_[i].self += a(t, t);
                if (targets[t])
                    induction_[i] += a(t, *targets[t]);
            }
        }
        queries_ += double(seq_len_ - 1);
        for (std::size_t t = 1; t < seq_len_; ++t)
            repeats_ += targets[t] ? 1 : 0;
    }

    std::vector<head_score> scores() const {
        std::vector<head_score> out = sums_;
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i].previous_token /= queries_, out[i].first_token /= queries_, out[i].self /= queries_;
            if (repeats_ > 0)
                out[i].induction = induction_[i] / repeats_;
        }
        return out;
    }

  private:
    std::size_t seq_len_;
    std::vector<head_score> sums_;
    std::vector<double> induction_;
    double queries_ = 0, repeats_ = 0;
};

} // namespace

std::vector<head_score> head_scores(const model &m,
                                    const std::vector<std::vector<std::size_t>> &tokens) {
    const double n = double(tokens.size());
    check_work(n * forward_work(m.config), "tokens", js_number(n) + " sequences of this model",
               "give fewer sequences");
    score_tally tally(m.config);
    for (const std::vector<std::size_t> &sequence : tokens) {
        const std::vector<std::size_t> inputs = sequence_inputs(sequence);
        tally.add(inputs, forward_sequence(m, inputs));
    }
    return tally.scores();
}

head_score uniform_scores(const std::vector<std::vector<std::size_t>> &tokens) {
    head_score u{0, 0, 0, 0, 0, std::nullopt};
    double queries = 0, repeats = 0, induction = 0;
    for (const std::vector<std::size_t> &sequence : tokens) {
        const std::vector<std::size_t> inputs = sequence_inputs(sequence);
        const auto targets = after_previous(inputs);
        for (std::size_t t = 1; t < inputs.size(); ++t) {
            const double share = 1.0 / double(t + 1); // each of keys 0 … t
            u.previous_token += share, u.first_token += share, u.self += share;
            if (targets[t])
                induction += share, repeats += 1;
            queries += 1;
        }
    }
    u.previous_token /= queries, u.first_token /= queries, u.self /= queries;
    if (repeats > 0)
        u.induction = induction / repeats;
    return u;
}

checkpoint measured(const train_spec &spec, std::size_t step, double train_loss, model m,
                    adam_state optimizer) {
    const token_batch held_out = task_batch(spec, 0, held_out_sequences);
    validate_model(m), validate_batch(m.config, held_out);
    // One pass of each held-out sequence gives its part of the loss and of the head scores.
    const double counted = mask_total(held_out);
    double loss = 0;
    score_tally tally(m.config);
    for (std::size_t s = 0; s < held_out.tokens.size(); ++s) {
        const std::vector<std::size_t> inputs = sequence_inputs(held_out.tokens[s]);
        const sequence_pass pass = forward_sequence(m, inputs);
        loss = add_sequence_loss(loss, held_out, s, pass, counted);
        tally.add(inputs, pass);
    }
    return {step,
            loss,
            train_loss,
            std::move(m),
            std::move(optimizer),
            tally.scores(),
            uniform_scores(held_out.tokens)};
}

namespace {

// Refuses a run that would take longer than a call may (steps of the batch, forward and backward,
// and each checkpoint's held-out loss and head scores), or whose checkpoints would not fit.
void check_train_budget(const train_spec &spec, bool resumed, std::size_t start,
                        std::size_t steps) {
    const double f = forward_work(spec.config);
    const std::size_t end = start + steps, every = spec.checkpoint_every;
    const double kept =
        double((resumed ? 0 : 1) + end / every - start / every + (end % every ? 1 : 0));
    check_work(double(steps) * double(spec.batch) * 3 * f + kept * 2 * held_out_sequences * f,
               "steps",
               js_number(double(steps)) + " steps of " + js_number(double(spec.batch)) +
                   " sequences of this model",
               "train in parts of fewer steps, each from the last one's checkpoint");
    const double values = kept * 3 * parameter_count(spec.config);
    if (values > work_limits::max_checkpoint_values)
        reject("checkpointEvery",
               js_number(kept) + " checkpoints of this model hold " + js_number(values) +
                   " numbers, more than the limit " +
                   js_number(work_limits::max_checkpoint_values) +
                   "; keep fewer (a larger checkpointEvery) or train fewer steps");
}

} // namespace

std::vector<checkpoint> train(const train_spec &spec, const checkpoint *from, std::size_t steps) {
    validate_config(spec.config, "spec");
    validate_task(spec.task, spec.config);
    if (from && !same_config(from->trained.config, spec.config))
        reject("from", "the checkpoint's model has another config than the spec's");
    if (from) {
        validate_model(from->trained, "from.model");
        if (from->optimizer.step != from->step)
            reject("from.optimizer.step", std::to_string(from->optimizer.step) +
                                              ", but the checkpoint is at step " +
                                              std::to_string(from->step) + " (one update a step)");
        validate_adam_state(from->optimizer, from->trained.config, "from.optimizer");
    }
    const std::size_t start = from ? from->step : 0;
    if (steps == 0)
        steps = spec.steps > start ? spec.steps - start : 0;
    if (steps == 0)
        reject("steps", "nothing to run: the checkpoint is at step " + std::to_string(start) +
                            " and spec.steps is " + std::to_string(spec.steps));
    check_train_budget(spec, from != nullptr, start, steps);
    model m = from ? from->trained : init_model(spec.config, spec.seed);
    adam_state adam = from ? from->optimizer : adam_start(spec.config);
    std::vector<checkpoint> out;
    if (!from)
        out.push_back(measured(spec, 0, std::numeric_limits<double>::quiet_NaN(), m, adam));
    double losses = 0;
    std::size_t since = 0;
    for (std::size_t step = start + 1; step <= start + steps; ++step) {
        const loss_gradients g = loss_and_gradients(m, task_batch(spec, step, spec.batch));
        adam_step(m.params, g.grads, adam, spec.learning_rate);
        losses += g.loss, ++since;
        if (step % spec.checkpoint_every == 0 || step == start + steps) {
            out.push_back(measured(spec, step, losses / double(since), m, adam));
            losses = 0, since = 0;
        }
    }
    return out;
}

} // namespace attention
