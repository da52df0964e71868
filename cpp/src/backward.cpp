#include "attention/backward.hpp"

#include <algorithm>
#include <cmath>

#include "attention/alibi.hpp"
#include "attention/gemm.hpp"
#include "attention/mask.hpp"
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

// The softmax's backward pass, row by row over the keys each query sees: dL = A ⊙ (dA −
// rowsum(dA ⊙ A)). Where A is exactly 0 (a hidden key), so is dL, which is left at 0 outside the
// spans; dA is read only inside them. a, d_a: (T, T_kv); keys: (T) spans.
matrix softmax_backward(const matrix &a, const matrix &d_a, const row_spans &keys) {
    matrix d_l = xt::zeros<double>({rows(a), cols(a)});
    for (std::size_t i = 0; i < rows(a); ++i) {
        const key_span s = keys[i];
        double row_term = 0;
        for (std::size_t j = s.begin; j < s.end; ++j)
            row_term += d_a(i, j) * a(i, j);
        for (std::size_t j = s.begin; j < s.end; ++j)
            d_l(i, j) = a(i, j) * (d_a(i, j) - row_term);
    }
    return d_l;
}

// A · Bᵀ where only each row's span of keys is read later: dA = dH · Vᵀ. (T, T_kv).
matrix matmul_bt_spans(const matrix &a, const matrix &b, const row_spans &keys) {
    matrix c({rows(a), rows(b)});
    gemm_bt_spans(rows(a), cols(a), rows(b), a.data(), cols(a), b.data(), cols(b), c.data(),
                  rows(b), keys);
    return c;
}

// A · B where row i of A is zero outside keys[i]: dQ = dS · K. (T, DK).
matrix matmul_spans(const matrix &a, const matrix &b, const row_spans &keys) {
    matrix c({rows(a), cols(b)});
    gemm_spans(rows(a), cols(a), cols(b), a.data(), cols(a), b.data(), cols(b), c.data(),
               cols(b), keys);
    return c;
}

// Aᵀ · B where column j of A is zero outside queries[j]: dV = Aᵀ · dH, dK = dSᵀ · Q. (T_kv, ·).
matrix matmul_at_spans(const matrix &a, const matrix &b, const row_spans &queries) {
    matrix c = xt::zeros<double>({cols(a), cols(b)}); // a key no query sees keeps its 0
    gemm_at_spans(cols(a), rows(a), cols(b), a.data(), cols(a), b.data(), cols(b), c.data(),
                  cols(b), queries);
    return c;
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

// dS̃'s terms: what the forward added to S̃ before the softmax (the mask's rules, ALiBi's B),
// constants the gradient passes through unchanged.
void add_logit_terms(stage &s, const attention_config &c, std::size_t head) {
    for (const mask_rule r : mask_rules(c))
        add_term(s, name_of(r));
    if (c.alibi)
        add_term(s, alibi_of(c, head).causal ? "one-sided" : "symmetric");
}

} // namespace

attention_gradients attention_backward(const attention_params &p, const matrix &d_output,
                                       const attention_config &c, trace *out) {
    attention_cache f; // the forward stages recorded as every chapter records them, and kept
    multi_head_attention(p.x, p, c, out, &f);
    return attention_backward(f, p, d_output, c, out);
}

namespace {

// What one backward pass reads: the forward's cache, the weights, the sizes, and where it records.
struct backward_pass {
    const attention_cache &f;
    const attention_params &p;
    const attention_config &c;
    trace *out;
    named_dims n;
    bool rope;
    const char *x_name;        // X, or X + PE
    const char *d_concat_name; // dConcat, or dO without W_O
    shared_matrix d_concat;    // (T, H·DV)
    // The keys each query's gradient products run over, and the queries each key's: the visible
    // ones untraced (hidden keys add only zeros), every one when a trace shows the whole dA.
    row_spans keys, queries; // (T), (T_kv)
};

// What the query heads of one K/V group pass back to it: Σ dV and Σ dK over the group, and the
// operands of those sums (one per query head) for the group's stages.
struct group_sums {
    matrix d_v, d_k; // (T_kv, DV), (T_kv, DK)
    std::vector<operand> a, d_h, d_s, q;
};

// 8. output = concat · W_O: dW_O = concatᵀ · dO, dConcat = dO · W_Oᵀ. Returns dConcat (T, H·DV),
// which is dO itself without W_O.
shared_matrix output_backward(const backward_pass &b, const shared_matrix &d_o,
                              attention_gradients &grad) {
    if (!b.c.output_projection)
        return d_o;
    const named_dims &n = b.n;
    grad.w_o = matmul_at(b.f.concat, *d_o);
    note(b.out, stage_id::d_w_o, {}, {n.hdv, n.t, n.d}, grad.w_o,
         op(name_of(stage_id::concat), no_head, b.f.concat, n.t, n.hdv),
         op(name_of(stage_id::d_output), no_head, d_o, n.t, n.d));
    const shared_matrix d_concat = matmul_bt(*d_o, b.p.w_o);
    note(b.out, stage_id::d_concat, {}, {n.t, n.d, n.hdv}, d_concat,
         op(name_of(stage_id::d_output), no_head, d_o, n.t, n.d),
         op("W_O", no_head, b.p.w_o, n.hdv, n.d));
    return d_concat;
}

// Query head i of K/V group g, steps 7 to 1: dH → dA → dS̃ → dS → dQ → dW_Q, with its shares of
// dV and dK added to the group's sums. Returns X's part through W_Q: dQ · W_Qᵀ (T, D). ~50 lines:
// the derivation's seven steps for one head, each beside the stage it records, kept in one piece.
shared_matrix query_head_backward(const backward_pass &b, std::size_t i, std::size_t g,
                                  group_sums &sums, attention_gradients &grad) {
    const attention_cache &f = b.f;
    const named_dims &n = b.n;
    const int head = int(i), first = int(g * group_size(b.c));
    const stage_at at{head, int(g), no_step, {}};
    // 7. concat: head i's columns of dConcat are dH_i.
    const shared_matrix d_h = columns_of(*b.d_concat, i * b.c.d_v, b.c.d_v); // (T, DV)
    note(b.out, stage_id::d_head, at, {n.h, n.t, n.dv, n.hdv}, d_h,
         op(b.d_concat_name, no_head, b.d_concat, n.t, n.hdv));
    // 6. H = A · V: dA = dH · Vᵀ, dV += Aᵀ · dH.
    const shared_matrix d_a = matmul_bt_spans(*d_h, f.v[g], b.keys); // (T, T_kv)
    note(b.out, stage_id::d_weights, at, {n.t, n.dv, n.tkv}, d_a,
         op(name_of(stage_id::d_head), head, d_h, n.t, n.dv), op("V", first, f.v[g], n.tkv, n.dv));
    sums.d_v += matmul_at_spans(f.a[i], *d_h, b.queries);
    // 5. A = softmax(L): dL = A ⊙ (dA − rowsum(dA ⊙ A)). The bias B and the mask M are constants
    // added to S̃, so dS̃ = dL; 3. S̃ = S / √DK: dS = dS̃ / √DK.
    const shared_matrix a = f.a[i];
    const shared_matrix d_scaled = softmax_backward(f.a[i], *d_a, b.keys);
    note(b.out, stage_id::d_scaled, at, {n.t, n.tkv}, d_scaled,
         op(name_of(stage_id::weights), head, a, n.t, n.tkv),
         op(name_of(stage_id::d_weights), head, d_a, n.t, n.tkv));
    if (b.out)
        add_logit_terms(b.out->stages.back(), b.c, i);
    const shared_matrix d_s = matrix(*d_scaled / score_divisor(b.c));
    note(b.out, stage_id::d_scores, at, {n.t, n.tkv, n.dk}, d_s,
         op(name_of(stage_id::d_scaled), head, d_scaled, n.t, n.tkv));
    if (b.out && b.c.scale_scores)
        add_term(b.out->stages.back(), "scale");
    // 2. S = Q · Kᵀ: dQ = dS · K, dK += dSᵀ · Q (under RoPE of the turned Q and K, and then 1½: a
    // turn by φ passes its gradient back turned by −φ).
    const shared_matrix d_q_read = matmul_spans(*d_s, f.k[g], b.keys); // (T, DK)
    note(b.out, b.rope ? stage_id::d_q_rot : stage_id::d_q, at, {n.t, n.tkv, n.dk}, d_q_read,
         op(name_of(stage_id::d_scores), head, d_s, n.t, n.tkv),
         op(b.rope ? name_of(stage_id::k_rot) : "K", first, f.k[g], n.tkv, n.dk));
    const shared_matrix d_q =
        b.rope ? rotate_recorded(stage_id::d_q_unrot, d_q_read, name_of(stage_id::d_q_rot), *f.back,
                                 b.c, b.out, at, n.t)
               : d_q_read;
    sums.d_k += matmul_at_spans(*d_s, f.q[i], b.queries);
    // 1. Q = X · W_Q: dW_Q = Xᵀ · dQ, and X receives dQ · W_Qᵀ.
    grad.w_q.push_back(matmul_at(f.x, *d_q));
    const shared_matrix via_q = matmul_bt(*d_q, b.p.w_q[i]); // (T, D)
    if (!b.out)
        return via_q;
    sums.a.push_back(op(name_of(stage_id::weights), head, a, n.t, n.tkv));
    sums.d_h.push_back(op(name_of(stage_id::d_head), head, d_h, n.t, n.dv));
    sums.d_s.push_back(op(name_of(stage_id::d_scores), head, d_s, n.t, n.tkv));
    sums.q.push_back(op(b.rope ? name_of(stage_id::q_rot) : "Q", head, f.q[i], n.t, n.dk));
    record(
        b.out, stage_id::d_w_q, at, {n.d, n.t, n.dk}, grad.w_q.back(),
        op(b.x_name, no_head, f.x, n.t, n.d),
        op(b.rope ? name_of(stage_id::d_q_unrot) : name_of(stage_id::d_q), head, d_q, n.t, n.dk));
    return via_q;
}

// X's parts through one K/V group's W_K and W_V: dK · W_Kᵀ and dV · W_Vᵀ, each (T, D).
struct kv_parts {
    shared_matrix via_k, via_v;
};

// K/V group g, from its query heads' sums: dV and dK recorded (under RoPE dK turned back), then
// 1. K = X · W_K, V = X · W_V: dW_K = Xᵀ · dK, dW_V = Xᵀ · dV.
kv_parts kv_group_backward(const backward_pass &b, std::size_t g, group_sums sums,
                           attention_gradients &grad) {
    const attention_cache &f = b.f;
    const named_dims &n = b.n;
    const int first = int(g * group_size(b.c));
    const dim group{group_size(b.c), "g"}; // g = h / h_kv
    const stage_at kv{first, int(g), no_step, {}};
    const shared_matrix d_v = std::move(sums.d_v), d_k_read = std::move(sums.d_k);
    note(b.out, stage_id::d_v, kv, {n.tkv, n.t, n.dv, group}, d_v, std::move(sums.a),
         std::move(sums.d_h));
    note(b.out, b.rope ? stage_id::d_k_rot : stage_id::d_k, kv, {n.tkv, n.t, n.dk, group}, d_k_read,
         std::move(sums.d_s), std::move(sums.q));
    const shared_matrix d_k =
        b.rope ? rotate_recorded(stage_id::d_k_unrot, d_k_read, name_of(stage_id::d_k_rot), *f.back,
                                 b.c, b.out, kv, n.tkv)
               : d_k_read;
    grad.w_k.push_back(matmul_at(f.x, *d_k));
    grad.w_v.push_back(matmul_at(f.x, *d_v));
    note(b.out, stage_id::d_w_k, kv, {n.d, n.tkv, n.dk}, grad.w_k.back(),
         op(b.x_name, no_head, f.x, n.tkv, n.d),
         op(b.rope ? name_of(stage_id::d_k_unrot) : name_of(stage_id::d_k), first, d_k, n.tkv,
            n.dk));
    note(b.out, stage_id::d_w_v, kv, {n.d, n.tkv, n.dv}, grad.w_v.back(),
         op(b.x_name, no_head, f.x, n.tkv, n.d),
         op(name_of(stage_id::d_v), first, d_v, n.tkv, n.dv));
    return {matmul_bt(*d_k, b.p.w_k[g]), matmul_bt(*d_v, b.p.w_v[g])};
}

} // namespace

// From dO back: W_O (8), then each K/V group's query heads (7 to 1) and the group itself (1), and
// X's gradient as the sum of every part that reached it (½).
attention_gradients attention_backward(const attention_cache &f, const attention_params &p,
                                       const matrix &d_output, const attention_config &c,
                                       trace *out) {
    const named_dims n(c);
    attention_gradients grad;
    const shared_matrix d_o = d_output; // (T, D), or (T, H·DV) without W_O
    note(out, stage_id::d_output, {}, {n.t, c.output_projection ? n.d : n.hdv}, d_o);
    backward_pass b{f,
                    p,
                    c,
                    out,
                    n,
                    c.rope.has_value(),
                    c.sinusoidal ? name_of(stage_id::x_pos) : "X",
                    name_of(c.output_projection ? stage_id::d_concat : stage_id::d_output),
                    d_o,
                    out ? all_keys(c.seq_len, c.kv_len) : visible_spans(c),
                    {}};
    b.queries = seeing_queries(b.keys, c.kv_len);
    b.d_concat = output_backward(b, d_o, grad);
    grad.x = matrix({c.seq_len, c.d_model}, 0.0);
    std::vector<operand> via_q, via_k, via_v; // d_x's parts, one per head
    const std::size_t G = group_size(c);
    for (std::size_t g = 0; g < c.num_kv_heads; ++g) {
        group_sums sums{
            matrix({c.kv_len, c.d_v}, 0.0), matrix({c.kv_len, c.d_k}, 0.0), {}, {}, {}, {}};
        for (std::size_t i = g * G; i < (g + 1) * G; ++i) {
            const shared_matrix part = query_head_backward(b, i, g, sums, grad);
            grad.x += *part;
            if (out)
                via_q.push_back(op("d_q·W_Qᵀ", int(i), part, n.t, n.d));
        }
        const kv_parts parts = kv_group_backward(b, g, std::move(sums), grad);
        grad.x += *parts.via_k + *parts.via_v;
        if (out) {
            via_k.push_back(op("d_k·W_Kᵀ", int(g * G), parts.via_k, n.t, n.d));
            via_v.push_back(op("d_v·W_Vᵀ", int(g * G), parts.via_v, n.t, n.d));
        }
    }
    // ½. X + PE: PE is a constant, so dX = d(X + PE).
    const dim parts{c.num_heads + 2 * c.num_kv_heads, "parts"}, kv_heads{c.num_kv_heads, "h_kv"};
    note(out, stage_id::d_x, {}, {n.t, n.d, parts, n.h, kv_heads}, grad.x, std::move(via_q),
         std::move(via_k), std::move(via_v));
    if (out && c.sinusoidal)
        add_term(out->stages.back(), "sinusoidal"); // the gradient at X + PE, which is dX
    return grad;
}

} // namespace attention
