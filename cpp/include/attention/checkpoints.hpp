// The trained model the engine ships, for the stepper's chapter "trained": the default induction
// run (train.hpp) at its first checkpoint and its last.
#pragma once

#include <string>

#include "attention/model.hpp"

namespace attention {

// "untrained": init_model of the run's config and seed, its step 0. "trained": its step 1000,
// the weights compiled in (checkpoint_induction.inc, which scripts/compile-checkpoint.mjs writes
// from the run web/checkpoints/induction.json holds). Throws naming "checkpoint" for any other.
const model &shipped_model(const std::string &checkpoint);

// The checkpoints shipped, in order: "trained, untrained".
const char *checkpoint_names();

} // namespace attention
