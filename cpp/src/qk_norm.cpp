#include "attention/qk_norm.hpp"

#include <algorithm>
#include <cmath>

namespace attention {

matrix rms_normed(matrix_view x, const std::vector<double> &gain) {
    matrix out({x.rows, x.cols}); // (P, DK)
    for (std::size_t p = 0; p < x.rows; ++p) {
        const double *in = x.data + p * x.ld;
        double squares = 0.0;
        for (std::size_t a = 0; a < x.cols; ++a)
            squares += in[a] * in[a];
        const double rms = std::sqrt(squares / double(x.cols) + qk_norm_eps);
        for (std::size_t a = 0; a < x.cols; ++a)
            out(p, a) = in[a] / rms * gain[a];
    }
    return out;
}

shared_matrix rms_norm_recorded(stage_id id, const shared_matrix &x, const char *x_name,
                                const std::vector<double> &gain, const attention_config &c,
                                trace *out, stage_at at, const dim &rows) {
    shared_matrix result = rms_normed(view_of(x), gain);
    if (!out)
        return result;
    const dim dk{c.d_k, "d_k"}, one{1, "1"};
    matrix g({1, gain.size()}); // (1, DK)
    std::copy(gain.begin(), gain.end(), g.begin());
    const bool keys = id == stage_id::k_norm;
    record(out, id, at, {rows, dk, one}, result, operand{x_name, at.head, x, axes_of(rows, dk)},
           operand{keys ? "λ_K" : "λ_Q", no_head, std::move(g), axes_of(one, dk)});
    return result;
}

double qk_norm_bound(const attention_config &c) {
    double gains = 0.0;
    for (std::size_t a = 0; a < c.d_k; ++a)
        gains = std::max(gains, std::fabs(c.q_norm_gain[a] * c.k_norm_gain[a]));
    return double(c.d_k) * gains / score_divisor(c);
}

} // namespace attention
