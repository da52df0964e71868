// Multi-head latent attention's forward (DeepSeek-V2) against multi-head self-attention's at the
// same T, D, H, DK, DV, causal, timed side by side, with the multiply-adds of each and the
// floats one layer caches per token. MLA's forward here is the unabsorbed form: every head's K
// and V made in full, up from the latent (c_kv · W_UK, c_kv · W_UV), and every score with a
// decoupled RoPE part beside them: it saves cache, not multiply-adds.
// T = tokens, D = d_model, H = heads, DK = d_k, DV = d_v, DC = d_latent, DR = d_rope.
#pragma once

#include <cstdio>

#include "attention/engine.hpp"
#include "attention/mask.hpp"
#include "attention/mla.hpp"
#include "attention/spec.hpp"
#include "timing.hpp"

namespace bench {

using namespace attention;

struct mla_case {
    std::size_t t, d, h, dk, dv, dc, dr;
};

// Keys each query sees, summed over the queries: what Q·Kᵀ and A·V compute under the mask.
inline double keys_seen(const attention_config &c) {
    double seen = 0.0;
    for (const key_span &s : visible_spans(c))
        seen += double(s.end - s.begin);
    return seen;
}

// Multi-head attention's multiply-adds: X·W_Q, X·W_K, X·W_V per head, Q·Kᵀ and A·V over the
// keys seen, and the concat · W_O.
inline double mha_macs(const attention_config &c) {
    const double t = double(c.seq_len), d = double(c.d_model), h = double(c.num_heads);
    const double dk = double(c.d_k), dv = double(c.d_v);
    return t * d * h * (2 * dk + dv) + keys_seen(c) * h * (dk + dv) + t * h * dv * d;
}

// MLA's: X·W_DKV and X·W_KR once; per head X·W_Q, X·W_QR, c_kv·W_UK, c_kv·W_UV; scores over
// DK + DR columns and A·V over the keys seen; the concat · W_O. RoPE's turns are not counted.
inline double mla_macs(const attention_config &c) {
    const double t = double(c.seq_len), d = double(c.d_model), h = double(c.num_heads);
    const double dk = double(c.d_k), dv = double(c.d_v), dc = double(c.d_latent),
                 dr = double(c.d_rope);
    return t * d * (dc + dr) + t * d * h * (dk + dr) + t * dc * h * (dk + dv) +
           keys_seen(c) * h * (dk + dr + dv) + t * h * dv * d;
}

// forward() of kind mla and of self-attention (W_O, causal) at the same sizes, in turns, each
// on its own drawn X and weights. ratio (cpu_ratio): MLA / MHA in wall (CPU) time, round by
// round.
inline void bench_mla(const mla_case &b) {
    generated_spec spec;
    spec.seq_len = double(b.t), spec.d_model = double(b.d), spec.num_heads = double(b.h);
    spec.d_k = double(b.dk), spec.d_v = double(b.dv), spec.causal = true;
    const problem mha = make_problem(spec);
    spec.kind = problem_kind::mla;
    spec.d_latent = double(b.dc), spec.d_rope = double(b.dr);
    problem mla = make_problem(spec);
    // RoPE on every one of the d_r columns, as the JS spec reader sets it (make_problem leaves
    // config.rope to the reader, and latent_attention reads it whenever d_r > 0).
    rope_settings rope;
    rope.dims = b.dr;
    if (b.dr)
        mla.config.rope = rope;
    const auto ms =
        interleaved_ms({[&] { (void)forward(mla); }, [&] { (void)forward(mha); }}, 3000.0, 7);
    const latent_cache_floats cache = latent_cache(mla.config);
    std::printf("{\"what\":\"mla\",\"t\":%zu,\"d\":%zu,\"h\":%zu,\"dk\":%zu,\"dv\":%zu,\"dc\":%zu,"
                "\"dr\":%zu,\"mla_macs\":%.0f,\"mha_macs\":%.0f,\"cache_mla\":%zu,"
                "\"cache_mha\":%zu,\"mla_ms\":%.6f,\"mha_ms\":%.6f,\"ratio\":%.4f,"
                "\"cpu_ratio\":%.4f,\"repeats\":%zu}\n",
                b.t, b.d, b.h, b.dk, b.dv, b.dc, b.dr, mla_macs(mla.config), mha_macs(mha.config),
                cache.mla, cache.mha, median(ms.wall[0]), median(ms.wall[1]),
                median_ratio(ms.wall[0], ms.wall[1]), median_ratio(ms.cpu[0], ms.cpu[1]),
                ms.wall[0].size());
}

} // namespace bench
