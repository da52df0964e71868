// Native timings for `npm run bench`: the multi-head forward without a trace, and the
// traced run, at the bench's configs. Prints one JSON line per measurement.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "attention/engine.hpp"

using namespace attention;

namespace {

struct bench_config {
    std::size_t t, d, h;
    bool traced;
};

template <class F>
double median_ms(F work, int repeats) {
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        work();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

}  // namespace

int main() {
    const bench_config configs[] = {{5, 16, 4, false},     {64, 128, 8, false},  {256, 256, 8, false},
                                    {1024, 768, 12, false}, {5, 16, 4, true},     {64, 128, 8, true},
                                    {256, 256, 8, true}};
    for (const bench_config& b : configs) {
        generated_spec spec;
        spec.seq_len = double(b.t), spec.d_model = double(b.d), spec.num_heads = double(b.h);
        const problem p = make_problem(spec);
        const double work_ms = b.t * b.d >= 256 * 256 ? 400.0 : 50.0;  // enough repeats for a stable median
        const double first = median_ms([&] { b.traced ? (void)run_traced(p) : (void)forward(p); }, 1);
        const int repeats = std::clamp(int(work_ms / std::max(first, 1e-3)), 5, 2001);
        const double ms = median_ms([&] { b.traced ? (void)run_traced(p) : (void)forward(p); }, repeats);
        std::printf("{\"t\":%zu,\"d\":%zu,\"h\":%zu,\"traced\":%s,\"ms\":%.6f,\"repeats\":%d}\n", b.t, b.d,
                    b.h, b.traced ? "true" : "false", ms, repeats);
    }
}
