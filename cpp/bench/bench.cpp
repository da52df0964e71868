// Timings for `npm run bench`, built natively (SSE2, and once more with -march=native) and for
// WASM from this one source: the multi-head forward without a trace, and spec → trace, at the
// bench's configs, causal; FlashAttention's tiled pass against ordinary attention; decoding with
// a KV cache against recomputing; a sliding window against full causal attention as T grows,
// the forward with RoPE or ALiBi against it without, the backward pass against the forward, the
// default induction training run, and MLA's forward against multi-head attention's. Prints one
// JSON line per measurement.
// `attention_bench [forward] [flash] [decode] [window] [positions] [backward] [train] [mla]` runs
// only the parts named.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "attention/engine.hpp"
#include "backward_bench.hpp"
#include "decode_bench.hpp"
#include "flash_bench.hpp"
#include "mla_bench.hpp"
#include "positions_bench.hpp"
#include "timing.hpp"
#include "train_bench.hpp"

using namespace attention;

namespace {

struct bench_config {
    std::size_t t, d, h;
    bool traced, causal;
};

void bench_forward(const bench_config &b) {
    generated_spec spec;
    spec.seq_len = double(b.t), spec.d_model = double(b.d), spec.num_heads = double(b.h);
    spec.causal = b.causal;
    const problem p = make_problem(spec);
    // forward: the prepared problem's product only. traced: spec → trace, as run() does.
    const auto work = [&] {
        b.traced ? (void)run_traced(make_problem(spec, true)) : (void)forward(p);
    };
    const double budget_ms = b.t * b.d >= 256 * 256 ? 400.0 : 50.0; // repeats for a stable median
    const int repeats = bench::repeats_for(bench::ms_of(work), budget_ms, 5);
    std::printf("{\"t\":%zu,\"d\":%zu,\"h\":%zu,\"traced\":%s,\"causal\":%s,\"ms\":%.6f,"
                "\"repeats\":%d}\n",
                b.t, b.d, b.h, b.traced ? "true" : "false", b.causal ? "true" : "false",
                bench::median_ms(work, repeats), repeats);
}

// Where run() goes beyond forward() at (t, d, h): drawing the spec's matrices, then the products,
// then recording the trace (causal: with every hidden score, which the trace shows, and the
// check of each prefix), in turns.
void bench_trace_parts(std::size_t t, std::size_t d, std::size_t h, bool causal) {
    generated_spec spec;
    spec.seq_len = double(t), spec.d_model = double(d), spec.num_heads = double(h);
    spec.causal = causal;
    const auto ms = bench::interleaved_ms({[&] { (void)make_problem(spec, true); },
                                           [&] { (void)forward(make_problem(spec)); },
                                           [&] { (void)run_traced(make_problem(spec, true)); }},
                                          3000.0, 9);
    std::printf("{\"what\":\"trace_parts\",\"t\":%zu,\"d\":%zu,\"h\":%zu,\"causal\":%s,"
                "\"draw_ms\":%.6f,\"forward_ms\":%.6f,\"run_ms\":%.6f}\n",
                t, d, h, causal ? "true" : "false", bench::median(ms.wall[0]),
                bench::median(ms.wall[1]),
                bench::median(ms.wall[2]));
}

} // namespace

// Longer than 40 lines: the argument parsing and the table of timings, read top to bottom.
int main(int argc, char **argv) {
#ifdef __GLIBC__
    // glibc hands large blocks back to the kernel on free, so each run would pay page faults
    // again (costly in a VM); WASM's heap keeps its pages. Keep freed memory in the heap so
    // both builds time the computation.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    const std::vector<std::string> parts(argv + 1, argv + argc);
    const auto wanted = [&](const char *part) {
        return parts.empty() || std::find(parts.begin(), parts.end(), part) != parts.end();
    };
    // Causal (each head leaves the hidden half of its scores out); the largest also without a
    // mask, where nothing is left out.
    const bench_config configs[] = {{5, 16, 4, false, true},       {64, 128, 8, false, true},
                                    {256, 256, 8, false, true},    {1024, 768, 12, false, true},
                                    {1024, 768, 12, false, false}, {5, 16, 4, true, true},
                                    {64, 128, 8, true, true},      {256, 256, 8, true, true}};
    if (wanted("forward")) {
        for (const bench_config &b : configs)
            bench_forward(b);
        for (const bool causal : {false, true})
            bench_trace_parts(256, 256, 8, causal);
    }
    // One head of d_model 768 with the d_k of a 12-head layer, in 64 × 64 tiles.
    if (wanted("flash"))
        for (const bool causal : {false, true})
            bench::bench_flash({1024, 768, 64, 64, causal});
    // The forward's largest layer, decoded token by token; W_O on, as in the engine's default.
    if (wanted("decode"))
        bench::bench_decode({1024, 768, 12, 12});
    // A window of 256 keys against the causal mask at 1024 to 4096 tokens, d_k 64 as in GPT-2.
    if (wanted("window"))
        for (const std::size_t t : {1024, 2048, 4096})
            bench::bench_window({t, 256, 4, 256});
    // RoPE and ALiBi at the forward's largest layer.
    if (wanted("positions"))
        bench::bench_positions(1024, 768, 12);
    // The backward pass (with its own forward) against the forward, with W_O, causal and not;
    // then under a window of 64 keys from 256 to 2048 tokens, d_k 64, where both follow T·W.
    if (wanted("backward")) {
        for (const bool causal : {true, false})
            bench::bench_backward({256, 256, 8, causal});
        for (const std::size_t t : {256, 512, 1024, 2048})
            bench::bench_backward({t, 256, 4, true, 64});
    }
    // The default induction run, in chunks of a checkpoint, to its last step.
    if (wanted("train"))
        bench::bench_train();
    // MLA against MHA at DeepSeek-V2's proportions within the engine's limits: d_h 64 (V2: 128),
    // d_c = 4·d_h and d_r = d_h / 2 as in V2, 8 heads of d_model 512.
    if (wanted("mla"))
        for (const std::size_t t : {256, 1024})
            bench::bench_mla({t, 512, 8, 64, 64, 256, 32});
}
