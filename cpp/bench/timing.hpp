// Wall-clock timing for the bench: medians of repeated runs, and pairs of runs interleaved so
// that a noisy, shared machine slows both sides of a comparison alike.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <utility>
#include <vector>

namespace bench {

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

// Every work in turn, each round starting one further along (so none always follows the same
// other), after one warm-up run each; returns each one's median.
inline std::vector<double> interleaved_median_ms(const std::vector<std::function<void()>> &works,
                                                 double budget_ms, int at_least, int *repeats) {
    double once_ms = 0.0;
    for (const auto &work : works)
        once_ms += ms_of(work);
    *repeats = repeats_for(once_ms, budget_ms, at_least);
    std::vector<std::vector<double>> ms(works.size());
    for (int r = 0; r < *repeats; ++r)
        for (std::size_t k = 0; k < works.size(); ++k) {
            const std::size_t i = (std::size_t(r) + k) % works.size();
            ms[i].push_back(ms_of(works[i]));
        }
    std::vector<double> medians;
    for (const auto &m : ms)
        medians.push_back(median(m));
    return medians;
}

} // namespace bench
