#include "attention/gradient_check.hpp"

#include <cmath>
#include <cstddef>

#include "attention/attention.hpp"

namespace attention {

namespace {

// ℒ = ⟨O, dO⟩ = Σ O ⊙ dO: the loss whose gradient at O is dO.
double stand_in_loss(const attention_params &p, const matrix &d_output, const attention_config &c) {
    const matrix o = multi_head_attention(p, c); // (T, D), or the concat without W_O
    double sum = 0.0;
    for (std::size_t i = 0; i < o.size(); ++i)
        sum += o.data()[i] * d_output.data()[i];
    return sum;
}

// The weight matrix `name` of p (W_Q and W_K, W_V of head 0, or W_O).
matrix &weight_of(attention_params &p, const std::string &name) {
    if (name == "W_Q")
        return p.w_q[0];
    if (name == "W_K")
        return p.w_k[0];
    return name == "W_V" ? p.w_v[0] : p.w_o;
}

// dW's entry of largest magnitude, and the central difference of ℒ along it.
gradient_check check_one(const attention_params &p, const matrix &d_output,
                         const attention_config &c, const char *name, const matrix &d_w) {
    std::size_t best = 0;
    for (std::size_t k = 1; k < d_w.size(); ++k)
        if (std::abs(d_w.data()[k]) > std::abs(d_w.data()[best]))
            best = k;
    gradient_check g{
        name, best / cols(d_w), best % cols(d_w), gradient_check_step, d_w.data()[best], 0.0};
    attention_params moved = p;
    double &w = weight_of(moved, name)(g.row, g.col);
    const double at = w;
    w = at + g.step;
    const double up = stand_in_loss(moved, d_output, c);
    w = at - g.step;
    const double down = stand_in_loss(moved, d_output, c);
    g.numeric = (up - down) / (2 * g.step);
    return g;
}

const matrix *first_stage(const trace &t, stage_id id) {
    for (const stage &s : t.stages)
        if (s.id == id && (s.head == 0 || s.head == no_head))
            return &s.values.get();
    return nullptr;
}

} // namespace

std::vector<gradient_check> check_gradients(const attention_params &p, const matrix &d_output,
                                            const attention_config &c, const trace &t) {
    std::vector<gradient_check> out;
    const std::pair<stage_id, const char *> weights[] = {{stage_id::d_w_q, "W_Q"},
                                                         {stage_id::d_w_k, "W_K"},
                                                         {stage_id::d_w_v, "W_V"},
                                                         {stage_id::d_w_o, "W_O"}};
    for (const auto &[id, name] : weights)
        if (const matrix *d_w = first_stage(t, id))
            out.push_back(check_one(p, d_output, c, name, *d_w));
    return out;
}

} // namespace attention
