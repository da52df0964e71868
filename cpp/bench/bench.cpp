// Timings for `npm run bench`, built natively and for WASM from this one source: the
// multi-head forward without a trace, and spec → trace, at the bench's configs.
// Prints one JSON line per measurement.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "attention/engine.hpp"

using namespace attention;

namespace {

struct bench_config {
    std::size_t t, d, h;
    bool traced;
};

template <class F> double median_ms(F work, int repeats) {
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        work();
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

} // namespace

int main() {
#ifdef __GLIBC__
    // glibc hands large blocks back to the kernel on free, so each run would pay page faults
    // again (costly in a VM); WASM's heap keeps its pages. Keep freed memory in the heap so
    // both builds time the computation.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    const bench_config configs[] = {
        {5, 16, 4, false}, {64, 128, 8, false}, {256, 256, 8, false}, {1024, 768, 12, false},
        {5, 16, 4, true},  {64, 128, 8, true},  {256, 256, 8, true}};
    for (const bench_config &b : configs) {
        generated_spec spec;
        spec.seq_len = double(b.t), spec.d_model = double(b.d), spec.num_heads = double(b.h);
        const problem p = make_problem(spec);
        // forward: the prepared problem's product only. traced: spec → trace, as run() does.
        const auto work = [&] {
            b.traced ? (void)run_traced(make_problem(spec, true)) : (void)forward(p);
        };
        const double budget_ms =
            b.t * b.d >= 256 * 256 ? 400.0 : 50.0; // repeats for a stable median
        const double once = median_ms(work, 1);
        const int repeats = std::clamp(int(budget_ms / std::max(once, 1e-3)), 5, 2001);
        std::printf("{\"t\":%zu,\"d\":%zu,\"h\":%zu,\"traced\":%s,\"ms\":%.6f,\"repeats\":%d}\n",
                    b.t, b.d, b.h, b.traced ? "true" : "false", median_ms(work, repeats), repeats);
    }
}
