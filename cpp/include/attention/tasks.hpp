// The training tasks: sequences of T + 1 tokens drawn from numpy's generator, and a weight of 1
// on each input position whose next token counts in the loss (0 elsewhere). V = vocab,
// T = seq_len, positions 0 … T.
//   induction       a random-length prefix (p tokens), a block of n = 4–8 random tokens, the same
//                   block again, then random filler. Counted: the inputs p + n … p + 2n − 2, whose
//                   targets are the copy's tokens after its first; only a head that finds the
//                   previous occurrence of the current token and reads the token after it can
//                   predict them.
//   previous-token  triples (a, b, a) of random tokens, repeated to position T (the last triple
//                   cut short). Counted: each b, whose next token is the one before it; only a
//                   head that attends one position back can say it.
//   two-relations   a random symbol s₀, then triples (s, r, ⟨s₀, s⟩) to position T (the last cut
//                   short): s and r random symbols of K, ⟨s₀, s⟩ the pair token K + s₀·K + s
//                   (V = K + K²). Counted: each r, whose next token needs both key 0 and key t − 1.
#pragma once

#include <cstdint>
#include <string>

#include "attention/model.hpp"
#include "attention/rng.hpp"

namespace attention {

enum class task_kind { induction, previous_token, two_relations };

const char *task_name(task_kind t);
std::string task_names();                      // "induction, previous-token, two-relations"
task_kind task_named(const std::string &name); // throws naming the field "task"

// Refuses sizes the task cannot fill: an induction sequence holds the block twice (T + 1 ≥ 8),
// two-relations needs V = K + K² (K ≥ 2) and T ≥ 3.
void validate_task(task_kind t, const model_config &c);

// `count` sequences of the task and their counted positions, drawn in order: per sequence,
// induction draws the block's length n (4 + ⌊u · (min(8, ⌊(T + 1)/2⌋) − 3)⌋), the prefix's length
// (⌊u · (T + 2 − 2n)⌋) and then T + 1 tokens ⌊u · V⌋ (the copy overwrites its n); the other tasks
// draw each token they do not repeat, ⌊u · V⌋ or ⌊u · K⌋, left to right. u: rng.uniform(), numpy's
// random_sample().
token_batch draw_batch(task_kind t, const model_config &c, std::size_t count, numpy_random &rng);

// The seed of stream k of a run seeded with `seed`: (seed · 2654435761 + k) mod 2³². Stream 0
// draws the held-out sequences, stream k ≥ 1 the batch of step k, so any step's batch is drawn
// without the steps before it (which makes a run resumable).
std::uint32_t stream_seed(std::uint32_t seed, std::uint64_t k);

} // namespace attention
