// Passes 7–8: the heads' outputs joined side by side, pruned heads zeroed, then W_O, recorded
// with each head's share of the output. T = rows, H = heads, DV = d_v, D = d_model.
#include "attention/passes.hpp"

#include <utility>
#include <vector>

#include "attention/gemm.hpp"
#include "attention/ops.hpp"

namespace attention {

namespace {

// Head i's share of the output: its columns of the concat times the rows of W_O they meet.
// concat: (T, H·DV), w_o: (H·DV, D) → (T, D).
matrix contribution(const matrix &concat, const matrix &w_o, std::size_t i, std::size_t dv) {
    matrix out({rows(concat), cols(w_o)});
    gemm(rows(concat), dv, cols(w_o), &concat(0, i * dv), cols(concat), &w_o(i * dv, 0), cols(w_o),
         out.data(), cols(w_o));
    return out;
}

// 8. concat · W_O as the sum of the heads' shares, added in head order. It rounds a little
// differently from one product over all H·DV columns; summed this way, the traced run keeps
// each share and the forward pass has the same bits. shares: where to keep them, or nullptr.
// concat: (T, H·DV), w_o: (H·DV, D) → (T, D).
matrix sum_of_shares(const matrix &concat, const matrix &w_o, std::size_t dv,
                     std::vector<matrix> *shares) {
    matrix output = xt::zeros<double>({rows(concat), cols(w_o)}); // (T, D)
    for (std::size_t i = 0; i < cols(concat) / dv; ++i) {
        if (!shares && dv <= gemm_depth) { // the same additions, made inside the product
            gemm_add(rows(concat), dv, cols(w_o), &concat(0, i * dv), cols(concat), &w_o(i * dv, 0),
                     cols(w_o), output.data(), cols(w_o));
            continue;
        }
        matrix part = contribution(concat, w_o, i, dv); // (T, D)
        const double *from = part.data();
        for (double *to = output.data(), *end = to + output.size(); to != end; ++to, ++from)
            *to += *from;
        if (shares)
            shares->push_back(std::move(part));
    }
    return output;
}

// (1, H·DV): 0 in the columns of the pruned heads, 1 elsewhere.
matrix head_gate(const attention_config &c) {
    matrix gate = xt::ones<double>({std::size_t(1), c.num_heads * c.d_v});
    for (std::size_t h : c.pruned_heads)
        for (std::size_t j = h * c.d_v; j < (h + 1) * c.d_v; ++j)
            gate(0, j) = 0.0;
    return gate;
}

// The concat with the pruned heads' columns zeroed, recorded as its own stage.
shared_matrix pruned(const shared_matrix &concat, const attention_config &c, trace *out,
                     stage_at at, const dim &t) {
    const matrix gate = head_gate(c); // (1, H·DV)
    matrix kept = concat;             // (T, H·DV)
    for (std::size_t i = 0; i < rows(kept); ++i)
        for (std::size_t j = 0; j < cols(kept); ++j)
            kept(i, j) *= gate(0, j);
    shared_matrix shared = std::move(kept);
    if (out) {
        const named_dims n(c);
        record(out, stage_id::pruned, at, {t, n.hdv, {1, "1"}}, shared,
               operand{name_of(stage_id::concat), no_head, concat, axes_of(t, n.hdv)},
               operand{"gate", no_head, gate, axes_of({1, "1"}, n.hdv)});
    }
    return shared;
}

// 7. The concat, recorded with each head as an operand. concat: (T, H·DV), heads: H × (T, DV).
void record_concat(const shared_matrix &concat, const std::vector<shared_matrix> &heads,
                   const attention_config &c, trace &out, stage_at at, const dim &t) {
    const named_dims n(c);
    std::vector<operand> each; // one per head
    for (std::size_t i = 0; i < c.num_heads; ++i)
        each.push_back({name_of(stage_id::head), int(i), heads[i], axes_of(t, n.dv)});
    record(&out, stage_id::concat, at, {n.h, t, n.dv, n.hdv}, concat, std::move(each));
}

// 7–8 with a trace: the concat, then W_O, recorded with each head's share of the output.
// concat: (T, H·DV), heads: H × (T, DV) → (T, D).
matrix combine_recorded(const shared_matrix &concat, const std::vector<shared_matrix> &heads,
                        const matrix &w_o, const attention_config &c, trace &out, stage_at at,
                        const dim &t) {
    const named_dims n(c);
    record_concat(concat, heads, c, out, at, t);

    // 7½. Prune: the chosen heads' columns become 0, so W_O mixes only the others.
    const bool pruning = !c.pruned_heads.empty();
    const shared_matrix mixed = pruning ? pruned(concat, c, &out, at, t) : concat; // (T, H·DV)

    // 8. Project back to d_model with W_O, which mixes information across heads.
    std::vector<matrix> shares;                                // H × (T, D)
    matrix output = sum_of_shares(mixed, w_o, c.d_v, &shares); // (T, D)
    std::vector<operand> contributions; // Σ_i contribution_i = output, bit for bit
    for (std::size_t i = 0; i < c.num_heads; ++i)
        contributions.push_back({"contribution", int(i), std::move(shares[i]), axes_of(t, n.d)});
    record(&out, stage_id::output, at, {t, n.hdv, n.d, n.h}, output,
           operand{name_of(pruning ? stage_id::pruned : stage_id::concat), no_head, mixed,
                   axes_of(t, n.hdv)},
           operand{"W_O", no_head, w_o, axes_of(n.hdv, n.d)}, std::move(contributions));
    if (pruning)
        out.checks.output_change =
            relative_change(output, sum_of_shares(concat, w_o, c.d_v, nullptr));
    return output;
}

} // namespace

// 7. The heads side by side along the feature axis: the concat the caller joined. Without W_O
// it is the output, recorded when there are heads to join (one head's concat is that head).
matrix combine(matrix concat, const std::vector<shared_matrix> &heads, const matrix &w_o,
               const attention_config &c, trace *out, stage_at at, const dim &t) {
    if (!c.output_projection) {
        if (!out || c.num_heads == 1)
            return concat;
        const shared_matrix joined = std::move(concat);
        record_concat(joined, heads, c, *out, at, t);
        return joined; // a copy for the caller (T, H·DV): the trace holds the shared one
    }
    if (out)
        return combine_recorded(std::move(concat), heads, w_o, c, *out, at, t);
    const bool pruning = !c.pruned_heads.empty();
    return sum_of_shares(pruning ? pruned(std::move(concat), c, nullptr, at, t).get() : concat, w_o,
                         c.d_v, nullptr);
}

} // namespace attention
