#include "attention/backward.hpp"

#include <algorithm>
#include <cmath>

#include "attention/ops.hpp"
#include "attention/passes.hpp"
#include "attention/rope.hpp"

namespace attention {

attention_cache attention_forward(const matrix &x, const attention_params &p,
                                  const attention_config &c) {
    attention_cache f;
    multi_head_attention(x, p, c, nullptr, &f);
    return f;
}

namespace {

// The softmax's backward pass, row by row: dL = A ⊙ (dA − rowsum(dA ⊙ A)). Where A is exactly 0
// (a hidden key), so is dL. a, d_a: (T, T_kv).
matrix softmax_backward(const matrix &a, const matrix &d_a) {
    matrix d_l({rows(a), cols(a)});
    for (std::size_t i = 0; i < rows(a); ++i) {
        double row_term = 0;
        for (std::size_t j = 0; j < cols(a); ++j)
            row_term += d_a(i, j) * a(i, j);
        for (std::size_t j = 0; j < cols(a); ++j)
            d_l(i, j) = a(i, j) * (d_a(i, j) - row_term);
    }
    return d_l;
}

// Records stage `id` when tracing; a no-op otherwise.
template <class... Operands>
void note(trace *out, stage_id id, stage_at at, const std::vector<dim> &dims,
          const shared_matrix &values, Operands &&...operands) {
    if (out)
        record(out, id, at, dims, values, std::forward<Operands>(operands)...);
}

operand op(const char *name, int head, const shared_matrix &m, const dim &r, const dim &c) {
    return operand{name, head, m, axes_of(r, c)};
}

} // namespace

attention_gradients attention_backward(const attention_params &p, const matrix &d_output,
                                       const attention_config &c, trace *out) {
    attention_cache f; // the forward stages recorded as every chapter records them, and kept
    multi_head_attention(p.x, p, c, out, &f);
    return attention_backward(f, p, d_output, c, out);
}

attention_gradients attention_backward(const attention_cache &f, const attention_params &p,
                                       const matrix &d_output, const attention_config &c,
                                       trace *out) {
    const named_dims n(c);
    const std::size_t G = group_size(c);
    const dim group{G, "g"}, parts{c.num_heads + 2 * c.num_kv_heads, "parts"}; // g = h / h_kv
    const char *x_name = c.sinusoidal ? name_of(stage_id::x_pos) : "X";
    const bool rope = c.rope.has_value();
    attention_gradients grad;
    const shared_matrix d_o = d_output; // (T, D), or (T, H·DV) without W_O
    const dim &o_cols = c.output_projection ? n.d : n.hdv;
    note(out, stage_id::d_output, {}, {n.t, o_cols}, d_o);
    // 8. output = concat · W_O: dW_O = concatᵀ · dO, dConcat = dO · W_Oᵀ.
    shared_matrix d_concat = d_o; // (T, H·DV)
    if (c.output_projection) {
        grad.w_o = matmul_at(f.concat, d_output);
        note(out, stage_id::d_w_o, {}, {n.hdv, n.t, n.d}, grad.w_o,
             op(name_of(stage_id::concat), no_head, f.concat, n.t, n.hdv),
             op(name_of(stage_id::d_output), no_head, d_o, n.t, n.d));
        d_concat = matmul_bt(d_output, p.w_o);
        note(out, stage_id::d_concat, {}, {n.t, n.d, n.hdv}, d_concat,
             op(name_of(stage_id::d_output), no_head, d_o, n.t, n.d),
             op("W_O", no_head, p.w_o, n.hdv, n.d));
    }
    const char *d_concat_name =
        c.output_projection ? name_of(stage_id::d_concat) : name_of(stage_id::d_output);
    grad.x = matrix({c.seq_len, c.d_model}, 0.0);
    std::vector<operand> via_q, via_k, via_v; // d_x's parts, one per head
    for (std::size_t g = 0; g < c.num_kv_heads; ++g) {
        const int first = int(g * G);
        matrix d_v({c.seq_len, c.d_v}, 0.0), d_k({c.seq_len, c.d_k}, 0.0); // Σ over the group
        std::vector<operand> a_ops, d_h_ops, d_s_ops, q_ops;
        for (std::size_t i = g * G; i < (g + 1) * G; ++i) {
            const stage_at at{int(i), int(g), no_step, {}};
            // 7. concat: head i's columns of dConcat are dH_i.
            const shared_matrix d_h = columns_of(d_concat, i * c.d_v, c.d_v); // (T, DV)
            note(out, stage_id::d_head, at, {n.h, n.t, n.dv, n.hdv}, d_h,
                 op(d_concat_name, no_head, d_concat, n.t, n.hdv));
            // 6. H = A · V: dA = dH · Vᵀ, dV += Aᵀ · dH.
            const shared_matrix d_a = matmul_bt(d_h, f.v[g]); // (T, T)
            note(out, stage_id::d_weights, at, {n.t, n.dv, n.tkv}, d_a,
                 op(name_of(stage_id::d_head), int(i), d_h, n.t, n.dv),
                 op("V", first, f.v[g], n.tkv, n.dv));
            d_v += matmul_at(f.a[i], d_h);
            // 5. A = softmax(L): dL = A ⊙ (dA − rowsum(dA ⊙ A)). The bias B and the mask M are
            // constants added to S̃, so dS̃ = dL; 3. S̃ = S / √DK: dS = dS̃ / √DK.
            const shared_matrix a = f.a[i];
            const shared_matrix d_scaled = softmax_backward(f.a[i], d_a);
            note(out, stage_id::d_scaled, at, {n.t, n.tkv}, d_scaled,
                 op(name_of(stage_id::weights), int(i), a, n.t, n.tkv),
                 op(name_of(stage_id::d_weights), int(i), d_a, n.t, n.tkv));
            const shared_matrix d_s = matrix(*d_scaled / score_divisor(c));
            note(out, stage_id::d_scores, at, {n.t, n.tkv, n.dk}, d_s,
                 op(name_of(stage_id::d_scaled), int(i), d_scaled, n.t, n.tkv));
            // 2. S = Q · Kᵀ: dQ = dS · K, dK += dSᵀ · Q (under RoPE of the turned Q and K,
            // and then 1½: a turn by φ passes its gradient back turned by −φ).
            const shared_matrix d_q_read = matmul(d_s, f.k[g]); // (T, DK)
            note(out, rope ? stage_id::d_q_rot : stage_id::d_q, at, {n.t, n.tkv, n.dk}, d_q_read,
                 op(name_of(stage_id::d_scores), int(i), d_s, n.t, n.tkv),
                 op(rope ? name_of(stage_id::k_rot) : "K", first, f.k[g], n.tkv, n.dk));
            const shared_matrix d_q =
                rope ? rotate_recorded(stage_id::d_q_unrot, d_q_read, name_of(stage_id::d_q_rot),
                                       *f.back, c, out, at, n.t)
                     : d_q_read;
            d_k += matmul_at(d_s, f.q[i]);
            // 1. Q = X · W_Q: dW_Q = Xᵀ · dQ, and X receives dQ · W_Qᵀ.
            grad.w_q.push_back(matmul_at(f.x, d_q));
            const shared_matrix part = matmul_bt(d_q, p.w_q[i]); // (T, D)
            grad.x += *part;
            if (!out)
                continue;
            a_ops.push_back(op(name_of(stage_id::weights), int(i), a, n.t, n.tkv));
            d_h_ops.push_back(op(name_of(stage_id::d_head), int(i), d_h, n.t, n.dv));
            d_s_ops.push_back(op(name_of(stage_id::d_scores), int(i), d_s, n.t, n.tkv));
            q_ops.push_back(op(rope ? name_of(stage_id::q_rot) : "Q", int(i), f.q[i], n.t, n.dk));
            via_q.push_back(op("d_q·W_Qᵀ", int(i), part, n.t, n.d));
            record(out, stage_id::d_w_q, at, {n.d, n.t, n.dk}, grad.w_q.back(),
                   op(x_name, no_head, f.x, n.t, n.d),
                   op(rope ? name_of(stage_id::d_q_unrot) : name_of(stage_id::d_q), int(i), d_q,
                      n.t, n.dk));
        }
        const stage_at kv{first, int(g), no_step, {}};
        const shared_matrix d_v_g = std::move(d_v), d_k_read = std::move(d_k);
        note(out, stage_id::d_v, kv, {n.tkv, n.t, n.dv, group}, d_v_g, std::move(a_ops),
             std::move(d_h_ops));
        note(out, rope ? stage_id::d_k_rot : stage_id::d_k, kv, {n.tkv, n.t, n.dk, group}, d_k_read,
             std::move(d_s_ops), std::move(q_ops));
        const shared_matrix d_k_g =
            rope ? rotate_recorded(stage_id::d_k_unrot, d_k_read, name_of(stage_id::d_k_rot),
                                   *f.back, c, out, kv, n.tkv)
                 : d_k_read;
        grad.w_k.push_back(matmul_at(f.x, d_k_g));
        grad.w_v.push_back(matmul_at(f.x, d_v_g));
        const shared_matrix via_k_g = matmul_bt(d_k_g, p.w_k[g]),
                            via_v_g = matmul_bt(d_v_g, p.w_v[g]);
        grad.x += *via_k_g + *via_v_g;
        if (!out)
            continue;
        record(out, stage_id::d_w_k, kv, {n.d, n.tkv, n.dk}, grad.w_k.back(),
               op(x_name, no_head, f.x, n.tkv, n.d),
               op(rope ? name_of(stage_id::d_k_unrot) : name_of(stage_id::d_k), first, d_k_g, n.tkv,
                  n.dk));
        record(out, stage_id::d_w_v, kv, {n.d, n.tkv, n.dv}, grad.w_v.back(),
               op(x_name, no_head, f.x, n.tkv, n.d),
               op(name_of(stage_id::d_v), first, d_v_g, n.tkv, n.dv));
        via_k.push_back(op("d_k·W_Kᵀ", first, via_k_g, n.t, n.d));
        via_v.push_back(op("d_v·W_Vᵀ", first, via_v_g, n.t, n.d));
    }
    // ½. X + PE: PE is a constant, so dX = d(X + PE).
    const dim kv_heads{c.num_kv_heads, "h_kv"};
    note(out, stage_id::d_x, {}, {n.t, n.d, parts, n.h, kv_heads}, grad.x, std::move(via_q),
         std::move(via_k), std::move(via_v));
    return grad;
}

} // namespace attention
