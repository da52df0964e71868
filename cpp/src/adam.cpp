#include "attention/adam.hpp"

#include <cmath>

namespace attention {

adam_state adam_start(const model_config &c) {
    return {0, zeros_like(c), zeros_like(c)};
}

void adam_step(model_params &p, const model_params &g, adam_state &s, double learning_rate) {
    ++s.step;
    const double t = double(s.step);
    const double correct1 = 1 - std::pow(adam_beta1, t), correct2 = 1 - std::pow(adam_beta2, t);
    const std::vector<matrix *> theta = matrices_of(p), m = matrices_of(s.m), v = matrices_of(s.v);
    const std::vector<const matrix *> grad = matrices_of(g);
    for (std::size_t i = 0; i < theta.size(); ++i)
        for (std::size_t k = 0; k < theta[i]->size(); ++k) {
            const double gk = grad[i]->flat(k);
            double &mk = m[i]->flat(k), &vk = v[i]->flat(k);
            mk = adam_beta1 * mk + (1 - adam_beta1) * gk;
            vk = adam_beta2 * vk + (1 - adam_beta2) * gk * gk;
            theta[i]->flat(k) -=
                learning_rate * (mk / correct1) / (std::sqrt(vk / correct2) + adam_epsilon);
        }
}

} // namespace attention
