#include "attention/costs.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <xtensor/xview.hpp>

#include "attention/flash.hpp"

namespace attention {

namespace {

pass_costs costs_of(double t, double tkv, double d, double h, double h_kv, double dk, double dv,
                    bool projected) {
    pass_costs p{t * d * h * dk + tkv * d * h_kv * (dk + dv),
                 h * t * tkv * dk,
                 h * t * tkv * dv,
                 projected ? t * h * dv * d : 0.0,
                 0.0,
                 h * t * tkv};
    p.total = p.projections + p.scores + p.values + p.output;
    return p;
}

} // namespace

head_split_costs head_split(const attention_config &c) {
    const double t = double(c.seq_len), tkv = double(c.kv_len), d = double(c.d_model),
                 h = double(c.num_heads), dk = double(c.d_k), dv = double(c.d_v);
    return {costs_of(t, tkv, d, h, double(c.num_kv_heads), dk, dv, c.output_projection),
            costs_of(t, tkv, d, 1, 1, h * dk, h * dv, c.output_projection)};
}

slow_memory_traffic memory_traffic(const attention_config &c) {
    const double t = double(c.seq_len), dk = double(c.d_k), dv = double(c.d_v);
    double kv_reads = 0; // Σ over kept tiles of B_c·(DK + DV)
    for (std::size_t i0 = 0; i0 < c.seq_len; i0 += c.block_rows)
        for (std::size_t j0 = 0; j0 < c.kv_len; j0 += c.block_cols) {
            const std::size_t i1 = std::min(i0 + c.block_rows, c.seq_len),
                              j1 = std::min(j0 + c.block_cols, c.kv_len);
            if (tile_needed(c, i0, i1, j0, j1))
                kv_reads += double(j1 - j0) * (dk + dv);
        }
    return {2 * t * dk + 2 * t * dv + 4 * t * t, t * dk + kv_reads + t * dv};
}

std::vector<double> causal_prefix_differences(const attention_params &p, const attention_config &c,
                                              const matrix &output) {
    std::vector<double> out;
    attention_params q = p; // the weights copied once; X cut to each prefix below
    for (std::size_t t = 0; t < std::min<std::size_t>(c.seq_len, 16); ++t) {
        attention_config prefix = c; // tokens 0 … t alone
        prefix.seq_len = prefix.kv_len = t + 1;
        q.x = xt::view(p.x, xt::range(0, t + 1), xt::all()); // (t + 1, D)
        const matrix alone = multi_head_attention(q, prefix); // (t + 1, ·)
        double worst = 0;
        for (std::size_t j = 0; j < cols(output); ++j)
            worst = std::max(worst, std::fabs(alone(t, j) - output(t, j)));
        out.push_back(worst);
    }
    return out;
}

training_passes causal_training_passes(std::size_t batch, std::size_t seq_len) {
    return {double(batch) * double(seq_len), double(batch)};
}

} // namespace attention
