#include "attention/heads.hpp"

#include <algorithm>

#include "attention/alibi.hpp"
#include "attention/mask.hpp"

namespace attention {

matrix copy_of(matrix_view m) {
    matrix out({m.rows, m.cols});
    for (std::size_t i = 0; i < m.rows; ++i)
        std::copy(m.data + i * m.ld, m.data + i * m.ld + m.cols, &out(i, 0));
    return out;
}

namespace {

// What the backward pass reads of head i: its q, its weights, and with its group's first head the
// group's k and v.
void keep_head(attention_cache &keep, std::size_t i, const head_operands &h, const matrix &weights,
               const attention_config &c) {
    keep.q.push_back(copy_of(h.q));
    keep.a.push_back(weights);
    if (i % group_size(c) != 0)
        return;
    keep.k.push_back(copy_of(h.k));
    keep.v.push_back(copy_of(h.v));
}

// The weights stage a head pass just recorded: before its head stage (and its sink's share).
const stage &weights_recorded(const trace &t, const attention_config &c) {
    return t.stages[t.stages.size() - (c.sinks.empty() ? 2 : 3)];
}

} // namespace

matrix attend_heads(const head_reader &read, const matrix &w_o, const attention_config &c,
                    const heads_pass &pass) {
    const std::size_t rows = pass.t.size, n_keys = pass.tkv.size;
    matrix weights({rows, n_keys});             // (T, T_kv), one head's at a time
    matrix concat({rows, c.num_heads * c.d_v}); // (T, H·DV)
    std::optional<head_trace> rec;
    if (pass.out) // M is one matrix, shared by every head's masked stage
        rec.emplace(head_trace{*pass.out,
                               {},
                               pass.t,
                               pass.tkv,
                               {},
                               {},
                               {},
                               has_mask(c) ? mask_of(c, pass.keys, n_keys) : matrix()});
    std::vector<shared_matrix> heads; // H × (T, DV): the concat's operands, when traced
    for (std::size_t i = 0; i < c.num_heads; ++i) {
        if (rec) {
            weights = matrix({rows, n_keys}); // the last head's moved into the trace
            rec->at = {int(i), int(i / group_size(c)), pass.step, {}};
        }
        const head_operands h = read(i, rec ? &*rec : nullptr);
        linear_bias bias = c.alibi ? alibi_of(c, i, pass.first_query) : linear_bias{};
        bias.key_positions = h.key_positions;
        const output_view head{concat.data() + i * c.d_v, rows, c.d_v, cols(concat)};
        attend_head(h.q, h.k, h.v, pass.keys, c, weights, head, rec ? &*rec : nullptr,
                    c.alibi ? &bias : nullptr, c.sinks.empty() ? nullptr : &c.sinks[i]);
        if (rec) // the head stage just recorded, and the weights stage before it (and the sink's)
            heads.push_back(pass.out->stages.back().values);
        if (pass.keep)
            keep_head(*pass.keep, i, h,
                      rec ? weights_recorded(*pass.out, c).values.get() : weights, c);
    }
    if (pass.keep)
        pass.keep->concat = concat;
    return combine(std::move(concat), heads, w_o, c, pass.out, {no_head, no_head, pass.step, {}},
                   pass.t);
}

} // namespace attention
