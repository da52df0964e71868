#include "attention/tasks.hpp"

#include <algorithm>
#include <stdexcept>

#include "attention/message_text.hpp"
#include "attention/validation.hpp"

namespace attention {

namespace {

constexpr const char *names[] = {"induction", "previous-token", "two-relations"};

// ⌊u · n⌋: a whole number in [0, n).
std::size_t below(numpy_random &rng, std::size_t n) {
    return std::size_t(rng.uniform() * double(n));
}

// K of V = K + K², or 0 when V is not of that form.
std::size_t symbols_of(std::size_t vocab) {
    for (std::size_t k = 1; k + k * k <= vocab; ++k)
        if (k + k * k == vocab)
            return k;
    return 0;
}

void draw_induction(std::vector<std::size_t> &s, double *counted, std::size_t vocab,
                    numpy_random &rng) {
    const std::size_t longest = std::min<std::size_t>(8, s.size() / 2);
    const std::size_t n = 4 + below(rng, longest - 3);
    const std::size_t prefix = below(rng, s.size() + 1 - 2 * n);
    for (std::size_t &token : s)
        token = below(rng, vocab);
    std::copy_n(s.begin() + prefix, n, s.begin() + prefix + n);
    std::fill_n(counted + prefix + n, n - 1, 1.0); // at copy[j], predicting copy[j + 1]
}

void draw_previous_token(std::vector<std::size_t> &s, double *counted, std::size_t vocab,
                         numpy_random &rng) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        s[i] = i % 3 == 2 ? s[i - 2] : below(rng, vocab);
        if (i % 3 == 1 && i + 1 < s.size())
            counted[i] = 1; // at b, predicting a
    }
}

void draw_two_relations(std::vector<std::size_t> &s, double *counted, std::size_t vocab,
                        numpy_random &rng) {
    const std::size_t k = symbols_of(vocab);
    s[0] = below(rng, k);
    for (std::size_t i = 1; i < s.size(); ++i) {
        const std::size_t phase = (i - 1) % 3;
        s[i] = phase == 2 ? k + s[0] * k + s[i - 2] : below(rng, k);
        if (phase == 1 && i + 1 < s.size())
            counted[i] = 1; // at r, predicting ⟨s₀, s⟩
    }
}

} // namespace

const char *task_name(task_kind t) {
    return names[int(t)];
}

std::string task_names() {
    return std::string(names[0]) + ", " + names[1] + ", " + names[2];
}

task_kind task_named(const std::string &name) {
    for (int i = 0; i < 3; ++i)
        if (name == names[i])
            return task_kind(i);
    reject("task", quoted_for_message(name) + " is not a task; the tasks are " + task_names());
}

void validate_task(task_kind t, const model_config &c) {
    if (t == task_kind::induction && c.seq_len + 1 < 8)
        reject("seqLen",
               std::to_string(c.seq_len) +
                   " is too short for the induction task, whose sequences hold a block of "
                   "at least 4 tokens twice (seqLen ≥ 7)");
    if (t == task_kind::two_relations && symbols_of(c.vocab) < 2)
        reject("vocab", std::to_string(c.vocab) +
                            " is not K + K² for K ≥ 2 symbols (6, 12, 20, 30, 42, …): the "
                            "two-relations task has a token for each pair of symbols");
    if (t == task_kind::two_relations && c.seq_len < 3)
        reject("seqLen",
               std::to_string(c.seq_len) + " is too short for the two-relations task (seqLen ≥ 3)");
}

token_batch draw_batch(task_kind t, const model_config &c, std::size_t count, numpy_random &rng) {
    token_batch b{
        std::vector<std::vector<std::size_t>>(count, std::vector<std::size_t>(c.seq_len + 1)),
        matrix({count, c.seq_len}, 0.0)};
    for (std::size_t i = 0; i < count; ++i) {
        double *counted = &b.mask(i, 0);
        if (t == task_kind::induction)
            draw_induction(b.tokens[i], counted, c.vocab, rng);
        else if (t == task_kind::previous_token)
            draw_previous_token(b.tokens[i], counted, c.vocab, rng);
        else
            draw_two_relations(b.tokens[i], counted, c.vocab, rng);
    }
    return b;
}

std::uint32_t stream_seed(std::uint32_t seed, std::uint64_t k) {
    return std::uint32_t((std::uint64_t(seed) * 2654435761u + k) & 0xffffffffu);
}

} // namespace attention
