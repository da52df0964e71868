// Wall-clock timing for the bench: medians of repeated runs, and pairs of runs interleaved so
// that a noisy, shared machine slows both sides of a comparison alike.
#pragma once

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <utility>
#include <vector>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
// The WASM bench runs under node (-sENVIRONMENT=node), whose process knows its CPU time.
EM_JS(double, node_cpu_ms, (), {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
});
#endif

namespace bench {

// CPU time so far (ms): what other processes on a shared machine take from the wall clock
// does not count. This thread's natively; node's process (one thread here) in WASM.
inline double cpu_ms() {
#ifdef __EMSCRIPTEN__
    return node_cpu_ms();
#else
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
#endif
}

template <class F> double ms_of(F &&work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

inline double median(std::vector<double> ms) {
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

template <class F> double median_ms(F &&work, int repeats) {
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r)
        ms.push_back(ms_of(work));
    return median(ms);
}

// Enough repeats to fill budget_ms, judged from one run of once_ms, for a stable median.
inline int repeats_for(double once_ms, double budget_ms, int at_least) {
    return std::clamp(int(budget_ms / std::max(once_ms, 1e-3)), at_least, 2001);
}

// a and b run alternately, after one warm-up run each; returns both medians.
template <class A, class B>
std::pair<double, double> paired_median_ms(A &&a, B &&b, double budget_ms, int *repeats) {
    *repeats = repeats_for(ms_of(a) + ms_of(b), budget_ms, 5);
    std::vector<double> ms_a, ms_b;
    for (int r = 0; r < *repeats; ++r) {
        ms_a.push_back(ms_of(a));
        ms_b.push_back(ms_of(b));
    }
    return {median(ms_a), median(ms_b)};
}

// Each work's wall and CPU times (ms), round by round.
struct rounds {
    std::vector<std::vector<double>> wall, cpu;
};

// Every work in turn, each round starting one further along (so none always follows the same
// other), after one warm-up run each.
inline rounds interleaved_ms(const std::vector<std::function<void()>> &works, double budget_ms,
                             int at_least) {
    double once_ms = 0.0;
    for (const auto &work : works)
        once_ms += ms_of(work);
    const std::size_t n = std::size_t(repeats_for(once_ms, budget_ms, at_least));
    rounds out{std::vector<std::vector<double>>(works.size(), std::vector<double>(n)),
               std::vector<std::vector<double>>(works.size(), std::vector<double>(n))};
    for (std::size_t r = 0; r < n; ++r)
        for (std::size_t k = 0; k < works.size(); ++k) {
            const std::size_t i = (r + k) % works.size();
            const double cpu_start = cpu_ms();
            out.wall[i][r] = ms_of(works[i]);
            out.cpu[i][r] = cpu_ms() - cpu_start;
        }
    return out;
}

// The median over rounds of a's time / b's time in the same round: a load on the machine that
// comes and goes slows both sides of each quotient alike, where it would shift either median.
inline double median_ratio(const std::vector<double> &a, const std::vector<double> &b) {
    std::vector<double> ratios;
    for (std::size_t r = 0; r < a.size(); ++r)
        ratios.push_back(a[r] / b[r]);
    return median(ratios);
}

} // namespace bench
