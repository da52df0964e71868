// Training the default induction run (train.hpp), in chunks of one checkpoint each as the page's
// worker trains: steps per second, and the time until layer 1 first holds an induction head
// (its best induction score ≥ 0.5 on the held-out sequences).
#pragma once

#include <algorithm>
#include <cstdio>

#include "attention/train.hpp"
#include "timing.hpp"

namespace bench {

using namespace attention;

// Layer 1's best induction score at a checkpoint (0 when no token repeats).
inline double induction_of(const checkpoint &c) {
    double best = 0;
    for (const head_score &h : c.scores)
        if (h.layer == 1)
            best = std::max(best, h.induction.value_or(0));
    return best;
}

inline void bench_train() {
    const train_spec spec = default_train_spec(task_kind::induction);
    const auto started = std::chrono::steady_clock::now();
    const double cpu_started = cpu_ms();
    const auto seconds = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    std::vector<checkpoint> run = train(spec, nullptr, spec.checkpoint_every);
    double formed_s = -1, formed_step = -1;
    while (run.back().step < spec.steps) {
        run = train(spec, &run.back(), spec.checkpoint_every);
        if (formed_s < 0 && induction_of(run.back()) >= 0.5)
            formed_s = seconds(), formed_step = double(run.back().step);
    }
    const double total_s = seconds(), cpu_s = (cpu_ms() - cpu_started) / 1000;
    std::printf(
        "{\"what\":\"train\",\"task\":\"induction\",\"steps\":%zu,\"batch\":%zu,\"seconds\":%.3f,"
        "\"cpu_seconds\":%.3f,\"steps_per_s\":%.2f,\"formed_step\":%.0f,\"formed_seconds\":%.3f,"
        "\"induction\":%.4f,\"loss\":%.4f}\n",
        spec.steps, spec.batch, total_s, cpu_s, double(spec.steps) / total_s, formed_step, formed_s,
        induction_of(run.back()), run.back().loss);
}

} // namespace bench
