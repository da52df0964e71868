#include "attention/trace.hpp"

namespace attention {

namespace {

std::string pair(const std::string &a, const std::string &b) {
    return "(" + a + ", " + b + ")";
}

std::string num(const dim &d) {
    return std::to_string(d.size);
}

} // namespace

equation shape_of(dim r, dim c) {
    return {pair(num(r), num(c)), pair(r.symbol, c.symbol)};
}

equation product(dim m, dim k, dim n) {
    return {pair(num(m), num(k)) + " @ " + pair(num(k), num(n)) + " → " + pair(num(m), num(n)),
            pair(m.symbol, k.symbol) + " @ " + pair(k.symbol, n.symbol) + " → " +
                pair(m.symbol, n.symbol)};
}

equation divide_by_sqrt(dim t, dim dk) {
    const equation tt = shape_of(t, t);
    return {tt.numeric + " ÷ √" + num(dk) + " → " + tt.numeric,
            tt.symbolic + " ÷ √" + dk.symbol + " → " + tt.symbolic};
}

equation divide_by_one(dim t) {
    const equation tt = shape_of(t, t);
    return {tt.numeric + " ÷ 1 → " + tt.numeric, tt.symbolic + " ÷ 1 → " + tt.symbolic};
}

equation add_mask(dim t) {
    const equation tt = shape_of(t, t);
    return {tt.numeric + " + mask " + tt.numeric + " → " + tt.numeric,
            tt.symbolic + " + mask " + tt.symbolic + " → " + tt.symbolic};
}

equation softmax_of(dim t) {
    const equation tt = shape_of(t, t);
    return {"softmax" + tt.numeric + " → " + tt.numeric,
            "softmax" + tt.symbolic + " → " + tt.symbolic};
}

equation concat_of(dim h, dim t, dim dv, dim width) {
    return {num(h) + " × " + pair(num(t), num(dv)) + " → " + pair(num(t), num(width)),
            h.symbol + " × " + pair(t.symbol, dv.symbol) + " → " + pair(t.symbol, width.symbol)};
}

std::size_t trace_value_count(const attention_config &c) {
    const std::size_t t = c.seq_len, d = c.d_model, h = c.num_heads, dk = c.d_k, dv = c.d_v;
    const std::size_t tt = t * t;
    std::size_t per_head = 0;
    per_head += 2 * (t * dk + t * d + d * dk); // q, k with operands X, W
    per_head += t * dv + t * d + d * dv;       // v with operands X, W_V
    per_head += tt + 2 * t * dk;               // scores with operands Q, K
    per_head += 2 * tt;                        // scaled with operand scores
    if (c.causal)
        per_head += 2 * tt;                   // masked with operand scaled
    per_head += 2 * tt;                       // weights with operand masked or scaled
    per_head += t * dv + tt + t * dv;         // head with operands weights, V
    std::size_t total = t * d + h * per_head; // x
    if (c.output_projection) {
        total += 2 * t * h * dv;                  // concat with one operand per head
        total += t * d + t * h * dv + h * dv * d; // output with operands concat, W_O
        total += h * t * d;                       // one contribution per head
    }
    return total;
}

} // namespace attention
