#include "attention/model_work.hpp"

#include <cmath>

#include "attention/validation.hpp"

namespace attention {

double forward_work(const model_config &c) {
    const double t = double(c.seq_len), d = double(c.d_model), h = double(c.num_heads);
    const double dk = double(c.d_k), dv = double(c.d_v);
    const double layer = t * d * h * (2 * dk + dv) // Q, K, V: (T, D)·(D, d) per head
                         + h * t * t * (dk + dv)   // QKᵀ and A·V per head
                         + t * h * dv * d;         // concat·W_O
    return double(c.num_layers) * layer + t * d * double(c.vocab); // + x_L·W_U
}

double parameter_count(const model_config &c) {
    const double d = double(c.d_model), h = double(c.num_heads);
    const double layer = h * d * (2 * double(c.d_k) + double(c.d_v)) + h * double(c.d_v) * d;
    return 2 * double(c.vocab) * d + double(c.seq_len) * d + double(c.num_layers) * layer;
}

void check_work(double work, const std::string &field, const std::string &what,
                const std::string &instead) {
    if (work > work_limits::max_work)
        reject(field, what + " take about " + js_number(std::round(work / 1e9)) +
                          " billion multiply-adds, more than the " +
                          js_number(std::round(work_limits::max_work / 1e9)) +
                          " billion one call may take; " + instead);
}

} // namespace attention
